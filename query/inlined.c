/* inlined.c: the cost a center's function frames leave to the frames inlined
 * into them (issue 25 item 7).  SPEC section 3's 'function' scope keeps a
 * frame's exclusive to its own code: code inlined into it is the inlined
 * frames' own.  When a function's code is all inlined (OpenMP outlined bodies,
 * C++ templates: hpcviewer's inline sample 'f._omp_fn.0'), its exclusive is 0
 * where hpcviewer's classic exclusive, which adds the inlined frames directly
 * inside a procedure frame, shows the whole cost.  Views say so (core.c). */
#include "query_int.h"

#include <stdlib.h>

/* Whether pre is a member of c->O (sorted by pre). */
static int in_O(const cct_center *c, int64_t pre) {
  size_t lo = 0, hi = c->nO;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (c->O[mid].pre < pre) lo = mid + 1;
    else hi = mid;
  }
  return lo < c->nO && c->O[lo].pre == pre;
}

int q_center_inlined(const qv *q, size_t col, double *out, cct_err *err) {
  const cct_center *c = q->c;
  const cct_tree *t = &q->r->tree;
  int64_t *pres = NULL;
  size_t n = 0, cap = 0;
  *out = 0;
  for (size_t i = 0; i < c->nO; i++) {
    const qctx *o = &c->O[i];
    if (o->kind != CCT_KIND_FUNCTION || o->frame != o->pre) continue;
    int32_t f = (int32_t)(o->pre - t->base);
    if (f < 0 || f >= t->n) continue;
    for (int32_t j = f + 1; j <= t->last[f];) {
      if (t->frame[j] != j) { /* a loop or line of f's own code: look inside */
        j++;
        continue;
      }
      if (t->relation[j] == CCT_REL_INLINED && t->fparent[j] == f && !in_O(c, t->base + j)) {
        if (CCT_GROW(pres, n + 1, cap)) {
          free(pres);
          return cct_err_set(err, CCT_ENOMEM, "out of memory");
        }
        pres[n++] = t->base + j;
      }
      j = t->last[j] + 1; /* a frame's insides are its own */
    }
  }
  /* the run's primary metric from the tree's arrays (q_values_many reads no row for it) */
  double *v = n ? malloc(3 * n * sizeof *v) : NULL, *pv = n ? malloc(3 * n * sizeof *pv) : NULL;
  int rc = n && (!v || !pv) ? cct_err_set(err, CCT_ENOMEM, "out of memory") : CCT_OK;
  for (size_t k = 0; !rc && k < n; k++) {
    int32_t j = (int32_t)(pres[k] - t->base);
    pv[3 * k] = t->incl[j], pv[3 * k + 1] = t->excl[j], pv[3 * k + 2] = t->lex[j];
  }
  if (!rc && n) rc = q_values_many(q, pres, n, &col, 1, pv, 3 * sizeof *pv, v, 3, err);
  for (size_t k = 0; !rc && k < n; k++) *out += v[3 * k + 1];
  free(v);
  free(pv);
  free(pres);
  return rc;
}
