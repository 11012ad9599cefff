/* filter.c: filters (SPEC section 5).  A run seen through a list of filters
 * is a run of the same archive whose tree is the filtered one: the items are
 * resolved in the run (center syntax, center.c), the run's tree image is
 * transformed in memory (filter_tree.c), and the other metrics' values follow
 * on demand through the filters' log (archive.c, qrun.colv).  Nothing is
 * written anywhere.  The archive keeps the filtered runs it made (keyed by run
 * and filter list); views, centers and checks then run on them unchanged
 * (core.c binds a spec with filters to its filtered run); the session's list
 * of filters is in session.c. */
#include "query_int.h"
#include "filter_tree.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* At most this many filtered runs are kept per archive (the oldest goes). */
#define Q_FILTERED_MAX 8

struct qfiltered {
  char *key;  /* run and filter list (see filter_key) */
  int serial; /* cct_center.tree of centers resolved in it */
  qrun run;   /* the filtered run (its columns are the run's: not owned) */
  qf_tree ft; /* how its tree came from the run's (ft.t moved into run.tree) */
};

static const char *const kind_names[] = {"keep", "drop", "hide", "prune", "recursion"};

const char *cct_filter_name(int kind) {
  return kind >= 0 && kind < (int)(sizeof kind_names / sizeof *kind_names) ? kind_names[kind] : NULL;
}

int cct_filter_kind(const char *word) {
  for (int k = 0; k < (int)(sizeof kind_names / sizeof *kind_names); k++)
    if (word && !strcmp(word, kind_names[k])) return k;
  return -1;
}

char *cct_filter_text(const cct_filter *f) {
  const char *name = cct_filter_name(f->kind);
  size_t n = strlen(name ? name : "?") + (f->item ? strlen(f->item) + 1 : 0) + 1;
  char *t = malloc(n);
  if (t) snprintf(t, n, f->item ? "%s %s" : "%s", name ? name : "?", f->item ? f->item : "");
  return t;
}

/* "run\nkind item\nkind item..." (malloc'd), or NULL when out of memory. */
static char *filter_key(int run, const cct_filter *f, size_t n) {
  size_t len = 32;
  for (size_t i = 0; i < n; i++) len += 16 + (f[i].item ? strlen(f[i].item) : 0);
  char *k = malloc(len);
  if (!k) return NULL;
  size_t at = (size_t)snprintf(k, len, "%d", run);
  for (size_t i = 0; i < n && at < len; i++) at += (size_t)snprintf(k + at, len - at, "\n%d %s", f[i].kind, f[i].item ? f[i].item : "");
  return k;
}

static void filtered_free(qfiltered *d) {
  if (!d) return;
  for (size_t i = 0; d->run.colv && i < d->run.ncols; i++) free(d->run.colv[i]);
  free(d->run.colv);
  free(d->run.root_incl);
  q_scopes_free(d->run.scopes);
  q_index_free(d->run.idx);
  cct_tree_free(&d->run.tree);
  qf_free(&d->ft);
  free(d->key);
  free(d);
}

void q_filtered_close(qarch *a) {
  for (size_t i = 0; i < a->nfiltered; i++) filtered_free(a->filtered[i]);
  free(a->filtered);
  a->filtered = NULL;
  a->nfiltered = 0;
}

/* The occurrences of filter f's item in run r of a, as nodes of r's tree (none without an item). */
static int item_nodes(qarch *a, const qrun *r, const cct_filter *f, int32_t **nodes, size_t *n, cct_err *err) {
  *nodes = NULL;
  *n = 0;
  if (!f->item) return CCT_OK;
  qv q = {.a = a, .r = r, .c = &q_no_center, .gran = CCT_GRAN_FUNCTION, .shown_run = r->run};
  cct_center *c = NULL;
  cct_err e = CCT_ERR_INIT;
  int rc = q_center_edit(&q, NULL, CCT_CENTER_SET, f->item, NULL, 0, &c, &e);
  if (rc) return cct_err_set(err, rc, "filter %s %s: %s", cct_filter_name(f->kind), f->item, e.msg);
  if (!c) return CCT_OK;
  *nodes = malloc((c->nO + 1) * sizeof **nodes);
  if (!*nodes) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
  for (size_t i = 0; !rc && i < c->nO; i++)
    if (c->O[i].pre >= r->tree.base && c->O[i].pre - r->tree.base < r->tree.n) (*nodes)[(*n)++] = (int32_t)(c->O[i].pre - r->tree.base);
  cct_center_free(c);
  return rc;
}

/* Makes d->run from run r and the filtered tree in d->ft: the run's 'sum' columns, the
 * filtered root, program totals and default metric.  Only the primary metric's total is
 * known now (the tree carries its values); the others are NaN until a view asks
 * (q_run_total): a filter reads no other metric's values. */
static int make_run(const qrun *r, qfiltered *d, cct_err *err) {
  qrun *x = &d->run;
  x->run = r->run;
  x->cols = r->cols;
  x->ncols = x->nsum = r->nsum; /* the stored sums (as derive.c did): what filters can carry */
  x->primary = r->primary < x->ncols ? r->primary : x->ncols;
  x->defdisp = r->defdisp < x->ncols ? r->defdisp : 0;
  x->tree = d->ft.t; /* moved */
  memset(&d->ft.t, 0, sizeof d->ft.t);
  x->ft = &d->ft;
  const cct_tree *t = &x->tree;
  qctx *c = &x->root;
  *c = r->root;
  c->last = t->base + t->last[0];
  c->nframes = t->nframes[0];
  c->pv[0] = t->incl[0], c->pv[1] = t->excl[0], c->pv[2] = t->lex[0];
  x->colv = calloc(x->ncols + 1, sizeof *x->colv);
  x->root_incl = calloc(x->ncols + 1, sizeof *x->root_incl);
  x->idx = q_index_new();
  if (!x->colv || !x->root_incl || !x->idx) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  for (size_t i = 0; i < x->ncols; i++) x->root_incl[i] = i == x->primary ? t->incl[0] : NAN;
  return CCT_OK;
}

int q_filtered(qarch *a, int run, const cct_filter *f, size_t n, const qrun **out, int *serial, cct_err *err) {
  *out = NULL;
  char *key = filter_key(run, f, n);
  if (!key) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  for (size_t i = a->nfiltered; i-- > 0;)
    if (!strcmp(a->filtered[i]->key, key)) {
      free(key);
      *out = &a->filtered[i]->run;
      *serial = a->filtered[i]->serial;
      return CCT_OK;
    }
  for (size_t i = 0; i < n; i++)
    if (!cct_filter_name(f[i].kind) || (!f[i].item && f[i].kind != CCT_FILTER_RECURSION)) {
      free(key);
      return cct_err_set(err, CCT_EUSAGE, "filter %zu: a %s needs an item", i + 1,
                         cct_filter_name(f[i].kind) ? cct_filter_name(f[i].kind) : "filter");
    }
  const qrun *r = NULL;
  int rc = q_run_get(a, run, &r, err);
  if (!rc) rc = q_run_tree(a, r, err); /* the filtered tree is made from the run's */
  qf_step *steps = calloc(n + 1, sizeof *steps);
  int32_t **nodes = calloc(n + 1, sizeof *nodes);
  qfiltered *d = calloc(1, sizeof *d);
  if (!rc && (!steps || !nodes || !d)) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
  q_begin(a);
  for (size_t i = 0; !rc && i < n; i++) {
    steps[i].kind = f[i].kind;
    rc = item_nodes(a, r, &f[i], &nodes[i], &steps[i].nocc, err);
    steps[i].occ = nodes[i];
  }
  if (!rc) rc = qf_make(&r->tree, steps, n, &d->ft, err);
  if (!rc) rc = make_run(r, d, err);
  q_end(a);
  for (size_t i = 0; nodes && i < n; i++) free(nodes[i]);
  free(nodes);
  free(steps);
  if (!rc && a->nfiltered == Q_FILTERED_MAX) {
    filtered_free(a->filtered[0]);
    memmove(a->filtered, a->filtered + 1, --a->nfiltered * sizeof *a->filtered);
  }
  qfiltered **grown = rc ? NULL : cct_reallocarray(a->filtered, a->nfiltered + 1, sizeof *grown);
  if (!rc && !grown) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
  if (rc) {
    filtered_free(d);
    free(key);
    return rc;
  }
  a->filtered = grown;
  d->key = key;
  d->serial = ++a->serial;
  a->filtered[a->nfiltered++] = d;
  *out = &d->run;
  *serial = d->serial;
  return CCT_OK;
}
