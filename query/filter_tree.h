/* filter_tree.h: filters (SPEC section 5) as in-memory transformations of a
 * run's tree image (common/cct_tree.h), private to the query library
 * (query/filter_tree.c).  A list of filters turns the run's tree into a new
 * cct_tree, and keeps what is needed to carry any metric's values (or one
 * profile's) from the run's nodes to the new tree's: for each filter, the
 * node of its input tree each output node is, and the log of value operations
 * the filter made.  No file, no SQLite. */
#ifndef CCT_FILTER_TREE_H
#define CCT_FILTER_TREE_H

#include "cct.h"
#include "cct_tree.h"

#include <stddef.h>
#include <stdint.h>

/* One filter of a list: kind CCT_FILTER_* and its item's occurrences, as nodes of
 * the run's own tree (any order, duplicates allowed; none for 'recursion' of every
 * function).  A node a previous filter removed is skipped. */
typedef struct qf_step {
  int kind;
  const int32_t *occ;
  size_t nocc;
} qf_step;

/* A logged change of values over the input tree of one filter: op (add, subtract,
 * set, zero) of component `from` of node src (read before the change) on component
 * `to` of the nodes tg[t0 .. t0 + nt). */
typedef struct qf_op {
  int32_t src;
  uint8_t op, from, to;
  uint32_t t0, nt;
} qf_op;

/* What one filter did: its output node k is its input node from[k]. */
typedef struct qf_stage {
  int32_t nin, nout;
  int32_t *from;
  qf_op *ops;
  size_t nops;
  int32_t *tg;
  size_t ntg;
} qf_stage;

/* A run's tree seen through a list of filters. */
typedef struct qf_tree {
  cct_tree t;        /* the filtered tree (base: the run's; node i is not the archive's pre base + i
                      * unless orig[i] == i); incl/excl/lex: the run's primary metric, filtered */
  int32_t *orig;     /* per node of t: the run's node it is */
  const cct_tree *src; /* the run's tree (the caller's, outlives f) */
  int32_t nsrc;      /* nodes of the run's tree */
  qf_stage *stages;  /* one per filter */
  size_t nstages;
} qf_tree;

/* Applies the filters steps[0..n) in order to src (a checked tree) into *out (zeroed
 * first).  The result passes cct_tree_check.  Returns
 * CCT_OK, or CCT_ENOMEM / CCT_EUSAGE (no step, an unknown kind) with *out zeroed. */
int qf_make(const cct_tree *src, const qf_step *steps, size_t n, qf_tree *out, cct_err *err);

/* Carries one metric's values from the run's nodes to the filtered tree's:
 * in[comps * i + c] for run node i (c: 0 inclusive, 1 exclusive, 2 exclusive_lex;
 * comps 3, or 2 for a profile, which has no lex_aware part) into out[comps * k + c]
 * for node k of f->t.  Values at the rounding noise of the subtractions that made
 * them (|v| <= 1e-12 of the root's inclusive) are 0; with comps 3, exclusive is at
 * most inclusive and exclusive_lex at most exclusive.  Returns CCT_OK or CCT_ENOMEM. */
int qf_values(const qf_tree *f, const double *in, int comps, double *out, cct_err *err);

/* Frees f (a zeroed f is a no-op). */
void qf_free(qf_tree *f);

#endif
