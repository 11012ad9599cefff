/* regex.c: extended regular expressions for matching names ('center re',
 * 'filter ... re', the TUI's find), bounded in time and memory whatever the
 * pattern.  glibc's matcher backtracks on back-references (a 100,000-character
 * name ran past 60 s at 1.2 GB with '(L*)*\1x'), builds automata the size of
 * the product of nested counted repetitions ('((L{1,50}){1,50}){1,50}'), and
 * takes time growing with the square of the name's length on some patterns
 * ('(L|LL)*x': 2 s on 16 KB).  So back-references (which ERE does not have)
 * and counted repetitions multiplying past CCT_RE_MAX_REPEAT are refused, and
 * a name is matched on its first CCT_RE_MAX_NAME bytes. */
#include "cct_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The bound of a counted repetition at p ('{m}', '{m,}', '{m,n}'): its largest
 * count (m + 1 for '{m,}'); sets *end past it.  -1 when p is not one. */
static long repeat_bound(const char *p, const char **end) {
  char *e;
  long m = strtol(p + 1, &e, 10), n = m;
  if (e == p + 1 || m < 0) return -1;
  if (*e == ',') {
    const char *q = e + 1;
    n = *q == '}' ? m + 1 : strtol(q, &e, 10);
    if (*q != '}' && e == q) return -1;
    if (*q == '}') e = (char *)cct_unconst(q);
  }
  if (*e != '}') return -1;
  *end = e;
  return n > m ? n : m;
}

int cct_regcomp(regex_t *re, const char *pattern, int flags, char *msg, size_t n) {
  enum { MAXDEPTH = 64 };
  double inner[MAXDEPTH + 1] = {1}; /* per open group: the largest repetition product inside it */
  double closed = 1;                /* that of the group just closed (')' before a '{') */
  int depth = 0, after_group = 0;
  for (const char *p = pattern; *p; p++) {
    int group = 0;
    if (*p == '\\' && p[1] >= '1' && p[1] <= '9') {
      snprintf(msg, n, "bad regular expression '%s': back-references (\\%c) are not extended regular expressions",
               pattern, p[1]);
      return -1;
    } else if (*p == '\\') {
      if (p[1]) p++;
    } else if (*p == '[') { /* a bracket expression: ']' first is literal; [:class:], [.x.], [=x=] inside */
      const char *q = p + 1;
      if (*q == '^') q++;
      if (*q == ']') q++;
      while (*q && *q != ']') {
        const char *e = *q == '[' && (q[1] == ':' || q[1] == '.' || q[1] == '=') ? strchr(q + 2, q[1]) : NULL;
        q = e && e[1] == ']' ? e + 2 : q + 1;
      }
      if (!*q) break; /* unbalanced: regcomp says so */
      p = q;
    } else if (*p == '(') {
      if (depth < MAXDEPTH) inner[++depth] = 1;
    } else if (*p == ')') {
      closed = inner[depth];
      if (depth > 0) depth--;
      if (closed > inner[depth]) inner[depth] = closed;
      group = 1;
    } else if (*p == '{') {
      const char *end;
      long b = repeat_bound(p, &end);
      if (b >= 0) {
        double prod = (double)(b ? b : 1) * (after_group ? closed : 1);
        if (prod > CCT_RE_MAX_REPEAT) {
          snprintf(msg, n, "bad regular expression '%s': counted repetitions multiply to %.0f (at most %d)", pattern,
                   prod, CCT_RE_MAX_REPEAT);
          return -1;
        }
        if (prod > inner[depth]) inner[depth] = prod;
        closed = prod; /* '(a{9}){9}' after '{9}{9}' stays a product */
        group = 1;
        p = end;
      }
    }
    after_group = group;
  }
  int e = regcomp(re, pattern, flags);
  if (e) {
    char m[200];
    regerror(e, re, m, sizeof m);
    snprintf(msg, n, "bad regular expression '%s': %s", pattern, m);
    return -1;
  }
  return 0;
}

int cct_regmatch(const regex_t *re, const char *name) {
  size_t len = strlen(name);
  regmatch_t m[1] = {{0, (regoff_t)(len < CCT_RE_MAX_NAME ? len : CCT_RE_MAX_NAME)}};
  return regexec(re, name, 1, m, REG_STARTEND) == 0;
}

double cct_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}
