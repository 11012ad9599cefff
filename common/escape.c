/* escape.c: the one text escaper of cctq's outputs (see cct_escape.h): UTF-8
 * validation with U+FFFD for bad bytes, visible control characters, and the
 * quoting rules of terminal text, CSV, JSON and XML. */
#include "cct_escape.h"
#include "cct_sqlite.h"
#include "cct_util.h"

#include <stdlib.h>
#include <string.h>

size_t cct_utf8_decode(const char *str, size_t n, uint32_t *cp) {
  const unsigned char *s = (const unsigned char *)str;
  unsigned char c = s[0];
  size_t len;
  uint32_t v, min;
  *cp = 0xFFFD;
  if (c < 0x80) return *cp = c, 1;
  if (c >= 0xC2 && c <= 0xDF) len = 2, v = c & 0x1F, min = 0x80;
  else if (c >= 0xE0 && c <= 0xEF) len = 3, v = c & 0x0F, min = 0x800;
  else if (c >= 0xF0 && c <= 0xF4) len = 4, v = c & 0x07, min = 0x10000;
  else return 1; /* continuation byte, C0/C1 overlong lead, or 0xF5..0xFF */
  if (n < len) return 1;
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xC0) != 0x80) return 1;
    v = v << 6 | (s[i] & 0x3F);
  }
  if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 1;
  *cp = v;
  return len;
}

/* Where escaped text goes: a FILE, or a string being built. */
typedef struct sink {
  FILE *f;
  sqlite3_str *s;
} sink;

static void put(sink *k, const char *s, size_t n) {
  if (k->f) fwrite(s, 1, n, k->f);
  else sqlite3_str_append(k->s, s, (int)n); /* a failure is kept in k->s */
}

static void puts_(sink *k, const char *s) { put(k, s, strlen(s)); }

static int is_control(uint32_t cp) { return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F); }

/* The visible form of control character cp: '\t', '\n', '\r', '\x1b', '\u009b'. */
static void visible(sink *k, uint32_t cp) {
  char b[16];
  if (cp == '\t') puts_(k, "\\t");
  else if (cp == '\n') puts_(k, "\\n");
  else if (cp == '\r') puts_(k, "\\r");
  else if (cp < 0x80) snprintf(b, sizeof b, "\\x%02x", (unsigned)cp), puts_(k, b);
  else snprintf(b, sizeof b, "\\u%04x", (unsigned)cp), puts_(k, b);
}

static void json_char(sink *k, uint32_t cp) {
  char b[16];
  switch (cp) {
  case '"': puts_(k, "\\\""); return;
  case '\\': puts_(k, "\\\\"); return;
  case '\n': puts_(k, "\\n"); return;
  case '\r': puts_(k, "\\r"); return;
  case '\t': puts_(k, "\\t"); return;
  case '\b': puts_(k, "\\b"); return;
  case '\f': puts_(k, "\\f"); return;
  default: snprintf(b, sizeof b, "\\u%04x", (unsigned)cp), puts_(k, b); return;
  }
}

static void xml_char(sink *k, uint32_t cp) {
  switch (cp) {
  case '&': puts_(k, "&amp;"); return;
  case '<': puts_(k, "&lt;"); return;
  case '>': puts_(k, "&gt;"); return;
  case '"': puts_(k, "&quot;"); return;
  case '\'': puts_(k, "&#39;"); return;
  case '\t': puts_(k, "&#9;"); return;
  case '\n': puts_(k, "&#10;"); return;
  case '\r': puts_(k, "&#13;"); return;
  default: visible(k, cp); return;
  }
}

static void escape(sink *k, const char *s, int how) {
  if (!s) return;
  size_t n = strlen(s);
  int quote = how == CCT_ESC_CSV && strpbrk(s, ",\"") != NULL;
  if (quote) puts_(k, "\"");
  for (size_t i = 0; i < n;) {
    size_t run = i; /* printable ASCII that needs no escape goes out as one piece */
    while (run < n && (unsigned char)s[run] >= 0x20 && (unsigned char)s[run] < 0x7f &&
           !(how == CCT_ESC_JSON && (s[run] == '"' || s[run] == '\\')) &&
           !(how == CCT_ESC_XML && strchr("&<>\"'", s[run])) && !(quote && s[run] == '"'))
      run++;
    if (run > i) {
      put(k, s + i, run - i);
      i = run;
      continue;
    }
    uint32_t cp;
    size_t len = cct_utf8_decode(s + i, n - i, &cp);
    int special = is_control(cp) || (how == CCT_ESC_JSON && (cp == '"' || cp == '\\')) ||
                  (how == CCT_ESC_XML && (cp == '&' || cp == '<' || cp == '>' || cp == '"' || cp == '\'')) ||
                  (quote && cp == '"');
    if (cp == 0xFFFD) puts_(k, "\xEF\xBF\xBD"); /* also a well-formed U+FFFD of the input */
    else if (!special) put(k, s + i, len);
    else if (how == CCT_ESC_JSON) json_char(k, cp);
    else if (how == CCT_ESC_XML) xml_char(k, cp);
    else if (cp == '"') puts_(k, "\"\"");
    else visible(k, cp);
    i += len;
  }
  if (quote) puts_(k, "\"");
}

int cct_text_clean(const char *s) {
  while ((unsigned char)*s >= 0x20 && (unsigned char)*s < 0x7f) s++; /* printable ASCII: clean, one byte each */
  size_t n = strlen(s);
  for (size_t i = 0; i < n;) {
    uint32_t cp;
    size_t len = cct_utf8_decode(s + i, n - i, &cp);
    if (is_control(cp) || (cp == 0xFFFD && len == 1)) return 0;
    i += len;
  }
  return 1;
}

void cct_escape_write(FILE *f, const char *s, int how) {
  sink k = {f, NULL};
  escape(&k, s, how);
}

char *cct_escape_dup(const char *s, int how) {
  sink k = {NULL, sqlite3_str_new(NULL)};
  escape(&k, s, how);
  return cct_str_take(k.s);
}
