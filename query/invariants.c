/* invariants.c: checks the invariants of SPEC section 5 for the current
 * center, at the session's granularity (threshold ignored):
 *   1. topdown top row == bottomup top row (inclusive and exclusive: both count
 *      the function-scope exclusive over O', SPEC section 4);
 *   2. for a center of one function, one loop header or one source line, both ==
 *      that scope's flat row (inclusive and exclusive);
 *   2b. exclusive <= inclusive on both top rows and on every flat row of every kind;
 *   3. sum of the bottomup level-1 rows == bottomup top row (both columns);
 *   4. every row's inclusive <= its parent's, in both views;
 *   5. center total <= program total;
 *   6. topdown / bottomup at depth D agree with depth D+3 on their first D levels
 *      (rows compared by their path of row identities, values compared); with a
 *      hot path, the levels of cct_row.level (the hot rows use none): topdown D
 *      is exactly the rows of level <= D of topdown D+3.
 * Values are compared with a relative tolerance of 1e-9 plus 1e-9 of the
 * program total (exclusive <= inclusive: 1e-5, see exceeds()). */
#include "query_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { INV_DEPTH = 3, INV_EXTRA = 3 };

static int close_to(double a, double b, double total) {
  return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b)) + 1e-9 * fabs(total) + 1e-12;
}

/* Whether exclusive x exceeds inclusive i beyond rounding: classic XML prints
 * values with 6 significant digits, so a sum of exclusives can pass its
 * inclusive by a few units of the 6th digit (cpi: 3998245 against 3998240). */
static int exceeds(double x, double i, double total) {
  return x > i + 1e-5 * fabs(i) + 1e-9 * fabs(total) + 1e-12;
}

/* Row identity within its view: kind, name, call site and location, joined over the path. */
typedef struct rkey {
  char *key;
  double incl, excl;
} rkey;

static int by_key(const void *a, const void *b) {
  const rkey *x = a, *y = b;
  int c = strcmp(x->key, y->key);
  if (c) return c;
  return (x->incl > y->incl) - (x->incl < y->incl);
}

/* Keys of the rows of v of level <= maxdepth (cct_row.level: the depth, less the hot
 * rows above), sorted. */
static rkey *row_keys(const cct_view *v, int maxdepth, size_t *n) {
  rkey *k = calloc(v->nrows + 1, sizeof *k);
  char **own = calloc(v->nrows + 1, sizeof *own);
  *n = 0;
  if (!k || !own) {
    free(k);
    free(own);
    return NULL;
  }
  for (size_t i = 0; i < v->nrows; i++) {
    const cct_row *r = &v->rows[i];
    const char *parent = "";
    for (size_t j = i; r->depth > 0 && j-- > 0;)
      if (v->rows[j].depth == r->depth - 1) {
        parent = own[j];
        break;
      }
    size_t len = strlen(parent) + strlen(r->name) + (r->callsite ? strlen(r->callsite) : 0) +
                 (r->file ? strlen(r->file) : 0) + (r->module ? strlen(r->module) : 0) + 64;
    own[i] = malloc(len);
    if (!own[i]) break;
    snprintf(own[i], len, "%s\x1f%d|%s|%s|%s|%lld|%s", parent, r->kind, r->name, r->callsite ? r->callsite : "",
             r->file ? r->file : "", r->line, r->module ? r->module : "");
    if (r->level <= maxdepth) {
      k[*n].key = strdup(own[i]);
      if (!k[*n].key) break;
      k[*n].incl = v->nmetrics ? r->inclusive[0] : 0;
      k[*n].excl = v->nmetrics ? r->exclusive[0] : 0;
      (*n)++;
    }
  }
  for (size_t i = 0; i < v->nrows; i++) free(own[i]);
  free(own);
  qsort(k, *n, sizeof *k, by_key);
  return k;
}

static void free_keys(rkey *k, size_t n) {
  for (size_t i = 0; i < n; i++) free(k[i].key);
  free(k);
}

/* The view kind of spec at depth (or flat kind) computed by the core. */
static int view_at(cct_query *q, cct_view_spec spec, int view, int depth, cct_view **out, cct_err *err) {
  spec.view = view;
  spec.depth = depth;
  spec.flat_kind = depth;
  return cct_view_compute(q, &spec, out, err);
}

/* Invariant 6 for one view kind. */
static int check_depths(cct_query *q, const cct_view_spec *spec, int bottomup, cct_err *err) {
  cct_view *a = NULL, *b = NULL;
  int view = bottomup ? CCT_VIEW_BOTTOMUP : CCT_VIEW_TOPDOWN;
  int rc = view_at(q, *spec, view, INV_DEPTH, &a, err);
  if (!rc) rc = view_at(q, *spec, view, INV_DEPTH + INV_EXTRA, &b, err);
  if (rc) {
    cct_view_free(a);
    return rc;
  }
  size_t na = 0, nb = 0;
  rkey *ka = row_keys(a, INV_DEPTH, &na), *kb = row_keys(b, INV_DEPTH, &nb);
  double total = a->nmetrics ? a->total[0] : 0;
  const char *name = bottomup ? "bottomup" : "topdown";
  if (!ka || !kb) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
  else if (na != nb)
    rc = cct_err_set(err, CCT_ECORRUPT, "%s %d has %zu rows, its first %d levels at depth %d have %zu", name,
                     INV_DEPTH, na, INV_DEPTH, INV_DEPTH + INV_EXTRA, nb);
  for (size_t i = 0; !rc && i < na; i++) {
    if (strcmp(ka[i].key, kb[i].key) || !close_to(ka[i].incl, kb[i].incl, total) ||
        !close_to(ka[i].excl, kb[i].excl, total)) {
      const char *label = strrchr(ka[i].key, '|');
      rc = cct_err_set(err, CCT_ECORRUPT, "%s row %s differs between depth %d (%g, %g) and depth %d (%g, %g)", name,
                       label ? ka[i].key : "?", INV_DEPTH, ka[i].incl, ka[i].excl, INV_DEPTH + INV_EXTRA, kb[i].incl,
                       kb[i].excl);
    }
  }
  if (ka) free_keys(ka, na);
  if (kb) free_keys(kb, nb);
  cct_view_free(a);
  cct_view_free(b);
  return rc;
}

/* Invariant 4: every row's inclusive <= its parent's. */
static int check_monotone(const cct_view *v, cct_err *err) {
  double total = v->nmetrics ? v->total[0] : 0;
  if (!v->nmetrics) return CCT_OK;
  for (size_t i = 0; i < v->nrows; i++) {
    const cct_row *r = &v->rows[i];
    if (!r->depth) continue;
    for (size_t j = i; j-- > 0;)
      if (v->rows[j].depth == r->depth - 1) {
        double p = v->rows[j].inclusive[0];
        if (r->inclusive[0] > p && !close_to(r->inclusive[0], p, total))
          return cct_err_set(err, CCT_ECORRUPT, "%s row @%d '%s' (%g) exceeds its parent @%d '%s' (%g)", v->view,
                             r->handle, r->name, r->inclusive[0], v->rows[j].handle, v->rows[j].name, p);
        break;
      }
  }
  return CCT_OK;
}

/* The checks run on views of the session's settings with a zero threshold,
 * computed by the core: the session (its '@N' rows included) is not touched. */
int cct_check_invariants(cct_query *q, cct_err *err) {
  cct_view_spec spec;
  cct_view_spec_init(q, CCT_VIEW_TOPDOWN, &spec);
  spec.threshold = 0;
  const cct_center *c = cct_query_center(q);
  cct_view *td = NULL, *bu = NULL, *fl = NULL;
  int rc = view_at(q, spec, CCT_VIEW_TOPDOWN, INV_DEPTH, &td, err);
  if (!rc) rc = check_monotone(td, err);
  if (!rc) rc = check_depths(q, &spec, 0, err);
  double total = td && td->nmetrics ? td->total[0] : 0;
  if (!rc && c->nitems && td->nmetrics) {
    rc = view_at(q, spec, CCT_VIEW_BOTTOMUP, INV_DEPTH, &bu, err);
    if (!rc) rc = check_monotone(bu, err);
    if (!rc) rc = check_depths(q, &spec, 1, err);
    const cct_row *t = &td->rows[0];
    const cct_row *b = bu ? &bu->rows[0] : NULL;
    int type = c->nitems == 1 ? c->items[0].type : -1;
    int one_function = type == IT_NAME || type == IT_FUNCTION_ID;
    int one_scope = type == IT_LOOP || type == IT_LOOP_ID || type == IT_LINE || type == IT_LINE_ID ||
                    type == IT_LOOP_IN || type == IT_LOOP_IN_ID || type == IT_LINE_IN || type == IT_LINE_IN_ID;
    if (!rc && !close_to(t->inclusive[0], b->inclusive[0], total))
      rc = cct_err_set(err, CCT_ECORRUPT, "topdown top row inclusive %g != bottomup top row %g", t->inclusive[0],
                       b->inclusive[0]);
    if (!rc && exceeds(t->exclusive[0], t->inclusive[0], total))
      rc = cct_err_set(err, CCT_ECORRUPT, "top row exclusive %g exceeds its inclusive %g", t->exclusive[0],
                       t->inclusive[0]);
    if (!rc && !close_to(t->exclusive[0], b->exclusive[0], total))
      rc = cct_err_set(err, CCT_ECORRUPT, "topdown top row exclusive %g != bottomup top row %g", t->exclusive[0],
                       b->exclusive[0]);
    if (!rc && t->inclusive[0] > total && !close_to(t->inclusive[0], total, total))
      rc = cct_err_set(err, CCT_ECORRUPT, "center total %g exceeds the program total %g", t->inclusive[0], total);
    /* Invariant 3: level-1 rows of bottomup add up to the top row. */
    double si = 0, se = 0;
    for (size_t i = 0; !rc && i < bu->nrows; i++)
      if (bu->rows[i].depth == 1) {
        si += bu->rows[i].inclusive[0];
        se += bu->rows[i].exclusive[0];
      }
    if (!rc && (!close_to(si, b->inclusive[0], total) || !close_to(se, b->exclusive[0], total)))
      rc = cct_err_set(err, CCT_ECORRUPT, "bottomup level-1 rows add up to (%g, %g), the top row is (%g, %g)", si, se,
                       b->inclusive[0], b->exclusive[0]);
    /* Invariant 2: a single function's flat row. */
    if (!rc && one_function) {
      int64_t fn = -1;
      for (size_t i = 0; i < c->nO; i++) {
        if (fn >= 0 && c->O[i].function != fn) {
          fn = -2; /* several functions share the name: no single flat row */
          break;
        }
        fn = c->O[i].function;
      }
      if (fn >= 0) {
        rc = view_at(q, spec, CCT_VIEW_FLAT, CCT_FLAT_FUNCTIONS, &fl, err);
        const cct_row *f = NULL;
        for (size_t i = 0; !rc && i < fl->nrows; i++)
          if (q_view_facts(fl)[i].function == fn) f = &fl->rows[i];
        if (!rc && !f && !close_to(t->inclusive[0], 0, total))
          rc = cct_err_set(err, CCT_ECORRUPT, "function of the center has no flat row");
        if (!rc && f && (!close_to(f->inclusive[0], b->inclusive[0], total) ||
                         !close_to(f->exclusive[0], b->exclusive[0], total)))
          rc = cct_err_set(err, CCT_ECORRUPT, "flat row (%g, %g) != bottomup top row (%g, %g)", f->inclusive[0],
                           f->exclusive[0], b->inclusive[0], b->exclusive[0]);
      }
    }
    /* Invariant 2 for one loop header or one source line (all occurrences at one file:line). */
    int same = one_scope && c->nO > 0;
    long long line0 = same ? q_ctx_scope_line(&c->O[0]) : 0; /* its flat row's key */
    for (size_t i = 1; same && i < c->nO; i++)
      same = c->O[i].file == c->O[0].file && q_ctx_scope_line(&c->O[i]) == line0;
    if (!rc && same) {
      int loop = type == IT_LOOP || type == IT_LOOP_ID || type == IT_LOOP_IN || type == IT_LOOP_IN_ID;
      cct_view_free(fl);
      fl = NULL;
      rc = view_at(q, spec, CCT_VIEW_FLAT, loop ? CCT_FLAT_LOOPS : CCT_FLAT_LINES, &fl, err);
      const cct_row *f = NULL;
      for (size_t i = 0; !rc && i < fl->nrows; i++)
        if (q_view_facts(fl)[i].file == c->O[0].file && q_view_facts(fl)[i].line == line0) f = &fl->rows[i];
      if (!rc && !f && !close_to(t->inclusive[0], 0, total))
        rc = cct_err_set(err, CCT_ECORRUPT, "%s of the center has no flat row", loop ? "loop" : "line");
      if (!rc && f && (!close_to(f->inclusive[0], t->inclusive[0], total) ||
                       !close_to(f->exclusive[0], t->exclusive[0], total)))
        rc = cct_err_set(err, CCT_ECORRUPT, "flat %s row %s (%g, %g) != top row (%g, %g)", loop ? "loops" : "lines",
                         f->name, f->inclusive[0], f->exclusive[0], t->inclusive[0], t->exclusive[0]);
    }
  }
  /* Invariant 2b on the flat rows of every kind. */
  for (int kind = CCT_FLAT_FUNCTIONS; !rc && td && td->nmetrics && kind <= CCT_FLAT_MODULES; kind++) {
    cct_view_free(fl);
    fl = NULL;
    rc = view_at(q, spec, CCT_VIEW_FLAT, kind, &fl, err);
    for (size_t i = 0; !rc && i < fl->nrows; i++) {
      const cct_row *f = &fl->rows[i];
      if (exceeds(f->exclusive[0], f->inclusive[0], total))
        rc = cct_err_set(err, CCT_ECORRUPT, "flat row %s: exclusive %g exceeds inclusive %g", f->name, f->exclusive[0],
                         f->inclusive[0]);
    }
  }
  cct_view_free(td);
  cct_view_free(bu);
  cct_view_free(fl);
  return rc;
}
