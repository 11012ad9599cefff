/* cct_banned.h: C library functions cctq code must not call (as git's banned.h):
 * each use is a deprecation warning, an error under -Werror (the test build).
 * Included before every source file by the build (-include, CMakeLists.txt), so
 * it declares the functions itself, with their standard prototypes, rather than
 * defining macros that would break the system headers' own declarations.
 * Use snprintf / vsnprintf for formatting and memcpy with a known length, or a
 * string builder (sqlite3_str), for copying and joining strings. */
#ifndef CCT_BANNED_H
#define CCT_BANNED_H

#include <stdarg.h>
#include <stddef.h>

#define CCT_BANNED(instead) __attribute__((deprecated("banned in cctq (common/cct_banned.h): use " instead)))

CCT_BANNED("snprintf") int sprintf(char *restrict s, const char *restrict fmt, ...);
CCT_BANNED("vsnprintf") int vsprintf(char *restrict s, const char *restrict fmt, va_list ap);
CCT_BANNED("memcpy with a known length") char *strcpy(char *restrict d, const char *restrict s);
CCT_BANNED("memcpy with a known length") char *strncpy(char *restrict d, const char *restrict s, size_t n);
CCT_BANNED("a string builder (sqlite3_str)") char *strcat(char *restrict d, const char *restrict s);
CCT_BANNED("a string builder (sqlite3_str)") char *strncat(char *restrict d, const char *restrict s, size_t n);
CCT_BANNED("strtok_r") char *strtok(char *restrict s, const char *restrict delim);

#endif
