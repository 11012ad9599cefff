/* cct_escape.h: the one text escaper of cctq's outputs (private utility layer,
 * common/).  Every name, file name, title or message that leaves the programs
 * goes through it, for the terminal, CSV, JSON or XML/HTML/SVG:
 *   - UTF-8 is validated: each byte of a bad sequence (stray continuation byte,
 *     overlong form, surrogate, beyond U+10FFFF, truncated) becomes U+FFFD, so
 *     every output is valid UTF-8 whatever the archive holds;
 *   - control characters (C0, DEL, C1 U+0080..U+009F) never reach the output
 *     raw: terminal text and CSV show them visibly as git does ('\t', '\n',
 *     '\r', '\x1b', '\u009b'), so text stays one line and no escape sequence can
 *     be opened; JSON writes '\uXXXX' (or '\n', '\t', ...); XML writes
 *     '&#9;' '&#10;' '&#13;' for tab and line ends and the visible form for
 *     the others (XML 1.0 forbids them).
 * Pure functions; nothing here allocates except cct_escape_dup. */
#ifndef CCT_ESCAPE_H
#define CCT_ESCAPE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum {
  CCT_ESC_TERM = 0, /* plain text for a terminal or a text file (tree, table, folded, messages) */
  CCT_ESC_CSV = 1,  /* one CSV field (RFC 4180): TERM rules, quoted ("" doubled) when it holds ',' or '"' */
  CCT_ESC_JSON = 2, /* the inside of a JSON string (no quotes added) */
  CCT_ESC_XML = 3   /* XML/HTML text or attribute value: & < > " ' as entities */
};

/* Decodes the UTF-8 sequence at s[0..n), n >= 1.  Sets *cp to the code point,
 * or to U+FFFD when s does not start with a well-formed sequence.  Returns the
 * bytes consumed: the sequence's length, or 1 for a bad byte (each bad byte
 * then stands for one U+FFFD). */
size_t cct_utf8_decode(const char *s, size_t n, uint32_t *cp);

/* 1 when s (NUL-terminated) is well-formed UTF-8 without control characters,
 * i.e. when every escaping of CCT_ESC_TERM leaves it unchanged. */
int cct_text_clean(const char *s);

/* Writes s (NULL writes nothing) escaped for how (CCT_ESC_*) to f. */
void cct_escape_write(FILE *f, const char *s, int how);

/* Returns s escaped for how as a new string (free it), or NULL when out of
 * memory.  NULL s gives "". */
char *cct_escape_dup(const char *s, int how);

#endif
