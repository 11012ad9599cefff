/* shorten.c: names cut to a width so that they stay readable and apart
 * (cct_shorten.h has the rules).  A label is split into its name (the core)
 * and its tags; the core is reduced by a ladder of steps (parameter lists,
 * template arguments, qualifiers one by one), each taken only while the label
 * is still too wide, with the module tag shrunk before any of them; a label
 * still too wide is cut in its middle.  cct_shorten_all runs the ladder over
 * a set of labels and, where two different names end up alike, leaves out
 * the step that made them alike for both. */
#include "cct_shorten.h"

#include <stdlib.h>
#include <string.h>

/* The steps of the ladder, as bits of a set of steps. */
enum { S_MODULE = 1, S_PARAMS = 2, S_TEMPLATES = 4, S_QUALIFIERS = 8, S_ALL = 15 };

/* A label split into its core (the name) and its tags. */
typedef struct label {
  const char *s;      /* the whole label */
  size_t n;           /* its length */
  size_t core;        /* length of the core: the tags are s[core..n) */
  size_t mod, modlen; /* the module tag ' [...]' in s (modlen 0: none) */
  size_t inl;         /* the tag ' [inlined]' in s (0: none) */
  int quals;          /* qualifiers the core may lose (its last one stays before an operator) */
} label;

/* ------------------------------------------------------------ widths, cuts */

/* Columns of s[0..n): UTF-8 code points. */
static int cols(const char *s, size_t n) {
  int w = 0;
  for (size_t i = 0; i < n; i++)
    if (((unsigned char)s[i] & 0xC0) != 0x80) w++;
  return w;
}

/* Byte offset of the code point that starts column c of s[0..n). */
static size_t byte_at(const char *s, size_t n, int c) {
  int k = -1;
  for (size_t i = 0; i < n; i++)
    if (((unsigned char)s[i] & 0xC0) != 0x80 && ++k == c) return i;
  return n;
}

/* Columns of the address that ends s[0..n) ('0x1a2b' of '<unknown procedure> 0x1a2b',
 * '+0x1a2b' of 'loop [libfoo.so]+0x1a2b'), 0 when it does not end in one: a middle
 * cut keeps it whole, as it is what tells hpcprof's unknown procedures, and loops by
 * their address, apart. */
static int address_tail(const char *s, size_t n) {
  size_t k = n;
  while (k > 0 && strchr("0123456789abcdefABCDEF", s[k - 1])) k--;
  if (k == n || k < 3 || s[k - 1] != 'x' || s[k - 2] != '0' || (s[k - 3] != ' ' && s[k - 3] != '+')) return 0;
  return (int)(n - k + 2 + (s[k - 3] == '+'));
}

/* Where a cut keeps text: both ends, the start, the end. */
enum { CUT_MIDDLE = 0, CUT_KEEP_START = 1, CUT_KEEP_END = 2 };

/* s[0..n) in width columns, cut with '...' where cut says (CUT_*; at its end
 * below 5 columns).  Returns a new string, or NULL out of memory. */
static char *cut_text(const char *s, size_t n, int width, int cut) {
  char *o = malloc(n + 4);
  if (!o) return NULL;
  int w = cols(s, n);
  if (width < 0) width = 0;
  if (w <= width) {
    memcpy(o, s, n);
    o[n] = 0;
  } else if (width < 5) {
    size_t b = byte_at(s, n, width);
    memcpy(o, s, b);
    o[b] = 0;
  } else {
    int head = cut == CUT_KEEP_START ? width - 3 : cut == CUT_KEEP_END ? 0 : (width - 3 + 1) / 2, tail = width - 3 - head;
    int addr = address_tail(s, n);
    if (cut == CUT_MIDDLE && addr > tail && addr <= width - 4) tail = addr, head = width - 3 - tail;
    size_t h = byte_at(s, n, head), t = byte_at(s, n, w - tail);
    memcpy(o, s, h);
    memcpy(o + h, "...", 3);
    memcpy(o + h + 3, s + t, n - t);
    o[h + 3 + n - t] = 0;
  }
  return o;
}

/* ---------------------------------------------------------- C++ structure */

static int is_ident(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
         ((unsigned char)c & 0x80);
}

/* Whether s[i] == '<' opens template arguments: it follows a name ('eval<'),
 * and that name is not the keyword 'operator' ('operator<' is a name). */
static int opens_template(const char *s, size_t i) {
  if (s[i] != '<' || i == 0 || !is_ident(s[i - 1])) return 0;
  return !(i >= 8 && !strncmp(s + i - 8, "operator", 8) && (i == 8 || !is_ident(s[i - 9])));
}

/* Index just past the group that s[i] opens ('(', '<', '[', '{') in s[0..n),
 * nested groups of every kind inside; 0 when it is not closed. */
static size_t group_end(const char *s, size_t n, size_t i) {
  char stack[64];
  int top = 0;
  for (size_t k = i; k < n; k++) {
    char c = s[k], want = c == '(' ? ')' : c == '[' ? ']' : c == '{' ? '}' : 0;
    if (k == i && c == '<') want = '>';
    else if (c == '<' && top && opens_template(s, k)) want = '>';
    if (want) {
      if (top == (int)sizeof stack) return 0;
      stack[top++] = want;
    } else if (top && c == stack[top - 1] && --top == 0) {
      return k + 1;
    }
  }
  return 0;
}

/* Whether the keyword 'operator' starts at s[i] of s[0..n). */
static int at_operator(const char *s, size_t n, size_t i) {
  return n - i >= 8 && !strncmp(s + i, "operator", 8) && (i == 0 || !is_ident(s[i - 1])) &&
         (i + 8 == n || !is_ident(s[i + 8]));
}

/* Writes the core s[0..n) reduced by the steps of set (parameter lists and
 * template arguments as '(...)' and '<...>') without its first drop
 * qualifiers to out (room for n + 1 bytes).  Sets *nq to the core's
 * qualifiers and *op to 1 when its last part names an operator or a lambda.
 * Returns the length written. */
static size_t reduce(const char *s, size_t n, unsigned set, int drop, char *out, int *nq, int *op) {
  size_t i = 0, o = 0;
  int q = 0, last_op = 0;
  while (i < n) {
    char c = s[i];
    size_t e = 0;
    int tmpl = 0;
    if (at_operator(s, n, i)) { /* 'operator()', 'operator<<', 'operator< <T>' */
      memcpy(out + o, s + i, 8), o += 8, i += 8;
      last_op = 1;
      if (i + 1 < n && ((s[i] == '(' && s[i + 1] == ')') || (s[i] == '[' && s[i + 1] == ']'))) {
        out[o++] = s[i++], out[o++] = s[i++];
      } else {
        while (i < n && strchr("<>=!+-*/%^&|~,", s[i])) out[o++] = s[i++];
      }
      size_t j = i < n && s[i] == ' ' ? i + 1 : i;
      if (j < n && s[j] == '<' && (e = group_end(s, n, j)) != 0) {
        if (j > i) out[o++] = ' ';
        i = j, tmpl = 1;
      } else {
        continue;
      }
    } else if (c == ':' && i + 1 < n && s[i + 1] == ':') {
      i += 2, q++, last_op = 0;
      if (q <= drop) o = 0; /* the qualifiers so far go */
      else out[o++] = ':', out[o++] = ':';
      continue;
    } else if (c == '{' && !strncmp(s + i, "{lambda", 7)) {
      last_op = 1;
    }
    if (!e && (c == '(' || c == '[' || c == '{' || (c == '<' && opens_template(s, i)))) {
      e = group_end(s, n, i);
      tmpl = c == '<';
    }
    if (!e) { /* a plain character (or a group never closed: kept as it is) */
      out[o++] = s[i++];
      continue;
    }
    int params = c == '(' && i > 0 && (is_ident(s[i - 1]) || strchr("<>)]=!+-*/%^&|~,", s[i - 1]));
    if (e - i > 5 && ((params && (set & S_PARAMS)) || (tmpl && (set & S_TEMPLATES)))) {
      out[o++] = s[i];
      memcpy(out + o, "...", 3), o += 3;
      out[o++] = s[e - 1];
    } else {
      memcpy(out + o, s + i, e - i), o += e - i;
    }
    i = e;
  }
  out[o] = 0;
  if (nq) *nq = q;
  if (op) *op = last_op;
  return o;
}

/* --------------------------------------------------------------- labels */

/* Whether the tag s[a..b) (' [x]', ' (x)', ' @ x') is one to keep whole (not the module). */
static int module_tag(const char *s, size_t a, size_t b) {
  if (s[a + 1] != '[') return 0;
  return !(b - a == 10 && !strncmp(s + a, " [inlined]", 10)) && strncmp(s + a, " [clone ", 8);
}

/* Ends the split of L at end (the core's length); computes its qualifiers. */
static void split_done(label *L, size_t end) {
  L->core = end;
  char *tmp = malloc(end + 1);
  int nq = 0, op = 0;
  if (tmp) reduce(L->s, end, 0, 0, tmp, &nq, &op);
  free(tmp);
  L->quals = nq - (op && nq > 0 ? 1 : 0);
}

/* Splits s into core and tags: from the end, ' [...]' and ' (...)' groups
 * and a call site ' @ file:line'; the last bracketed tag that is neither
 * '[inlined]' nor '[clone ...]' is the module. */
static void split(label *L, const char *s) {
  memset(L, 0, sizeof *L);
  L->s = s;
  L->n = L->core = strlen(s);
  size_t end = L->n;
  while (end > 2) {
    char c = s[end - 1];
    size_t a = 0;
    if (c == ']' || c == ')') { /* the group's opening bracket, after a blank */
      char open = c == ']' ? '[' : '(';
      int depth = 0;
      for (size_t k = end; k-- > 0;) {
        if (s[k] == c) depth++;
        else if (s[k] == open && --depth == 0) {
          a = k;
          break;
        }
      }
      if (a < 2 || s[a - 1] != ' ') break;
      if (open == '(') /* ' (file.c:77)', ' (file.c:77, libm.so)': blanks only after commas */
        for (size_t k = a + 1; k < end; k++)
          if (s[k] == ' ' && s[k - 1] != ',') {
            split_done(L, end);
            return;
          }
      a--;
    } else { /* ' @ file.c:12' */
      size_t k = end;
      while (k > 0 && s[k - 1] != ' ') k--;
      if (k < 3 || strncmp(s + k - 3, " @ ", 3)) break;
      a = k - 3;
    }
    if (!a) break;
    if (!L->modlen && module_tag(s, a, end)) L->mod = a, L->modlen = end - a;
    if (end - a == 10 && !strncmp(s + a, " [inlined]", 10)) L->inl = a;
    end = a;
  }
  split_done(L, end);
}

/* The label with its core replaced by core (clen bytes) and its module tag
 * as shrink says: 0 whole, 1 shrunk to what room leaves ('[libgomp...]', at
 * least '[...]'), 2 left out, 3 shrunk keeping its end ('[...2.28.so]').  Returns a new string, or NULL out of memory. */
static char *assemble(const label *L, const char *core, size_t clen, int shrink, int room) {
  size_t n = L->n - L->core;
  char *o = malloc(clen + n + 8);
  if (!o) return NULL;
  memcpy(o, core, clen);
  size_t k = clen;
  const char *t = L->s + L->core;
  if (!L->modlen || !shrink) {
    memcpy(o + k, t, n), k += n;
  } else {
    size_t before = L->mod - L->core, after = L->n - L->mod - L->modlen;
    memcpy(o + k, t, before), k += before;
    int mw = cols(L->s + L->mod, L->modlen); /* ' [' name ']' */
    int keep = room - cols(o, k) - cols(L->s + L->mod + L->modlen, after);
    if (shrink == 2) {
    } else if (keep >= mw) {
      memcpy(o + k, L->s + L->mod, L->modlen), k += L->modlen;
    } else if (shrink == 3) { /* its end: ' [...' + end + ']' */
      int name = keep - 6 < 0 ? 0 : keep - 6, nw = mw - 3;
      size_t b = byte_at(L->s + L->mod + 2, L->modlen - 3, nw - name);
      memcpy(o + k, " [...", 5), k += 5;
      memcpy(o + k, L->s + L->mod + 2 + b, L->modlen - 3 - b), k += L->modlen - 3 - b;
      o[k++] = ']';
    } else {
      int name = keep - 6 < 0 ? 0 : keep - 6; /* ' [' + name + '...]' */
      size_t b = byte_at(L->s + L->mod + 2, L->modlen - 3, name);
      memcpy(o + k, " [", 2), k += 2;
      memcpy(o + k, L->s + L->mod + 2, b), k += b;
      memcpy(o + k, "...]", 4), k += 4;
    }
    memcpy(o + k, L->s + L->mod + L->modlen, after), k += after;
  }
  o[k] = 0;
  return o;
}

/* What fit did to a label: the steps taken and the qualifiers dropped. */
typedef struct taken {
  unsigned set; /* S_* steps taken */
  int drop;     /* qualifiers dropped */
} taken;

/* L in width columns without the steps of skip, dropping at most maxdrop
 * qualifiers, a name still too wide cut as cut says (CUT_*); *did gets the
 * steps taken.  Returns the text, or NULL out of memory. */
static char *fit(const label *L, int width, unsigned skip, int maxdrop, int cut, taken *did) {
  char *core = malloc(L->core + 1), *text = NULL;
  if (!core) return NULL;
  unsigned set = 0;
  int drop = 0, gone = 0, mod = skip & S_MODULE ? 3 : 1; /* modules that must stay apart keep their ends */
  /* stages: as it is, the module shrunk, parameters, templates, each
   * qualifier, the module left out */
  for (int stage = 0;; stage++) {
    unsigned step = stage == 1 ? S_MODULE : stage == 2 ? S_PARAMS : stage == 3 ? S_TEMPLATES : 0;
    if (stage >= 4 && drop < maxdrop && drop < L->quals) {
      drop++, step = S_QUALIFIERS;
    } else if (stage >= 4) {
      if (gone || (skip & S_MODULE) || !L->modlen) break;
      gone = 1;
    } else if (step & skip & ~S_MODULE) {
      continue;
    }
    set |= step;
    size_t clen = reduce(L->s, L->core, set, drop, core, NULL, NULL);
    text = assemble(L, core, clen, gone ? 2 : set & S_MODULE ? mod : 0, width);
    if (!text || cols(text, strlen(text)) <= width) {
      *did = (taken){set, drop};
      free(core);
      return text;
    }
    free(text);
  }
  /* Still too wide: a loop's 'loop at X' reads 'loop X' (the label, typed back, is
   * the same item); then the reduced core cut in its middle, with the other tags
   * when they leave it 12 columns, else alone. */
  *did = (taken){set, drop};
  int shrink = gone ? 2 : set & S_MODULE ? mod : 0;
  size_t clen = strlen(core);
  if (clen > 8 && !strncmp(core, "loop at ", 8)) {
    memmove(core + 5, core + 8, clen - 8 + 1);
    clen -= 3;
    text = assemble(L, core, clen, shrink, width);
    if (!text || cols(text, strlen(text)) <= width) {
      free(core);
      return text;
    }
    free(text);
    text = NULL;
  }
  char *tags = assemble(L, "", 0, shrink, 0);
  int tw = tags ? cols(tags, strlen(tags)) : 0;
  /* a name too wide even without its '(...)': both ends of the name, not '...)' */
  if (clen > 5 && !strcmp(core + clen - 5, "(...)") && cols(core, clen - 5) > width - (tags && width - tw >= 12 ? tw : 0))
    clen -= 5;
  if (tags && width - tw >= 12) {
    char *c = cut_text(core, clen, width - tw, cut);
    text = c ? malloc(strlen(c) + strlen(tags) + 1) : NULL;
    if (text) memcpy(text, c, strlen(c)), memcpy(text + strlen(c), tags, strlen(tags) + 1);
    free(c);
  } else if (tags) { /* no room for the tags: the name with those that tell
                       * functions apart (clone, call site, location), not the module nor '[inlined]' */
    char *all = malloc(clen + L->n + 1);
    if (all) {
      size_t k = clen;
      memcpy(all, core, clen);
      for (size_t i = L->core; i < L->n;) {
        size_t gap = L->modlen && i == L->mod ? L->modlen : L->inl && i == L->inl ? 10 : 0;
        if (gap) i += gap;
        else all[k++] = L->s[i++];
      }
      text = cut_text(all, k, width, cut);
      free(all);
    }
  }
  free(tags);
  free(core);
  return text;
}

char *cct_shorten(const char *s, int width) {
  label L;
  taken did;
  split(&L, s);
  return fit(&L, width, 0, L.quals, CUT_MIDDLE, &did);
}

/* ------------------------------------------------------------- many labels */

/* The first step that makes the cores of a and b alike when both are
 * reduced by the steps either took (da, db), or 0 when they stay apart (the
 * middle cut alone may have made them alike: nothing to leave out then);
 * for S_QUALIFIERS *qdrop gets the qualifiers dropped that made them alike. */
static unsigned culprit(const label *a, taken da, const label *b, taken db, int *qdrop) {
  char *x = malloc(a->core + 1), *y = malloc(b->core + 1);
  unsigned found = 0, set = 0, allowed = da.set | db.set;
  int maxq = da.drop > db.drop ? da.drop : db.drop;
  for (int stage = 0; x && y && !found && stage < 2 + maxq; stage++) {
    unsigned step = stage == 0 ? S_PARAMS : stage == 1 ? S_TEMPLATES : S_QUALIFIERS;
    if (!(step & allowed)) continue;
    set |= step;
    int drop = stage >= 2 ? stage - 1 : 0;
    reduce(a->s, a->core, set, drop < a->quals ? drop : a->quals, x, NULL, NULL);
    reduce(b->s, b->core, set, drop < b->quals ? drop : b->quals, y, NULL, NULL);
    if (!strcmp(x, y)) found = step, *qdrop = drop;
  }
  free(x);
  free(y);
  return found;
}

/* A label with its base (its core with every step taken), for sorting. */
typedef struct entry {
  const char *key;
  size_t row;
} entry;

static int cmp_entry(const void *a, const void *b) {
  const entry *x = a, *y = b;
  int c = strcmp(x->key, y->key);
  return c ? c : (x->row > y->row) - (x->row < y->row);
}

/* Whether labels a and b have different cores (or, with one core, different modules). */
static int differ(const label *a, const label *b, int *by_module) {
  *by_module = 0;
  if (a->core != b->core || memcmp(a->s, b->s, a->core)) return 1;
  if (a->modlen != b->modlen || memcmp(a->s + a->mod, b->s + b->mod, a->modlen)) return *by_module = 1;
  return 0;
}

/* Whether labels a and b name one function (they differ at most by '[inlined]'). */
static int same_function(const label *a, const label *b) {
  size_t i = 0, j = 0;
  for (;;) {
    if (a->inl && i == a->inl) i += 10;
    if (b->inl && j == b->inl) j += 10;
    if (i >= a->n || j >= b->n) return i >= a->n && j >= b->n;
    if (a->s[i++] != b->s[j++]) return 0;
  }
}

/* Up to this many labels with one base are compared pair by pair (more: each with the first). */
enum { PAIRWISE = 32 };

int cct_shorten_all(const char *const *names, const int *widths, size_t n, char **out) {
  label *L = calloc(n + 1, sizeof *L);
  unsigned *skip = calloc(n + 1, sizeof *skip), *more = calloc(n + 1, sizeof *more);
  taken *did = calloc(n + 1, sizeof *did);
  int *maxdrop = calloc(n + 1, sizeof *maxdrop), *nextdrop = calloc(n + 1, sizeof *nextdrop);
  int *cut = calloc(n + 1, sizeof *cut), *nextcut = calloc(n + 1, sizeof *nextcut);
  char **base = calloc(n + 1, sizeof *base);
  entry *e = calloc(n + 1, sizeof *e), *t = calloc(n + 1, sizeof *t);
  unsigned char *redo = malloc(n + 1);
  int rc = L && skip && more && did && maxdrop && nextdrop && cut && nextcut && base && e && t && redo ? 0 : -1;
  for (size_t i = 0; i < n; i++) out[i] = NULL;
  for (size_t i = 0; !rc && i < n; i++) {
    split(&L[i], names[i]);
    maxdrop[i] = nextdrop[i] = L[i].quals;
    if (!(base[i] = malloc(L[i].core + 1))) rc = -1;
    else reduce(L[i].s, L[i].core, S_ALL, L[i].quals, base[i], NULL, NULL);
    e[i] = (entry){base[i], i};
  }
  if (!rc) {
    qsort(e, n, sizeof *e, cmp_entry);
    memset(redo, 1, n + 1);
  }
  for (int round = 0; !rc && round < 8; round++) { /* each round leaves out a step or moves a cut */
    for (size_t i = 0; !rc && i < n; i++) {
      if (!redo[i]) continue;
      free(out[i]);
      if (!(out[i] = fit(&L[i], widths[i], skip[i], maxdrop[i], cut[i], &did[i]))) rc = -1;
      redo[i] = 0;
    }
    int changed = 0;
    for (size_t a = 0; !rc && a < n;) {
      size_t b = a + 1;
      while (b < n && !strcmp(e[b].key, e[a].key)) b++;
      for (size_t j = a; j < b && (j == a || b - a <= PAIRWISE); j++)
        for (size_t k = j + 1; k < b; k++) {
          size_t x = e[j].row, y = e[k].row;
          int by_module;
          if (!differ(&L[x], &L[y], &by_module)) continue;
          int qd = 0;
          unsigned step =
              by_module ? (strcmp(out[x], out[y]) ? 0 : S_MODULE) : culprit(&L[x], did[x], &L[y], did[y], &qd);
          if (step == S_QUALIFIERS) { /* as many qualifiers as keep them apart stay */
            for (int z = 0; z < 2; z++) {
              size_t w = z ? y : x;
              if (maxdrop[w] <= qd - 1) continue;
              if (nextdrop[w] > qd - 1) nextdrop[w] = qd - 1;
              redo[w] = 1, changed = 1;
            }
            continue;
          }
          if (!step && !by_module && !strcmp(out[x], out[y])) { /* alike by the cut alone: cut elsewhere */
            for (int z = 0; z < 2; z++) {
              size_t w = z ? y : x;
              if (cut[w] < CUT_KEEP_END && nextcut[w] <= cut[w]) nextcut[w] = cut[w] + 1, redo[w] = 1, changed = 1;
            }
          }
          if (!step) continue;
          if (!(skip[x] & step)) more[x] |= step, redo[x] = 1, changed = 1;
          if (!(skip[y] & step)) more[y] |= step, redo[y] = 1, changed = 1;
        }
      a = b;
    }
    /* texts alike across bases (the middle cut of 'gomp_team_end' and of
     * 'gomp_team_barrier_wait_end'): cut them elsewhere */
    for (size_t i = 0; !rc && i < n; i++) t[i] = (entry){out[i], i};
    if (!rc) qsort(t, n, sizeof *t, cmp_entry);
    for (size_t a = 0; !rc && a + 1 < n; a++) {
      size_t x = t[a].row, y = t[a + 1].row;
      if (redo[x] || redo[y] || strcmp(out[x], out[y]) || same_function(&L[x], &L[y])) continue; /* a step goes first */
      for (int z = 0; z < 2; z++) {
        size_t w = z ? y : x;
        if (cut[w] < CUT_KEEP_END && nextcut[w] <= cut[w]) nextcut[w] = cut[w] + 1, redo[w] = 1, changed = 1;
      }
    }
    for (size_t i = 0; i < n; i++) /* the round's culprits all saw the same steps */
      skip[i] |= more[i], more[i] = 0, maxdrop[i] = nextdrop[i] < maxdrop[i] ? nextdrop[i] : maxdrop[i],
      cut[i] = nextcut[i] > cut[i] ? nextcut[i] : cut[i];
    if (!changed) break;
  }
  if (rc)
    for (size_t i = 0; i < n; i++) free(out[i]), out[i] = NULL;
  for (size_t i = 0; base && i < n; i++) free(base[i]);
  free(base);
  free(redo);
  free(did);
  free(maxdrop);
  free(cut);
  free(nextcut);
  free(nextdrop);
  free(e);
  free(t);
  free(skip);
  free(more);
  free(L);
  return rc;
}
