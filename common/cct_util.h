/* cct_util.h: the private utility layer shared by the cctq libraries (never
 * installed, never part of the public API): array growth with overflow checks,
 * one hash map, basename, Levenshtein distance and locale-free number
 * formatting.  Everything here returns errors instead of printing or exiting. */
#ifndef CCT_UTIL_H
#define CCT_UTIL_H

#include <locale.h>
#include <stddef.h>
#include <stdint.h>

/* ---- memory ---- */

/* p without its const, the one place such a cast is written: for handing memory
 * this code owns, but holds through a const pointer (the strings of the public
 * structs), to free, munmap or an API that takes no const. */
static inline void *cct_unconst(const void *p) {
  uintptr_t u = (uintptr_t)p;
  return (void *)u;
}

/* For a program that runs one command after another over big arrays (cctq):
 * asks the C library to keep the memory a command frees for the next one
 * (blocks under 32 MiB from the heap, not given back to the system until 1 GiB
 * of it is free), instead of handing it back and faulting fresh pages in again:
 * each page fault costs tens of microseconds on the development VM, and a
 * center of 74,000 occurrences takes 12 MB.  A no-op without glibc. */
void cct_keep_freed_memory(void);

/* Sets *out to a * b.  Returns 0, or -1 (leaving *out alone) when the product
 * does not fit in a size_t (git's st_mult, reporting instead of dying). */
int cct_mul(size_t a, size_t b, size_t *out);

/* realloc(p, n * elem) that fails (NULL, p untouched) when n * elem overflows. */
void *cct_reallocarray(void *p, size_t n, size_t elem);

/* The capacity to grow an array of cap elements of elem bytes to when it must
 * hold need: at least need, at least twice cap, at least 16.  Returns 0 when
 * that many elements would not fit in a size_t. */
size_t cct_grow_cap(size_t cap, size_t need, size_t elem);

/* Grows the array whose address is pp (a T ** passed as void *) from *cap to at
 * least need elements of elem bytes.  Returns 0 with *pp and *cap updated, or
 * -1 when out of memory or on overflow, with *pp and *cap unchanged (the old
 * array stays valid).  Use it through CCT_GROW. */
int cct_grow_array(void *pp, size_t need, size_t *cap, size_t elem);

/* Makes room for at least need elements in array p of capacity cap (a size_t
 * lvalue), like git's ALLOC_GROW: 0 on success, -1 when out of memory. */
#define CCT_GROW(p, need, cap) ((size_t)(need) <= (cap) ? 0 : cct_grow_array(&(p), (size_t)(need), &(cap), sizeof *(p)))

/* cct_grow_array, with the new elements (from the old *cap up) zero bytes.  On
 * failure the old array and *cap stay as they were (nothing leaks, nothing is lost). */
int cct_grow_array_zero(void *pp, size_t need, size_t *cap, size_t elem);

/* CCT_GROW for an array whose unused slots must read as zero (NULL, 0). */
#define CCT_GROW_ZERO(p, need, cap) \
  ((size_t)(need) <= (cap) ? 0 : cct_grow_array_zero(&(p), (size_t)(need), &(cap), sizeof *(p)))

/* ---- hash map: a key of nkey int64 words -> one int64 value ---- */

#define CCT_HMAP_MAXKEY 6

/* Open addressing with linear probing; the map owns its memory.  Initialize
 * with CCT_HMAP_INIT(nkey), 1 <= nkey <= CCT_HMAP_MAXKEY. */
typedef struct cct_hmap {
  int64_t *slots;      /* cap * (nkey + 1) words: the key's words, then the value */
  unsigned char *used; /* cap flags */
  size_t cap;          /* power of two, 0 before the first put */
  size_t count;        /* entries stored */
  unsigned nkey;       /* words of a key */
} cct_hmap;
#define CCT_HMAP_INIT(nkey) {NULL, NULL, 0, 0, (nkey)}

/* Looks up key (nkey words).  Returns the address of its value, or NULL when
 * absent.  The address is valid until the next cct_hmap_put. */
int64_t *cct_hmap_get(const cct_hmap *m, const int64_t *key);

/* Inserts key -> v, or finds the existing entry.  Sets *added to 1 when the
 * entry is new (its value is then v), 0 when it existed (value unchanged).
 * Returns the value's address, or NULL when out of memory. */
int64_t *cct_hmap_put(cct_hmap *m, const int64_t *key, int64_t v, int *added);

/* Frees the map's memory; the map is empty and reusable (same nkey). */
void cct_hmap_release(cct_hmap *m);

/* A 64-bit FNV-1a hash of a string (NULL hashes as ""), stable across runs
 * and builds: for string keys folded into cct_hmap keys. */
uint64_t cct_hash_str(const char *s);

/* ---- regular expressions for names (regex.c) ---- */

#include <regex.h>

/* Names are matched on their first CCT_RE_MAX_NAME bytes; counted repetitions
 * ('{m,n}') may multiply, nested, to CCT_RE_MAX_REPEAT. */
enum { CCT_RE_MAX_NAME = 4096, CCT_RE_MAX_REPEAT = 1000 };

/* regcomp(re, pattern, flags) for an extended regular expression that can be
 * matched in bounded time and memory: refuses back-references (\1 to \9: not
 * ERE) and counted repetitions multiplying past CCT_RE_MAX_REPEAT.  Returns 0
 * (re to regfree), or -1 with msg ("bad regular expression '...': why", n
 * bytes) set and nothing to free. */
int cct_regcomp(regex_t *re, const char *pattern, int flags, char *msg, size_t n);

/* 1 when the first CCT_RE_MAX_NAME bytes of name match re, else 0. */
int cct_regmatch(const regex_t *re, const char *name);

/* Seconds on the monotonic clock (for time budgets such as CCT_RE_BUDGET_S, the
 * most one regular expression may take over all the names of a run). */
double cct_seconds(void);
enum { CCT_RE_BUDGET_S = 10 };

/* ---- text ---- */

/* Strings built piece by piece are built with SQLite's builder, sqlite3_str
 * (the one string builder of cctq: checked growth, printf in the C locale).
 * cct_str_take hands s's text over as a malloc'd string, for the APIs whose
 * strings the caller free()s, and frees s.  Returns NULL when s failed (out of
 * memory) or the copy cannot be made; an empty s gives "". */
typedef struct sqlite3_str sqlite3_str;
char *cct_str_take(sqlite3_str *s);

/* The part of path after its last '/' (path itself when it has none; NULL for NULL). */
const char *cct_basename(const char *path);

/* Levenshtein distance between a and b, ASCII case-insensitive, capped: returns
 * min(distance, cap).  Never fails (without memory for long words it returns cap). */
size_t cct_levenshtein(const char *a, const char *b, size_t cap);

/* ---- metrics ---- */

/* Preference of a metric (by its name, e.g. 'CPUTIME (usec)') as the one views show
 * first, lower first: CPU time 0, real time 1, cycles 2, all GPU operations 3, GPU
 * kernels 4, other time metrics 5 (a time unit, a clock or time event), anything else
 * 6, no name 7.  The ingest writer keeps the values of the best 'sum' metric beside
 * each context; the query library opens a run on the best one with data. */
int cct_metric_rank(const char *name);

/* ---- numbers without the locale ---- */

/* Formats one double with a printf conversion spec for doubles (fmt such as
 * "%.3f" or "%.17g", nothing else in it) into buf, always with '.' as the
 * decimal point whatever LC_NUMERIC says.  Returns snprintf's count. */
int cct_fmt_double(char *buf, size_t n, const char *fmt, double v);

/* Switches the calling thread to the C rules for numbers (LC_NUMERIC) while
 * keeping its other categories, so printf-family output below it is the same
 * under any host locale.  Pair each call with cct_c_numeric_end. */
typedef struct cct_c_numeric {
  locale_t prev, loc; /* (locale_t)0 when the switch was not possible */
} cct_c_numeric;
cct_c_numeric cct_c_numeric_begin(void);
void cct_c_numeric_end(cct_c_numeric s);

#endif
