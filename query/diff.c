/* diff.c: one view of two runs, or of two time windows of one run, merged by
 * path of names (include/cct_diff.h).
 * A client of the public API only: both views come from the view core
 * (cct_view_compute) with the caller's spec (the view shown: its center,
 * metric, columns, granularity, filters, window) and a zero threshold, the
 * other run's with the center re-resolved there (cct_center_rerun), the other
 * window's with the same center over that window (metric 'trace (sec)'); the
 * session's settings are not read, and not changed.  The run titles and metric
 * units come from the public SQL views 'runs' and 'metrics'.
 *
 * The merge walks both trees from the top: the children of two matched rows
 * are grouped by name (placeholder roots canonicalized, hpcprof's ' [module]'
 * decoration dropped: prof2 writes 'PMPI_Send' where v4 writes 'PMPI_Send
 * [libmpi.so.12.1.1]'), and within a group paired only when their decorations'
 * modules agree but for the version or one side has none (SPEC section 6),
 * the most alike first: the same function identity (module but for its
 * version, file, line), call site, file, line; the pairs sorted (by the larger
 * the view's sort key in either run, name, or |change|) and emitted in pre-order with their
 * subtrees; an unmatched row's whole subtree is added or removed. */
#include "cct_diff.h"
#include "cct_kinds.h"
#include "cct_schema.h"
#include "cct_util.h"
#include "cct_sqlite.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NONE SIZE_MAX

/* Children lists of a view's rows; index nrows is a virtual root holding the
 * top-level rows. */
typedef struct tree {
  const cct_view *v;
  size_t n;
  size_t *first, *next; /* first child, next sibling (NONE at the end) */
  char **key;           /* per row: its name as matched (match_key) */
} tree;

/* A matched pair (a in the base view, b in the other; NONE when absent) with its sort keys. */
typedef struct pair {
  size_t a, b;
  double k1, k2;     /* descending */
  const char *label; /* ascending on ties */
} pair;

/* One emitted row before values are filled in. */
typedef struct orow {
  size_t a, b;
  int depth;
} orow;

/* Merge state. */
typedef struct merge {
  tree ta, tb;
  const cct_view *va, *vb;  /* vb NULL when the other run has no view (center not found) */
  int *om;                  /* per base metric: column in vb, -1 when none */
  double *scale;            /* per base metric */
  int flat, sort_change, sort, flat_n; /* sort: CCT_SORT_* */
  double threshold;
  orow *out;
  size_t nout, cap;
} merge;

/* Owned data of a cct_diff. */
typedef struct priv {
  cct_view *base, *other;
  double *vals;
  char *title, *other_title, *note;
  char **units, **other_units;
  int *om;
  cct_window windows[2]; /* a diff of two windows */
} priv;

/* ------------------------------------------------------------- helpers */

static char *dupstr(const char *s) { return s ? strdup(s) : NULL; }

/* Text of the first column of the first row of listing.sql's statement called stmt, bound to
 * (run, name), into *out (NULL when none).  Returns CCT_OK or an error (damaged archive). */
static int query_text(sqlite3 *db, const char *stmt, int run, const char *name, char **out, cct_err *err) {
  sqlite3_stmt *st = NULL;
  *out = NULL;
  int rc = cct_schema_prepare_named(db, cct_sql_listing, stmt, &st, err);
  if (rc) return rc;
  sqlite3_bind_int(st, 1, run);
  if (name) sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
  rc = cct_step(st, err);
  if (rc == CCT_STEP_ROW) {
    rc = CCT_OK;
    if (sqlite3_column_type(st, 0) != SQLITE_NULL && !(*out = dupstr((const char *)sqlite3_column_text(st, 0))))
      rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
  }
  sqlite3_finalize(st);
  return rc;
}

/* Seconds per unit for time units, 0 for anything else. */
static double unit_seconds(const char *u) {
  static const struct {
    const char *name;
    double s;
  } units[] = {{"s", 1},       {"sec", 1},       {"secs", 1},   {"second", 1},  {"seconds", 1}, {"ms", 1e-3},
               {"msec", 1e-3}, {"millisec", 1e-3}, {"us", 1e-6}, {"usec", 1e-6}, {"microsec", 1e-6},
               {"ns", 1e-9},   {"nsec", 1e-9},   {"nanosec", 1e-9}};
  for (size_t i = 0; u && i < sizeof units / sizeof units[0]; i++)
    if (!strcasecmp(u, units[i].name)) return units[i].s;
  return 0;
}

/* Length of name without a trailing ' (unit)'. */
static size_t base_len(const char *name) {
  size_t n = strlen(name);
  if (n && name[n - 1] == ')') {
    const char *o = strrchr(name, '(');
    if (o && o > name && o[-1] == ' ') return (size_t)(o - name - 1);
  }
  return n;
}

/* 1 when metric names a and b are the same metric (exact, or same base name). */
static int same_metric(const char *a, const char *b) {
  if (!a || !b) return 0;
  if (!strcmp(a, b)) return 1;
  size_t la = base_len(a), lb = base_len(b);
  return la == lb && !strncasecmp(a, b, la);
}

/* Where hpcprof's ' [module]' decoration of name starts (the name's end when none). */
static size_t undecorated_len(const char *name) {
  size_t n = strlen(name);
  const char *o = n && name[n - 1] == ']' ? strrchr(name, '[') : NULL;
  return o && o > name + 1 && o[-1] == ' ' && o + 2 < name + n ? (size_t)(o - 1 - name) : n;
}

/* The name a row matches by: without hpcprof's ' [module]' decoration, a loop's
 * without its address (' (+0x1a2b)': another build, or a database without loop
 * addresses, has the loop at other addresses or none; likeness prefers the same one),
 * and the placeholder roots of the formats as one ('<program root>' is 'main thread').
 * Returns a malloc'ed string, or NULL when out of memory. */
static char *match_key(const char *name) {
  if (!name) name = "";
  if (!strcmp(name, "<program root>")) name = "main thread";
  size_t n = undecorated_len(name);
  const char *a = !strncmp(name, "loop at ", 8) && n && name[n - 1] == ')' ? strstr(name, " (+0x") : NULL;
  if (a) n = (size_t)(a - name);
  char *k = malloc(n + 1);
  if (k) memcpy(k, name, n), k[n] = 0;
  return k;
}

/* A module's name without its version, into b: the base name up to '.so'
 * ('libmpi' of '/usr/lib/libmpi.so.12.1.1'), then without a '-1.2.3' tail
 * ('libc' of 'libc-2.17.so'); b of n bytes.  Returns b, or NULL for none. */
static const char *module_stem(const char *path, size_t len, char *b, size_t n) {
  if (!path || !len || !n) return NULL;
  const char *base = path;
  for (size_t i = 0; i < len; i++)
    if (path[i] == '/') base = path + i + 1;
  size_t k = (size_t)(path + len - base);
  for (size_t i = 0; i + 3 <= k; i++)
    if (!strncmp(base + i, ".so", 3) && (i + 3 == k || base[i + 3] == '.')) k = i;
  size_t d = k;
  while (d > 0 && ((base[d - 1] >= '0' && base[d - 1] <= '9') || base[d - 1] == '.')) d--;
  if (d > 0 && d < k && base[d - 1] == '-') k = d - 1;
  if (k >= n) k = n - 1;
  memcpy(b, base, k);
  b[k] = 0;
  return k ? b : NULL;
}

/* The module of name's ' [module]' decoration without its version, into b; NULL when none. */
static const char *decoration_module(const char *name, char *b, size_t n) {
  size_t u = name ? undecorated_len(name) : 0, len = name ? strlen(name) : 0;
  return u + 3 < len ? module_stem(name + u + 2, len - u - 3, b, n) : NULL;
}

/* Whether two rows of one match key may be one function: their decorations
 * name the same module but for its version, or one has none. */
static int decorations_agree(const cct_row *a, const cct_row *b) {
  char x[256], y[256];
  const char *ma = decoration_module(a->name, x, sizeof x), *mb = decoration_module(b->name, y, sizeof y);
  return !ma || !mb || !strcmp(ma, mb);
}

/* y rounded to 13 significant digits. */
static double round13(double y) {
  if (!isfinite(y) || y == 0) return y;
  double e = pow(10, 13 - ceil(log10(fabs(y))));
  return isfinite(e) && e > 0 && isfinite(y * e) ? round(y * e) / e : y;
}

/* x converted by scale, rounded to 13 significant digits when scaled, so that
 * 0.28182 sec reads 281820 usec rather than 281819.99999999994. */
static double convert(double x, double scale) { return scale == 1 ? x : round13(x * scale); }

static int same_str(const char *a, const char *b) { return a ? b && !strcmp(a, b) : !b; }

static int tree_build(tree *t, const cct_view *v) {
  memset(t, 0, sizeof *t);
  t->v = v;
  t->n = v ? v->nrows : 0;
  int maxd = 0;
  for (size_t i = 0; i < t->n; i++)
    if (v->rows[i].depth > maxd) maxd = v->rows[i].depth;
  t->first = malloc((t->n + 1) * sizeof *t->first);
  t->next = malloc((t->n + 1) * sizeof *t->next);
  size_t *stack = malloc(((size_t)maxd + 2) * sizeof *stack), *last = malloc((t->n + 1) * sizeof *last);
  if (!t->first || !t->next || !stack || !last) {
    free(stack);
    free(last);
    return -1;
  }
  for (size_t i = 0; i <= t->n; i++) t->first[i] = t->next[i] = last[i] = NONE;
  t->key = calloc(t->n + 1, sizeof *t->key);
  for (size_t i = 0; t->key && i < t->n; i++)
    if (!(t->key[i] = match_key(v->rows[i].name))) break;
  if (!t->key || (t->n && !t->key[t->n - 1])) {
    free(stack);
    free(last);
    return -1;
  }
  int top = -1; /* stack[0..top]: the open rows at depths 0..top */
  for (size_t i = 0; i < t->n; i++) {
    int d = v->rows[i].depth < 0 ? 0 : v->rows[i].depth;
    if (d > top + 1) d = top + 1; /* a skipped level hangs under the deepest open row */
    size_t parent = d == 0 ? t->n : stack[d - 1];
    if (last[parent] == NONE) t->first[parent] = i;
    else t->next[last[parent]] = i;
    last[parent] = i;
    stack[d] = i;
    top = d;
  }
  free(stack);
  free(last);
  return 0;
}

static void tree_free(tree *t) {
  free(t->first);
  free(t->next);
  for (size_t i = 0; t->key && i < t->n; i++) free(t->key[i]);
  free(t->key);
}

/* Display-metric inclusive of base row a / other row b (b in base units); 0 when absent. */
static double incl_a(const merge *m, size_t a) { return a == NONE ? 0 : m->va->rows[a].inclusive[0]; }
static double incl_b(const merge *m, size_t b) {
  if (b == NONE || m->om[0] < 0) return 0;
  return convert(m->vb->rows[b].inclusive[m->om[0]], m->scale[0]);
}

/* The view's sort key (CCT_SORT_EXCLUSIVE, _OCCURRENCES) of row i of v, metric column j
 * scaled by scale; -inf when absent, so that a present row sorts first. */
static double sort_key(int sort, const cct_view *v, size_t i, int j, double scale) {
  if (i == NONE || j < 0) return -HUGE_VAL;
  if (sort == CCT_SORT_OCCURRENCES) return (double)v->rows[i].occurrences;
  return convert(v->rows[i].exclusive[j], scale);
}

static double key_value(double d) { return isfinite(d) ? d : -HUGE_VAL; }

static int cmp_pair(const void *x, const void *y) {
  const pair *a = x, *b = y;
  if (a->k1 != b->k1) return a->k1 > b->k1 ? -1 : 1;
  if (a->k2 != b->k2) return a->k2 > b->k2 ? -1 : 1;
  int c = strcmp(a->label, b->label);
  if (c) return c;
  return (a->a == NONE) - (b->a == NONE);
}

/* A child with its sort key (no sort context outside the array). */
typedef struct ckey {
  const char *name; /* canonical name */
  size_t row;
} ckey;

/* Canonical name, then row index (stable). */
static int cmp_child(const void *x, const void *y) {
  const ckey *a = x, *b = y;
  int c = strcmp(a->name, b->name);
  if (c) return c;
  return a->row < b->row ? -1 : a->row > b->row;
}

/* Children of p in t as an array (sorted by name when sorted is set); *n set. */
static size_t *children(const tree *t, size_t p, int sorted, size_t *n) {
  size_t k = 0;
  *n = 0;
  if (p == NONE || !t->v) return NULL;
  for (size_t c = t->first[p]; c != NONE; c = t->next[c]) k++;
  size_t *a = malloc((k + 1) * sizeof *a);
  if (!a) return NULL;
  k = 0;
  for (size_t c = t->first[p]; c != NONE; c = t->next[c]) a[k++] = c;
  if (sorted && k > 1) {
    ckey *keys = malloc(k * sizeof *keys);
    if (!keys) {
      free(a);
      return NULL;
    }
    for (size_t i = 0; i < k; i++) keys[i] = (ckey){t->key[a[i]], a[i]};
    qsort(keys, k, sizeof *keys, cmp_child);
    for (size_t i = 0; i < k; i++) a[i] = keys[i].row;
    free(keys);
  }
  *n = k;
  return a;
}

/* How alike two rows of one match key are: the same loop address, the same function
 * identity where both rows have it (module but for its version, file, line: SPEC
 * section 5), then call site, file, line. */
static int likeness(const cct_row *a, const cct_row *b) {
  char x[256], y[256];
  const char *ma = module_stem(a->module, a->module ? strlen(a->module) : 0, x, sizeof x);
  const char *mb = module_stem(b->module, b->module ? strlen(b->module) : 0, y, sizeof y);
  int file = same_str(cct_basename(a->file), cct_basename(b->file)), line = a->line == b->line;
  int identity = ma && mb && a->file && b->file && !strcmp(ma, mb) && file && line;
  int address = a->kind == CCT_ROW_LOOP && same_str(a->name, b->name); /* the same loop address */
  return 16 * address + 8 * identity + 4 * same_str(a->callsite, b->callsite) + 2 * file + line;
}

static int emit(merge *m, size_t a, size_t b, int depth) {
  if (CCT_GROW(m->out, m->nout + 1, m->cap)) return -1;
  m->out[m->nout++] = (orow){a, b, depth};
  return 0;
}

/* 1 when the pair is at or above the threshold in either run. */
static int visible(const merge *m, size_t a, size_t b) {
  if (!(m->threshold > 0)) return 1;
  double ta = m->va->total ? m->va->total[0] : 0;
  double tb = m->vb && m->om[0] >= 0 && m->vb->total ? convert(m->vb->total[m->om[0]], m->scale[0]) : 0;
  if (a != NONE && ta > 0 && fabs(incl_a(m, a)) >= m->threshold * ta) return 1;
  if (b != NONE && tb > 0 && fabs(incl_b(m, b)) >= m->threshold * tb) return 1;
  return 0;
}

/* Merges the children of base row pa and other row pb (either NONE), at depth. */
static int merge_level(merge *m, size_t pa, size_t pb, int depth, int top) {
  size_t na = 0, nb = 0;
  size_t *ca = children(&m->ta, pa, !top, &na), *cb = children(&m->tb, pb, !top, &nb);
  pair *pairs = malloc((na + nb + 1) * sizeof *pairs);
  char *used = calloc(nb + 1, 1);
  size_t np = 0;
  int rc = -1;
  if ((pa != NONE && m->ta.first[pa] != NONE && !ca) || (pb != NONE && m->tb.v && m->tb.first[pb] != NONE && !cb) ||
      !pairs || !used)
    goto out;
  if (top) { /* the centers (or '<program>') match whatever their labels */
    size_t k = na > nb ? na : nb;
    for (size_t i = 0; i < k; i++) {
      pairs[np++] = (pair){i < na ? ca[i] : NONE, i < nb ? cb[i] : NONE, 0, 0, ""};
      if (i < nb) used[i] = 1;
    }
  } else {
    size_t j0 = 0;
    for (size_t i = 0; i < na;) {
      const char *name = m->ta.key[ca[i]];
      size_t i1 = i;
      while (i1 < na && !strcmp(m->ta.key[ca[i1]], name)) i1++;
      while (j0 < nb && strcmp(m->tb.key[cb[j0]], name) < 0) j0++;
      size_t j1 = j0;
      while (j1 < nb && !strcmp(m->tb.key[cb[j1]], name)) j1++;
      for (size_t x = i; x < i1; x++) { /* greedy: the most alike unused sibling of that name */
        size_t best = NONE;
        int bs = -1;
        for (size_t y = j0; y < j1; y++) {
          if (used[y] || !decorations_agree(&m->va->rows[ca[x]], &m->vb->rows[cb[y]])) continue;
          int s = likeness(&m->va->rows[ca[x]], &m->vb->rows[cb[y]]);
          if (s > bs) bs = s, best = y;
        }
        if (best != NONE) used[best] = 1;
        pairs[np++] = (pair){ca[x], best == NONE ? NONE : cb[best], 0, 0, ""};
      }
      i = i1;
      j0 = j1;
    }
    for (size_t y = 0; y < nb; y++)
      if (!used[y]) pairs[np++] = (pair){NONE, cb[y], 0, 0, ""};
  }
  for (size_t k = 0; k < np; k++) {
    pair *p = &pairs[k];
    double x = incl_a(m, p->a), y = incl_b(m, p->b);
    double big = fabs(x) > fabs(y) ? x : y;
    p->label = p->a != NONE ? m->va->rows[p->a].name : m->vb->rows[p->b].name;
    if (!p->label) p->label = "";
    if (m->sort_change) {
      p->k1 = key_value(fabs(y - x)), p->k2 = key_value(big);
    } else if (m->sort == CCT_SORT_EXCLUSIVE || m->sort == CCT_SORT_OCCURRENCES) {
      double ka = sort_key(m->sort, m->va, p->a, 0, 1), kb = m->vb ? sort_key(m->sort, m->vb, p->b, m->om[0], m->scale[0]) : -HUGE_VAL;
      p->k1 = key_value(ka > kb ? ka : kb), p->k2 = key_value(big);
    } else if (m->sort == CCT_SORT_NAME) {
      p->k1 = p->k2 = 0; /* by label */
    } else {
      p->k1 = key_value(big), p->k2 = 0;
    }
  }
  if (!top && np > 1) qsort(pairs, np, sizeof *pairs, cmp_pair);
  size_t shown = 0;
  for (size_t k = 0; k < np; k++) {
    pair *p = &pairs[k];
    if (!top && !visible(m, p->a, p->b)) continue;
    if (m->flat && depth == 0 && m->flat_n > 0 && shown >= (size_t)m->flat_n) break;
    shown++;
    if (emit(m, p->a, p->b, depth) || merge_level(m, p->a, p->b, depth + 1, 0)) goto out;
  }
  rc = 0;
out:
  free(ca);
  free(cb);
  free(pairs);
  free(used);
  return rc;
}

/* The core's spec of the diff's base view: the caller's, with every row (no threshold, row
 * limit or zero-row elision: the merge applies them to both runs) and the csv metrics. */
static void view_spec(const cct_query *q, const cct_diff_spec *spec, cct_view_spec *vs) {
  *vs = spec->view;
  if (!vs->run) vs->run = cct_query_run(q);
  vs->threshold = 0;
  vs->flat_n = 0;
  vs->drop_zero = 0;
  vs->only_display = 0;
}

/* Appends a sentence (fmt: SQLite's printf, numbers in the C locale) to *note
 * (sentences separated by '; ').  Out of memory leaves *note as it was. */
static void add_note(char **note, const char *fmt, ...) {
  sqlite3_str *s = sqlite3_str_new(NULL);
  if (*note) sqlite3_str_appendf(s, "%s; ", *note);
  va_list ap;
  va_start(ap, fmt);
  sqlite3_str_vappendf(s, fmt, ap);
  va_end(ap);
  char *text = cct_str_take(s);
  if (!text) return;
  free(*note);
  *note = text;
}

/* The other run's view: the base spec with the center re-resolved item by
 * item there (items matching nothing are named in *note; *found is 0 when the
 * center has items and none matches) and the display metric by name, else by
 * base name without the unit. */
static int other_view(cct_query *q, const cct_view_spec *base, int other_run, cct_view **out, char **note, int *found,
                      cct_err *err) {
  cct_view_spec vs = *base;
  cct_center *c = NULL;
  char *missing = NULL;
  *out = NULL;
  vs.run = other_run;
  int rc = cct_center_rerun(q, base->center, other_run, &c, &missing, err);
  if (rc) return rc;
  if (missing) {
    add_note(note, "%s match%s nothing in run %d", missing, strchr(missing, ',') ? "" : "es", other_run);
    free(missing);
  }
  *found = cct_center_size(base->center) == 0 || cct_center_size(c) > 0;
  vs.center = c;
  if (*found) {
    cct_err e = CCT_ERR_INIT;
    rc = cct_view_compute(q, &vs, out, &e);
    if (rc == CCT_ENOTFOUND && base->metric) { /* no metric of that name: the same base name? */
      char name[512];
      snprintf(name, sizeof name, "%.*s", (int)base_len(base->metric), base->metric);
      vs.metric = name;
      cct_err e2 = CCT_ERR_INIT;
      rc = cct_view_compute(q, &vs, out, &e2);
      if (rc || !(*out)->nmetrics || !same_metric(base->metric, (*out)->metrics[0])) {
        cct_view_free(*out);
        *out = NULL;
        rc = cct_err_set(err, CCT_ENOTFOUND, "run %d has no metric '%s' to compare with", other_run, base->metric);
      }
    } else if (rc) {
      cct_err_set(err, rc, "%s", e.msg);
    }
  }
  cct_center_free(c);
  return rc;
}

/* Two windows of the base run: the base spec *vs (changed to the metric
 * 'trace (sec)') over its own window, the other view (into p) over w. */
static int window_views(cct_query *q, const cct_window *w, cct_view_spec *vs, priv *p, cct_err *err) {
  cct_traces_info info;
  int rc = cct_query_traces(q, vs->run, &info, err);
  if (rc) return rc;
  if (!info.has) return cct_err_set(err, CCT_ENOTFOUND, "run %d has no traces: no window to compare", vs->run);
  p->windows[0] = vs->window ? *vs->window : (cct_window){0, info.span};
  p->windows[1] = *w;
  vs->metric = CCT_TRACE_METRIC; /* the other metrics are the whole run's in both */
  cct_view_spec other = *vs;
  other.window = &p->windows[1];
  return cct_view_compute(q, &other, &p->other, err);
}

/* ----------------------------------------------------------------- api */

void cct_diff_free(cct_diff *d) {
  if (!d) return;
  priv *p = d->priv;
  if (p) {
    cct_view_free(p->base);
    cct_view_free(p->other);
    free(p->vals);
    free(p->title);
    free(p->other_title);
    free(p->note);
    for (size_t m = 0; m < d->nmetrics; m++) {
      if (p->units) free(p->units[m]);
      if (p->other_units) free(p->other_units[m]);
    }
    free(p->units);
    free(p->other_units);
    free(p->om);
    free(p);
  }
  free(d->other_metrics);
  free(d->scale);
  free(d->total);
  free(d->other_total);
  free(d->rows);
  free(d);
}

int cct_view_diff(cct_query *q, const cct_diff_spec *spec, int other_run, cct_diff **out, cct_err *err) {
  *out = NULL;
  const cct_view_spec *sv = spec ? &spec->view : NULL;
  if (!sv || sv->view < CCT_VIEW_TOPDOWN || sv->view > CCT_VIEW_FLAT || sv->depth < 0 || sv->flat_n < 0)
    return cct_err_set(err, CCT_EUSAGE, "bad view for a diff");
  if (sv->view == CCT_VIEW_BOTTOMUP && cct_center_size(sv->center) == 0)
    return cct_err_set(err, CCT_EUSAGE, "no center: use 'center NAME' or 'flat'");
  sqlite3 *db = cct_query_db(q);
  cct_diff *d = calloc(1, sizeof *d);
  priv *p = calloc(1, sizeof *p);
  merge m;
  memset(&m, 0, sizeof m);
  int rc = CCT_ENOMEM, found = 1;
  if (!d || !p) {
    free(d);
    free(p);
    return cct_err_set(err, CCT_ENOMEM, "out of memory");
  }
  d->priv = p;
  /* Both views from the core, with the spec's settings and a zero threshold (the spec's
   * own threshold hides merged rows below): nothing in q changes. */
  cct_view_spec vs;
  view_spec(q, spec, &vs);
  if (spec->window) {
    rc = window_views(q, spec->window, &vs, p, err);
    other_run = vs.run;
    d->windows = p->windows;
  } else {
    rc = other_view(q, &vs, other_run, &p->other, &p->note, &found, err);
  }
  if (!rc) rc = cct_view_compute(q, &vs, &p->base, err);
  if (rc) goto fail;
  const cct_view *va = p->base, *vb = p->other;
  size_t nm = va->nmetrics;
  rc = CCT_ENOMEM;
  d->nmetrics = nm;
  d->other_metrics = calloc(nm + 1, sizeof *d->other_metrics);
  d->scale = calloc(nm + 1, sizeof *d->scale);
  d->total = calloc(nm + 1, sizeof *d->total);
  d->other_total = calloc(nm + 1, sizeof *d->other_total);
  p->units = calloc(nm + 1, sizeof *p->units);
  p->other_units = calloc(nm + 1, sizeof *p->other_units);
  p->om = calloc(nm + 1, sizeof *p->om);
  if (!d->other_metrics || !d->scale || !d->total || !d->other_total || !p->units || !p->other_units || !p->om)
    goto nomem;
  for (size_t k = 0; k < nm; k++) {
    p->om[k] = -1;
    d->scale[k] = 1;
    d->total[k] = va->total ? va->total[k] : NAN;
    d->other_total[k] = NAN;
    if ((rc = query_text(db, "metric_unit", va->run, va->metrics[k], &p->units[k], err))) goto fail;
    for (size_t j = 0; vb && j < vb->nmetrics && p->om[k] < 0; j++)
      if (!strcmp(va->metrics[k], vb->metrics[j])) p->om[k] = (int)j;
    for (size_t j = 0; vb && j < vb->nmetrics && p->om[k] < 0; j++)
      if (same_metric(va->metrics[k], vb->metrics[j])) p->om[k] = (int)j;
    if (p->om[k] < 0) continue;
    d->other_metrics[k] = vb->metrics[p->om[k]];
    if ((rc = query_text(db, "metric_unit", vb->run, vb->metrics[p->om[k]], &p->other_units[k], err))) goto fail;
    double su = unit_seconds(p->units[k]), so = unit_seconds(p->other_units[k]);
    if (su > 0 && so > 0 && su != so) {
      d->scale[k] = round13(so / su);
      add_note(&p->note, "run %d's '%s' converted to %s (x%g)", other_run, d->other_metrics[k], p->units[k],
               d->scale[k]);
    }
    d->other_total[k] = vb->total ? convert(vb->total[p->om[k]], d->scale[k]) : NAN;
  }
  if (!vb && nm) d->other_total[0] = NAN;
  /* Merge. */
  m.va = va;
  m.vb = vb;
  m.om = p->om;
  m.scale = d->scale;
  m.flat = sv->view == CCT_VIEW_FLAT;
  m.flat_n = sv->flat_n;
  m.sort_change = (spec->flags & CCT_DIFF_SORT_CHANGE) != 0;
  m.sort = sv->sort;
  m.threshold = sv->threshold;
  if (tree_build(&m.ta, va) || tree_build(&m.tb, vb)) goto nomem;
  if (merge_level(&m, m.ta.n, vb ? m.tb.n : NONE, 0, !m.flat)) goto nomem;
  d->rows = calloc(m.nout + 1, sizeof *d->rows);
  p->vals = calloc(m.nout * nm * 7 + 1, sizeof *p->vals);
  if (!d->rows || !p->vals) goto nomem;
  for (size_t i = 0; i < m.nout; i++) {
    const orow *o = &m.out[i];
    cct_diff_row *r = &d->rows[i];
    double *v = p->vals + i * nm * 7;
    r->status = o->a == NONE ? CCT_DIFF_ADDED : o->b == NONE ? CCT_DIFF_REMOVED : CCT_DIFF_BOTH;
    r->depth = o->depth;
    r->row = o->a != NONE ? &va->rows[o->a] : &vb->rows[o->b];
    r->other = o->b != NONE ? &vb->rows[o->b] : NULL;
    r->handle = o->a != NONE ? va->rows[o->a].handle : 0;
    r->other_handle = o->b != NONE ? vb->rows[o->b].handle : 0;
    r->inclusive = v, r->exclusive = v + nm, r->other_inclusive = v + 2 * nm, r->other_exclusive = v + 3 * nm;
    r->change = v + 4 * nm, r->exclusive_change = v + 5 * nm, r->relative = v + 6 * nm;
    for (size_t k = 0; k < nm; k++) {
      int j = p->om[k];
      r->inclusive[k] = o->a != NONE ? va->rows[o->a].inclusive[k] : NAN;
      r->exclusive[k] = o->a != NONE ? va->rows[o->a].exclusive[k] : NAN;
      r->other_inclusive[k] = o->b != NONE && j >= 0 ? convert(vb->rows[o->b].inclusive[j], d->scale[k]) : NAN;
      r->other_exclusive[k] = o->b != NONE && j >= 0 ? convert(vb->rows[o->b].exclusive[j], d->scale[k]) : NAN;
      if (j < 0 && vb) {
        r->change[k] = r->exclusive_change[k] = NAN;
      } else {
        r->change[k] = (o->b != NONE ? r->other_inclusive[k] : 0) - (o->a != NONE ? r->inclusive[k] : 0);
        r->exclusive_change[k] = (o->b != NONE ? r->other_exclusive[k] : 0) - (o->a != NONE ? r->exclusive[k] : 0);
      }
      double base = o->a != NONE ? r->inclusive[k] : 0;
      r->relative[k] = base != 0 && isfinite(r->change[k]) ? r->change[k] / fabs(base) : NAN;
    }
  }
  d->nrows = m.nout;
  d->base_view = va;
  d->view = va->view;
  d->depth = sv->depth;
  d->flat_kind = sv->flat_kind;
  d->flat_n = sv->flat_n;
  d->sort_change = m.sort_change;
  d->sort = m.sort;
  d->nshown = va->nshown;
  d->run = va->run;
  d->other_run = other_run;
  d->center = va->center;
  d->ncenter = va->ncenter;
  d->granularity = va->granularity;
  d->metrics = va->metrics;
  d->units = (const char *const *)p->units;
  d->other_units = (const char *const *)p->other_units;
  if ((rc = query_text(db, "run_title", va->run, NULL, &p->title, err)) ||
      (rc = query_text(db, "run_title", other_run, NULL, &p->other_title, err)))
    goto fail;
  d->title = p->title;
  d->other_title = p->other_title;
  if (!found) add_note(&p->note, "the center matches nothing in run %d: every row is removed", other_run);
  d->note = p->note;
  tree_free(&m.ta);
  tree_free(&m.tb);
  free(m.out);
  *out = d;
  return CCT_OK;
nomem:
  rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
fail:
  tree_free(&m.ta);
  tree_free(&m.tb);
  free(m.out);
  cct_diff_free(d);
  return rc;
}
