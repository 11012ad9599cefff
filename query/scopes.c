/* scopes.c: static-scope totals (the rows of the flat view, SPEC section 5) of a
 * run's tree computed in memory, by the rule the writer applies at ingest for the
 * table scope_total: inclusive over the contexts of a scope with no proper
 * ancestor in the same scope (outermost rule), exclusive over every frame, and
 * over the loops and lines with no context of the same scope between them and
 * their frame.  Used for filtered runs (qrun.ft) and for the trace column under
 * a window (window.c), whose totals no table holds; each (kind, column) is
 * computed once and kept with the run (the window's: until another window). */
#include "query_int.h"

#include <stdlib.h>
#include <string.h>

/* The totals of one kind and column, sorted by (key, line). */
typedef struct qscopes {
  int kind;
  size_t col;
  int window;   /* the window serial of the values (0: none) */
  qscope *v;
  size_t n;
} qscopes;

struct qscache {
  qscopes *s;
  size_t n;
};

void q_scopes_free(qscache *c) {
  if (!c) return;
  for (size_t i = 0; i < c->n; i++) free(c->s[i].v);
  free(c->s);
  free(c);
}

static int by_key(const void *a, const void *b) {
  const qscope *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->line > y->line) - (x->line < y->line);
}

/* The scope of node i for kind (its slot key, line), 0 when it is in none. */
static int node_scope(const qv *q, const cct_tree *t, int32_t i, int kind, int64_t *fkey, int64_t *key, int64_t *line,
                      cct_err *err, int *rc) {
  int fr = t->frame[i] == i && i > 0;
  *line = 0;
  switch (kind) {
  case CCT_TOTAL_FUNCTION: *key = t->function[i]; return fr;
  case CCT_TOTAL_FILE:
  case CCT_TOTAL_MODULE: {
    if (!fr) return 0;
    int64_t fn = t->function[i];
    if (fkey[fn] < -1) {
      const fninfo *f = NULL;
      if ((*rc = q_function(q, fn, &f, err))) return 0;
      fkey[fn] = f ? (kind == CCT_TOTAL_FILE ? f->file_id : f->module_id) : 0;
    }
    *key = fkey[fn];
    return *key > 0;
  }
  default:
    *key = t->file[i];
    *line = q_node_scope_line(t, i);
    return t->file[i] > 0 && t->kind[i] == (kind == CCT_TOTAL_LOOP ? CCT_KIND_LOOP : CCT_KIND_LINE);
  }
}

/* Computes the totals of kind for column col of q's run into *out (malloc'd, sorted). */
static int compute(const qv *q, int kind, size_t col, qscope **out, size_t *nout, cct_err *err) {
  const cct_tree *t = &q->r->tree;
  int32_t n = t->n, nfn = 1;
  for (int32_t i = 0; i < n; i++)
    if (t->function[i] >= nfn) nfn = t->function[i] + 1;
  const double *v = q->win && col == q->win->col ? q->win->v : NULL; /* a window's, else a filtered run's */
  int rc = v ? CCT_OK : q_column_values(q, col, &v, err);
  if (rc) return rc;
  int64_t *fkey = malloc((size_t)nfn * sizeof *fkey);
  int32_t *slot = cct_big_alloc((size_t)n * sizeof *slot, 0), *saved = cct_big_alloc((size_t)n * sizeof *saved, 0);
  int32_t *stack = cct_big_alloc((size_t)n * sizeof *stack, 0);
  qscope *s = NULL;
  int32_t *active = NULL, *open_at = NULL;
  size_t ns = 0, cap = 0;
  qmap map = {0};
  if (!fkey || !slot || !saved || !stack) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
  for (int32_t f = 0; !rc && f < nfn; f++) fkey[f] = -2; /* not looked up yet */
  size_t top = 0;
  for (int32_t i = 0; !rc && i < n; i++) {
    while (top && t->last[stack[top - 1]] < i) { /* leave the subtrees that end before i */
      int32_t x = stack[--top];
      if (slot[x] >= 0) active[slot[x]]--, open_at[slot[x]] = saved[x];
    }
    stack[top++] = i;
    slot[i] = -1;
    int64_t key, line;
    if (!node_scope(q, t, i, kind, fkey, &key, &line, err, &rc)) continue;
    int added;
    int64_t *sl = qmap_put(&map, key, line, 0, 0, 0, (int64_t)ns, &added);
    if (!sl || (added && (CCT_GROW(s, ns + 1, cap) || !(active = cct_reallocarray(active, cap, sizeof *active)) ||
                          !(open_at = cct_reallocarray(open_at, cap, sizeof *open_at))))) {
      rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
      break;
    }
    if (added) {
      s[ns] = (qscope){key, line, 0, 0, 0};
      active[ns] = 0, open_at[ns] = -1;
      ns++;
    }
    int32_t k = (int32_t)*sl;
    slot[i] = k;
    saved[i] = open_at[k];
    int outer = active[k]++ == 0;
    int counted = (kind != CCT_TOTAL_LOOP && kind != CCT_TOTAL_LINE) || open_at[k] < t->depth[t->frame[i]];
    open_at[k] = t->depth[i];
    if (outer) s[k].incl += v[3 * (size_t)i];
    if (counted) s[k].excl += v[3 * (size_t)i + 1];
    s[k].contexts++;
  }
  qmap_free(&map);
  free(fkey);
  free(slot);
  free(saved);
  free(stack);
  free(active);
  free(open_at);
  if (rc) {
    free(s);
    return rc;
  }
  size_t k = 0; /* scopes without a value have no row (as in scope_total) */
  for (size_t i = 0; i < ns; i++)
    if (s[i].incl != 0 || s[i].excl != 0) s[k++] = s[i];
  if (k) qsort(s, k, sizeof *s, by_key);
  *out = s;
  *nout = k;
  return CCT_OK;
}

int q_scopes(const qv *q, int kind, size_t col, const qscope **out, size_t *n, cct_err *err) {
  qrun *r = cct_unconst(q->r); /* the cache behind the const run */
  *out = NULL;
  *n = 0;
  if (!r->scopes && !(r->scopes = calloc(1, sizeof *r->scopes))) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  r->scopes_free = q_scopes_free; /* archive.c frees a run's without calling up into this file */
  qscache *c = r->scopes;
  int window = q->win && col == q->win->col ? q->win->serial : 0;
  qscopes *x = NULL;
  for (size_t i = 0; i < c->n && !x; i++)
    if (c->s[i].kind == kind && c->s[i].col == col) x = &c->s[i];
  if (x && x->window == window) {
    *out = x->v;
    *n = x->n;
    return CCT_OK;
  }
  if (!x) { /* a new entry; an entry of another window is computed again in place */
    qscopes *g = cct_reallocarray(c->s, c->n + 1, sizeof *g);
    if (!g) return cct_err_set(err, CCT_ENOMEM, "out of memory");
    c->s = g;
    x = &c->s[c->n++];
  } else {
    free(x->v);
  }
  *x = (qscopes){kind, col, window, NULL, 0};
  int rc = compute(q, kind, col, &x->v, &x->n, err);
  if (rc) {
    x->window = -1; /* nothing valid: computed again when asked */
    return rc;
  }
  *out = x->v;
  *n = x->n;
  return CCT_OK;
}

int q_scope_one(const qv *q, int kind, size_t col, int64_t key, int64_t line, double *incl, double *excl, cct_err *err) {
  const qscope *v = NULL;
  size_t n = 0;
  *incl = *excl = 0;
  int rc = q_scopes(q, kind, col, &v, &n, err);
  if (rc || !n) return rc;
  qscope k = {key, line, 0, 0, 0};
  const qscope *x = bsearch(&k, v, n, sizeof *v, by_key);
  if (x) *incl = x->incl, *excl = x->excl;
  return CCT_OK;
}
