/* util.c: the memory, text, metric and number helpers of cct_util.h, and the names of
 * the codes of cct_kinds.h. */
#include "cct_kinds.h"
#include "cct_sqlite.h"
#include "cct_util.h"

#include <ctype.h>
#include <langinfo.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- memory ---- */

int cct_mul(size_t a, size_t b, size_t *out) {
  if (b && a > SIZE_MAX / b) return -1;
  *out = a * b;
  return 0;
}

void *cct_reallocarray(void *p, size_t n, size_t elem) {
  size_t bytes;
  if (cct_mul(n, elem, &bytes)) return NULL;
  return realloc(p, bytes ? bytes : 1);
}

size_t cct_grow_cap(size_t cap, size_t need, size_t elem) {
  size_t max = elem ? SIZE_MAX / elem : SIZE_MAX;
  if (need > max) return 0;
  size_t c = cap > max / 2 ? max : 2 * cap;
  if (c < 16) c = 16 < max ? 16 : max;
  return c < need ? need : c;
}

int cct_grow_array(void *pp, size_t need, size_t *cap, size_t elem) {
  if (need <= *cap) return 0;
  size_t ncap = cct_grow_cap(*cap, need, elem);
  if (!ncap) return -1;
  void *old, *p;
  memcpy(&old, pp, sizeof old); /* pp is the address of some T *: read and write it as bytes */
  if (!(p = cct_reallocarray(old, ncap, elem))) return -1;
  memcpy(pp, &p, sizeof p);
  *cap = ncap;
  return 0;
}

int cct_grow_array_zero(void *pp, size_t need, size_t *cap, size_t elem) {
  size_t old = *cap;
  if (cct_grow_array(pp, need, cap, elem)) return -1;
  unsigned char *p;
  memcpy(&p, pp, sizeof p);
  memset(p + old * elem, 0, (*cap - old) * elem);
  return 0;
}

/* ---- text ---- */

char *cct_str_take(sqlite3_str *s) {
  int failed = sqlite3_str_errcode(s) != SQLITE_OK;
  char *text = sqlite3_str_finish(s), *out = failed ? NULL : strdup(text ? text : "");
  sqlite3_free(text);
  return out;
}

const char *cct_basename(const char *path) {
  const char *s = path ? strrchr(path, '/') : NULL;
  return s ? s + 1 : path;
}

size_t cct_levenshtein(const char *a, const char *b, size_t cap) {
  size_t la = strlen(a), lb = strlen(b);
  if ((la > lb ? la - lb : lb - la) >= cap) return cap; /* the distance is at least the length difference */
  size_t small[65], *row = lb < 65 ? small : malloc((lb + 1) * sizeof *row);
  if (!row) return cap;
  for (size_t j = 0; j <= lb; j++) row[j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t up = row[j];
      size_t best = diag + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  size_t d = row[lb];
  if (row != small) free(row);
  return d < cap ? d : cap;
}

/* ---- metrics ---- */

/* Whether the base of metric name (without its ' (unit)' and a 'perf::' or
 * 'PAPI_' prefix) is word, case-insensitively. */
static int metric_is(const char *name, const char *word) {
  if (!strncasecmp(name, "perf::", 6)) name += 6;
  else if (!strncasecmp(name, "PAPI_", 5)) name += 5;
  size_t n = strlen(word);
  return !strncasecmp(name, word, n) && (!name[n] || name[n] == ' ');
}

/* Whether metric name measures time: a time unit in its parenthesis, or a
 * clock or time event ('perf::task-clock', 'REALTIME'). */
static int metric_is_time(const char *name) {
  static const char *const units[] = {"(sec)", "(s)", "(msec)", "(ms)", "(usec)", "(us)", "(nsec)", "(ns)"};
  size_t n = strlen(name);
  for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
    size_t k = strlen(units[i]);
    if (n >= k && !strcasecmp(name + n - k, units[i])) return 1;
  }
  for (const char *s = name; *s; s++)
    if (!strncasecmp(s, "clock", 5) || !strncasecmp(s, "time", 4)) return 1;
  return 0;
}

int cct_metric_rank(const char *name) {
  static const char *const order[] = {"CPUTIME", "REALTIME", "cycles", "TOT_CYC", "cpu-cycles", "GPUOP", "GKER"};
  static const int rank[] = {0, 1, 2, 2, 2, 3, 4};
  if (!name) return 7;
  for (size_t i = 0; i < sizeof order / sizeof *order; i++)
    if (metric_is(name, order[i])) return rank[i];
  return metric_is_time(name) ? 5 : 6;
}

/* ---- numbers ---- */

int cct_fmt_double(char *buf, size_t n, const char *fmt, double v) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral" /* fmt: one conversion for a double (contract) */
  int k = snprintf(buf, n, fmt, v);
#pragma GCC diagnostic pop
  const char *radix = nl_langinfo(RADIXCHAR); /* of this thread's locale */
  size_t rl = radix ? strlen(radix) : 0;
  if (k < 0 || !n || !rl || !strcmp(radix, ".")) return k;
  char *p = strstr(buf, radix); /* one number: at most one decimal point, no grouping */
  if (p) {
    *p = '.';
    memmove(p + 1, p + rl, strlen(p + rl) + 1);
    k -= (int)rl - 1;
  }
  return k;
}

cct_c_numeric cct_c_numeric_begin(void) {
  cct_c_numeric s = {(locale_t)0, (locale_t)0};
  locale_t base = duplocale(uselocale((locale_t)0));
  if (!base) return s;
  locale_t loc = newlocale(LC_NUMERIC_MASK, "C", base); /* consumes base on success */
  if (!loc) {
    freelocale(base);
    return s;
  }
  s.loc = loc;
  s.prev = uselocale(loc);
  if (!s.prev) {
    freelocale(loc);
    s.loc = (locale_t)0;
  }
  return s;
}

void cct_c_numeric_end(cct_c_numeric s) {
  if (!s.loc) return;
  uselocale(s.prev);
  freelocale(s.loc);
}

/* ---- codes of cct_kinds.h ---- */

const char *cct_kind_name(int kind) {
  static const char *const names[CCT_KIND_COUNT] = {"root", "function", "loop", "line", "instruction"};
  return kind >= 0 && kind < CCT_KIND_COUNT ? names[kind] : "?";
}

const char *cct_relation_name(int relation) {
  static const char *const names[CCT_REL_COUNT] = {"lexical", "call", "inlined"};
  return relation >= 0 && relation < CCT_REL_COUNT ? names[relation] : "?";
}

const char *cct_scope_name(int scope) {
  static const char *const names[CCT_SCOPE_COUNT] = {"inclusive", "exclusive", "exclusive_lex"};
  return scope >= 0 && scope < CCT_SCOPE_COUNT ? names[scope] : "?";
}

void cct_keep_freed_memory(void) {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}
