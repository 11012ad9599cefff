/* vmetric.c: the metrics a view computes from stored columns (SPEC section 5,
 * "Metrics beyond the stored sums"): hpcprof's statistics, named as hpcviewer
 * names them ('CPUTIME (usec):Mean', ':StdDev', ':CfVar', ':Min', ':Max'),
 * finalized from the accumulators the archive stores as hpcviewer finalizes
 * them, and the session's derived metrics ('metric define NAME = EXPR').
 *
 * cct_view_compute asks q_vm_plan which stored columns a spec needs (the view
 * engine computes only stored columns) and gives the engine a rewritten spec;
 * q_vm_finish then turns the engine's view into the one the spec asked for:
 * each virtual column evaluated per row from its operands' inclusive and
 * exclusive values (a merged row's operands are already its sums, so a ratio
 * of a merged row is the ratio of its sums), and, when the display metric is
 * virtual, the rows sorted, cut by the threshold and counted by it.  The
 * engine never sees a virtual metric. */
#include "cct_util.h"
#include "query_int.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A formatted string, malloc'd; NULL when out of memory. */
static char *xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xprintf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *s = n < 0 ? NULL : malloc((size_t)n + 1);
  if (!s) return NULL;
  va_start(ap, fmt);
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return s;
}

enum { X_NUM, X_LEAF, X_TOTAL, X_ADD, X_SUB, X_MUL, X_DIV, X_MIN, X_MAX, X_NEG, X_SQRT };

/* An expression node: a number, a leaf (a name in a definition, an operand
 * index in a plan; X_TOTAL: that operand's program total, whatever the row), or
 * an operator over nodes a and b. */
typedef struct vx {
  int op;
  double num;
  char *name; /* definitions: the metric name of a leaf */
  size_t leaf; /* plans: index in the plan's operands */
  int a, b;
} vx;

/* One derived metric of the session. */
typedef struct qdef {
  char *name, *text; /* as defined */
  vx *n;
  size_t nn;
  int root;
} qdef;

/* ---- statistics ---- */

/* The statistics hpcviewer shows and the stored columns each is finalized from:
 * classic hpcprof-mpi keeps per statistic its accumulators (':Mean' the sum and
 * ':Mean:num-src' the count of sources; ':StdDev' and ':CfVar' also ':accum2',
 * the sum of squares); v4 summary statistics are 'sum', 'sumsq', 'count', 'min', 'max'. */
static const char *const stat_names[] = {"Mean", "StdDev", "CfVar", "Min", "Max"};
enum { S_MEAN, S_STDDEV, S_CFVAR, S_MIN, S_MAX, S_COUNT };

/* Index in r->cols of base's column with statistic stat, or -1. */
static long find_col(const qrun *r, const char *base, const char *stat) {
  for (size_t i = 0; i < r->ncols; i++)
    if (r->cols[i].name && r->cols[i].stat && !strcmp(r->cols[i].name, base) && !strcmp(r->cols[i].stat, stat))
      return (long)i;
  return -1;
}

/* The stored columns statistic s of base is computed from: sum S, sum of squares
 * Q (StdDev, CfVar), count N; for Min and Max the column itself (in S).  Returns
 * 0 when the run has them, -1 when not. */
static int stat_cols(const qrun *r, const char *base, int s, long *S, long *Q, long *N) {
  *S = *Q = *N = -1;
  static const char *const classic[] = {"mean", "stddev", "cfvar"};
  if (s == S_MIN || s == S_MAX) return (*S = find_col(r, base, s == S_MIN ? "min" : "max")) < 0 ? -1 : 0;
  char acc[40], num[40];
  snprintf(acc, sizeof acc, "%s:accum2", classic[s]);
  snprintf(num, sizeof num, "%s:num-src", classic[s]);
  *S = find_col(r, base, classic[s]);
  *N = find_col(r, base, num);
  *Q = s == S_MEAN ? 0 : find_col(r, base, acc);
  if (*S >= 0 && *N >= 0 && *Q >= 0) return 0;
  *S = find_col(r, base, "sum"), *N = find_col(r, base, "count"); /* v4 */
  *Q = s == S_MEAN ? 0 : find_col(r, base, "sumsq");
  return *S >= 0 && *N >= 0 && *Q >= 0 ? 0 : -1;
}

/* Splits 'BASE:Stat' (case-insensitive statistic) into base (malloc'd) and
 * the S_* statistic; -1 when name is not of that form. */
static int split_stat(const char *name, char **base) {
  const char *c = strrchr(name, ':');
  *base = NULL;
  if (!c || c == name) return -1;
  for (int s = 0; s < S_COUNT; s++)
    if (!strcasecmp(c + 1, stat_names[s])) {
      *base = strndup(name, (size_t)(c - name));
      return *base ? s : -1;
    }
  return -1;
}

/* ---- the plan ---- */

/* One column of the view the spec asks for. */
typedef struct vout {
  char *name;
  int root;    /* node in the plan's expression */
  int virt;    /* 1: computed here; 0: a stored column (the root is one leaf) */
  int stat;    /* a statistic or derived metric: no percentages */
  int nonlinear; /* StdDev, CfVar, Min, Max: not known for a flat row of several contexts */
} vout;

struct qvm {
  int active;              /* some column is virtual */
  int disp_virtual;        /* the display metric is */
  cct_view_spec spec;      /* the spec the engine computes */
  char *ops[CCT_VIEW_MAX_METRICS]; /* stored columns the engine computes, as q_metric_column takes them */
  size_t nops;
  vx *n;                   /* expression nodes of every column */
  size_t nn, cap;
  vout out[CCT_VIEW_MAX_METRICS];
  size_t nout;
  size_t nshown;           /* out[0 .. nshown): the display metric and the spec's columns */
  double threshold;        /* the spec's, applied here when the display metric is virtual */
  int flat_n, sort, view;
  size_t map[CCT_VIEW_MAX_METRICS]; /* after q_vm_bind: the engine column of each operand */
  double tot[CCT_VIEW_MAX_METRICS]; /* and its program total */
};

static int node(qvm *p, vx x) {
  if (CCT_GROW(p->n, p->nn + 1, p->cap)) return -1;
  p->n[p->nn] = x;
  return (int)p->nn++;
}

/* The operand for stored column i of r (a name q_metric_column resolves to it). */
static int leaf(qvm *p, const qrun *r, size_t i, cct_err *err) {
  char *nm = strcmp(r->cols[i].stat, "sum") ? xprintf("%s\x1f%s", r->cols[i].name, r->cols[i].stat)
                                            : strdup(r->cols[i].name);
  if (!nm) return cct_err_set(err, CCT_ENOMEM, "out of memory"), -1;
  size_t k = 0;
  while (k < p->nops && strcmp(p->ops[k], nm)) k++;
  if (k == p->nops) {
    if (p->nops == CCT_VIEW_MAX_METRICS) {
      free(nm);
      return cct_err_set(err, CCT_EUSAGE, "a view computes at most %d stored metrics; this one needs more",
                         CCT_VIEW_MAX_METRICS), -1;
    }
    p->ops[p->nops++] = nm;
  } else {
    free(nm);
  }
  int x = node(p, (vx){.op = X_LEAF, .leaf = k, .a = -1, .b = -1});
  if (x < 0) cct_err_set(err, CCT_ENOMEM, "out of memory");
  return x;
}

static int op2(qvm *p, int op, int a, int b, cct_err *err) {
  if (a < 0 || b < 0) return -1;
  int x = node(p, (vx){.op = op, .a = a, .b = b});
  if (x < 0) cct_err_set(err, CCT_ENOMEM, "out of memory");
  return x;
}

/* The program total of stored column i (the count of profiles, for N). */
static int total_leaf(qvm *p, const qrun *r, size_t i, cct_err *err) {
  int x = leaf(p, r, i, err);
  if (x >= 0) p->n[x].op = X_TOTAL;
  return x;
}

/* Statistic s of base as an expression: Mean = S / N, StdDev = sqrt(Q / N -
 * (S / N)^2), CfVar = StdDev / Mean (hpcprof's finalize formulas), Min, Max the
 * column.  N is the program's count of profiles (hpcprof stores it per context,
 * the same everywhere: 64 in every context of gauss), so that a row merging
 * several contexts has the mean of its value, not of its contexts'. */
static int stat_expr(qvm *p, const qrun *r, const char *base, int s, cct_err *err) {
  long S, Q, N;
  if (stat_cols(r, base, s, &S, &Q, &N)) return -2;
  if (s == S_MIN || s == S_MAX) return leaf(p, r, (size_t)S, err);
  /* one operand after the other: the order of a call's arguments is unspecified in C
   * (gcc and clang made the operands apart, and the engine's first operand differed) */
  int sum = leaf(p, r, (size_t)S, err), n = sum < 0 ? -1 : total_leaf(p, r, (size_t)N, err);
  int mean = op2(p, X_DIV, sum, n, err);
  if (s == S_MEAN) return mean;
  int sq = mean < 0 ? -1 : leaf(p, r, (size_t)Q, err);
  sq = op2(p, X_DIV, sq, sq < 0 ? -1 : total_leaf(p, r, (size_t)N, err), err);
  int var = op2(p, X_SUB, sq, op2(p, X_MUL, mean, mean, err), err);
  int sd = op2(p, X_SQRT, var, var, err);
  return s == S_STDDEV ? sd : op2(p, X_DIV, sd, mean, err);
}

static const qdef *find_def(const cct_query *s, const char *name) {
  for (size_t i = 0; i < s->ndefs; i++)
    if (!strcasecmp(s->defs[i].name, name)) return &s->defs[i];
  return NULL;
}

static int build(qvm *p, const cct_query *s, const qrun *r, const char *name, int depth, int *virt, char **canon,
                 cct_err *err);

/* Copies node x of definition d into the plan, resolving its leaves. */
static int build_def(qvm *p, const cct_query *s, const qrun *r, const qdef *d, int x, int depth, cct_err *err) {
  const vx *n = &d->n[x];
  int v;
  if (n->op == X_NUM) {
    int y = node(p, (vx){.op = X_NUM, .num = n->num, .a = -1, .b = -1});
    return y < 0 ? (cct_err_set(err, CCT_ENOMEM, "out of memory"), -1) : y;
  }
  if (n->op == X_LEAF) return build(p, s, r, n->name, depth + 1, &v, NULL, err);
  int a = build_def(p, s, r, d, n->a, depth, err);
  int b = a < 0 ? -1 : build_def(p, s, r, d, n->b, depth, err);
  return op2(p, n->op, a, b, err);
}

/* The expression of metric name in run r: a derived metric of s, a statistic,
 * or a stored column (exact or unique prefix); *virt 1 unless a stored column;
 * with canon, *canon the name views label it with (malloc'd). */
static int build(qvm *p, const cct_query *s, const qrun *r, const char *name, int depth, int *virt, char **canon,
                 cct_err *err) {
  *virt = 1;
  if (depth > 16) return cct_err_set(err, CCT_EUSAGE, "derived metric '%s' is defined through itself", name), -1;
  const qdef *d = find_def(s, name);
  if (d) {
    if (canon && !(*canon = strdup(d->name))) return cct_err_set(err, CCT_ENOMEM, "out of memory"), -1;
    return build_def(p, s, r, d, d->root, depth, err);
  }
  char *base;
  int st = split_stat(name, &base);
  if (st >= 0) {
    size_t col = 0;
    cct_err e = CCT_ERR_INIT;
    int x = -2;
    if (!q_metric_column(r, base, &col, &e)) x = stat_expr(p, r, r->cols[col].name, st, err);
    free(base);
    if (x >= 0 && canon && !(*canon = xprintf("%s:%s", r->cols[col].name, stat_names[st])))
      return cct_err_set(err, CCT_ENOMEM, "out of memory"), -1;
    if (x != -2) return x;
  }
  size_t col;
  const char *sum = NULL;
  char *plain = NULL;
  if (strlen(name) > 4 && !strcasecmp(name + strlen(name) - 4, ":Sum")) /* hpcviewer's name of the sum */
    sum = plain = strndup(name, strlen(name) - 4);
  int rc = q_metric_column(r, sum ? sum : name, &col, err);
  free(plain);
  if (rc) return -1;
  *virt = 0;
  if (canon && !(*canon = strdup(r->cols[col].name))) return cct_err_set(err, CCT_ENOMEM, "out of memory"), -1;
  return leaf(p, r, col, err);
}

/* Adds column name (once) to the plan's outputs. */
static int add_out(qvm *p, const cct_query *s, const qrun *r, const char *name, cct_err *err) {
  for (size_t i = 0; i < p->nout; i++)
    if (!strcasecmp(p->out[i].name, name)) return CCT_OK;
  if (p->nout == CCT_VIEW_MAX_METRICS) return CCT_OK; /* no room: as the engine, columns past the limit are left out */
  int virt;
  char *nm = NULL;
  int x = build(p, s, r, name, 0, &virt, &nm, err);
  if (x < 0) {
    free(nm);
    return err->code ? err->code : cct_err_set(err, CCT_ENOTFOUND, "no metric '%s'", name);
  }
  for (size_t i = 0; i < p->nout; i++)
    if (!strcmp(p->out[i].name, nm)) return free(nm), CCT_OK; /* the same metric by another name */
  /* no percentages of statistics and derived metrics (hpcviewer shows them for sums;
   * a share of a ratio's program value means nothing) */
  char *b = NULL;
  int st = virt && !find_def(s, nm) ? split_stat(nm, &b) : -1;
  free(b);
  p->out[p->nout++] = (vout){nm, x, virt, virt, st > S_MEAN};
  p->active |= virt;
  return CCT_OK;
}

void q_vm_free(qvm *p) {
  if (!p) return;
  for (size_t i = 0; i < p->nops; i++) free(p->ops[i]);
  for (size_t i = 0; i < p->nout; i++) free(p->out[i].name);
  free(cct_unconst(p->spec.columns));
  free(p->n);
  free(p);
}

int q_vm_plan(cct_query *s, const cct_view_spec *spec, qvm **out, cct_err *err) {
  *out = NULL;
  const qrun *r;
  int rc = q_run_get(&s->a, spec->run ? spec->run : s->r->run, &r, err);
  if (rc) return rc;
  qvm *p = calloc(1, sizeof *p);
  if (!p) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  p->spec = *spec;
  p->spec.columns = NULL;
  p->threshold = spec->threshold;
  p->flat_n = spec->flat_n;
  p->sort = spec->sort;
  p->view = spec->view;
  if (r->ncols) {
    size_t disp;
    if (!spec->metric) rc = q_metric_column(r, NULL, &disp, err), rc = rc ? rc : add_out(p, s, r, r->cols[disp].name, err);
    else rc = add_out(p, s, r, spec->metric, err);
    if (!rc) p->disp_virtual = p->out[0].virt;
    for (size_t i = 0; !rc && i < spec->ncolumns; i++) {
      cct_err e = CCT_ERR_INIT;
      if (spec->columns[i] && add_out(p, s, r, spec->columns[i], &e) == CCT_ENOMEM) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
      /* else a name the run lacks: left out, as the engine does */
    }
    p->nshown = p->nout;
    /* Then (unless only_display) the run's other 'sum' metrics that have data, four columns in all. */
    for (size_t i = 0; !rc && !spec->only_display && i < r->nsum && p->nout < 4; i++)
      if (r->root_incl[i] != 0) rc = add_out(p, s, r, r->cols[i].name, err);
  }
  const char **cols = calloc(p->nops + 1, sizeof *cols);
  if (!rc && !cols) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
  if (rc) {
    free(cols);
    q_vm_free(p);
    return rc;
  }
  /* The engine computes the operands: the first as its display metric (what it sorts
   * by when the display metric is stored; the order is redone here when it is not). */
  for (size_t i = 0; i < p->nops; i++) cols[i] = p->ops[i];
  p->spec.metric = p->nops ? p->ops[p->out[0].virt ? 0 : p->n[p->out[0].root].leaf] : spec->metric;
  p->spec.columns = cols;
  p->spec.ncolumns = p->nops;
  p->spec.only_display = 1;
  /* the operands are not the shown values: no threshold or row limit on them (the hot
   * path follows the shown value: q_vm_bind, q_vm_value) */
  if (p->disp_virtual) p->spec.threshold = 0, p->spec.flat_n = 0;
  *out = p;
  return CCT_OK;
}

const cct_view_spec *q_vm_spec(const qvm *p) { return &p->spec; }

size_t q_vm_shown(const qvm *p) { return p ? p->nshown : 0; }

int q_vm_is_virtual(cct_query *s, int run, const char *name) {
  const qrun *r;
  cct_err e = CCT_ERR_INIT;
  if (!name || q_run_get(&s->a, run ? run : s->r->run, &r, &e)) return 0;
  qvm p = {0};
  int virt = 0;
  int x = build(&p, s, r, name, 0, &virt, NULL, &e);
  for (size_t i = 0; i < p.nops; i++) free(p.ops[i]);
  free(p.n);
  return x >= 0 && virt;
}

/* ---- evaluation ---- */

static double eval(const qvm *p, int x, const double *v, const double *tot) {
  const vx *n = &p->n[x];
  switch (n->op) {
  case X_NUM: return n->num;
  case X_LEAF: return v[n->leaf];
  case X_TOTAL: return tot[n->leaf];
  case X_NEG: return -eval(p, n->a, v, tot);
  case X_SQRT: {
    double a = eval(p, n->a, v, tot);
    return a < 0 ? (a > -1e-9 * fabs(a) ? 0 : NAN) : sqrt(a);
  }
  default: break;
  }
  double a = eval(p, n->a, v, tot), b = eval(p, n->b, v, tot);
  switch (n->op) {
  case X_ADD: return a + b;
  case X_SUB: return a - b;
  case X_MUL: return a * b;
  case X_DIV: return b == 0 ? NAN : a / b; /* an empty value, not inf */
  case X_MIN: return isnan(a) ? b : isnan(b) ? a : a < b ? a : b;
  case X_MAX: return isnan(a) ? b : isnan(b) ? a : a > b ? a : b;
  default: return NAN;
  }
}

/* Replaces *arr (values per engine column) by the plan's columns; map[k] is the
 * engine column of operand k, tot the engine's program totals.  Returns 0 or -1
 * (out of memory). */
static int remap(const qvm *p, double **arr, const size_t *map, const double *total, int merged) {
  if (!*arr) return 0;
  double ops[CCT_VIEW_MAX_METRICS], tot[CCT_VIEW_MAX_METRICS];
  for (size_t k = 0; k < p->nops; k++) ops[k] = (*arr)[map[k]], tot[k] = total[map[k]];
  double *n = calloc(p->nout + 1, sizeof *n);
  if (!n) return -1;
  for (size_t j = 0; j < p->nout; j++) {
    double x = eval(p, p->out[j].root, ops, tot);
    /* a stored column keeps its value; a virtual one computed from none is empty */
    n[j] = (p->out[j].virt && isinf(x)) || (merged && p->out[j].nonlinear) ? NAN : x;
  }
  free(*arr);
  *arr = n;
  return 0;
}

/* Sorting the rows again by a virtual display metric. */
typedef struct vsort {
  const cct_view *v;
  int sort;
} vsort;
static vsort g_sort; /* qsort has no context argument; views compute on one thread */

static double key_of(const cct_row *r, int excl) {
  double d = excl ? r->exclusive[0] : r->inclusive[0];
  return isnan(d) ? -INFINITY : d;
}

static int cmp_rows(const void *a, const void *b) {
  const cct_row *x = &g_sort.v->rows[*(const size_t *)a], *y = &g_sort.v->rows[*(const size_t *)b];
  if (g_sort.sort != CCT_SORT_NAME) {
    double kx, ky;
    if (g_sort.sort == CCT_SORT_OCCURRENCES) kx = (double)x->occurrences, ky = (double)y->occurrences;
    else kx = key_of(x, g_sort.sort == CCT_SORT_EXCLUSIVE), ky = key_of(y, g_sort.sort == CCT_SORT_EXCLUSIVE);
    if (kx != ky) return kx > ky ? -1 : 1;
  }
  int c = strcmp(x->name ? x->name : "", y->name ? y->name : "");
  return c ? c : (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

typedef struct reorder {
  cct_view *v;
  size_t **kids, *nkids;
  cct_row *rows;
  lastrow *facts;
  size_t n;
  double cut;
  unsigned char *pick; /* flat tree N: the rows picked (pick_rows), NULL: every row */
} reorder;

static void emit_row(reorder *o, size_t i, int parent) {
  cct_row *r = &o->v->rows[i];
  size_t self = o->n++;
  o->rows[self] = *r;
  o->rows[self].handle = (int)self + 1;
  o->rows[self].parent = parent;
  if (o->facts) o->facts[self] = ((lastrow *)o->v->priv)[i];
  memset(r, 0, sizeof *r); /* moved */
  for (size_t c = 0; c < o->nkids[i]; c++) {
    size_t k = o->kids[i][c];
    if ((o->cut > 0 && o->v->rows[k].inclusive[0] < o->cut) || (o->pick && !o->pick[k])) continue;
    emit_row(o, k, (int)self);
  }
}

/* flat tree N by a virtual display metric: picks the N heaviest rows that hang from
 * the rows picked (from the top-level ones), as the engine does (views.c, flat_pick).
 * Returns 0 or -1 (out of memory). */
static int pick_rows(reorder *o, const size_t *roots, size_t nroots, size_t n) {
  size_t nrows = o->v->nrows, nc = 0;
  size_t *cand = calloc(nrows + 1, sizeof *cand);
  o->pick = calloc(nrows + 1, 1);
  if (!cand || !o->pick) {
    free(cand);
    return -1;
  }
  for (size_t i = 0; i < nroots; i++) cand[nc++] = roots[i];
  for (size_t picked = 0; picked < n; picked++) {
    long best = -1;
    for (size_t c = 0; c < nc; c++) {
      const cct_row *r = &o->v->rows[cand[c]];
      if (o->cut > 0 && r->inclusive[0] < o->cut) continue;
      if (best < 0 || key_of(r, 0) > key_of(&o->v->rows[cand[best]], 0)) best = (long)c;
    }
    if (best < 0) break;
    size_t x = cand[best];
    cand[best] = cand[--nc];
    o->pick[x] = 1;
    for (size_t k = 0; k < o->nkids[x]; k++) cand[nc++] = o->kids[x][k]; /* each row is a candidate once */
  }
  free(cand);
  return 0;
}

/* Rows of v in the order, threshold and count of the plan, by the first column. */
static int resort(const qvm *p, cct_view *v) {
  size_t n = v->nrows;
  reorder o = {.v = v, .cut = p->threshold > 0 && v->nmetrics && isfinite(v->base[0]) ? p->threshold * v->base[0] : 0};
  o.kids = calloc(n + 1, sizeof *o.kids);
  o.nkids = calloc(n + 1, sizeof *o.nkids);
  size_t *roots = calloc(n + 1, sizeof *roots), nroots = 0;
  o.rows = calloc(n + 1, sizeof *o.rows);
  o.facts = v->priv ? calloc(n + 1, sizeof *o.facts) : NULL;
  int rc = !o.kids || !o.nkids || !roots || !o.rows || (v->priv && !o.facts) ? -1 : 0;
  for (size_t i = 0; !rc && i < n; i++) {
    int par = v->rows[i].parent;
    if (par < 0) {
      roots[nroots++] = i;
      continue;
    }
    size_t *k = cct_reallocarray(o.kids[par], (o.nkids[par] + 1), sizeof *k);
    if (!k) rc = -1;
    else k[o.nkids[par]++] = i, o.kids[par] = k;
  }
  if (!rc) {
    g_sort = (vsort){v, p->sort};
    for (size_t i = 0; i < n; i++)
      if (o.nkids[i]) qsort(o.kids[i], o.nkids[i], sizeof(size_t), cmp_rows);
    if (nroots) qsort(roots, nroots, sizeof *roots, cmp_rows);
    int tree = p->view == CCT_VIEW_FLAT && p->spec.flat_kind == CCT_FLAT_TREE && p->flat_n > 0;
    if (tree && pick_rows(&o, roots, nroots, (size_t)p->flat_n)) rc = -1;
    size_t shown = 0;
    for (size_t i = 0; i < nroots; i++) {
      cct_row *r = &v->rows[roots[i]];
      int top = r->kind == CCT_ROW_CENTER || r->kind == CCT_ROW_ROOT;
      if (!top && o.cut > 0 && r->inclusive[0] < o.cut) continue;
      if (!tree && p->view == CCT_VIEW_FLAT && p->flat_n > 0 && shown >= (size_t)p->flat_n) break;
      if (o.pick && !o.pick[roots[i]]) continue;
      shown++;
      emit_row(&o, roots[i], -1);
    }
    for (size_t i = 0; i < n; i++) { /* rows cut: freed */
      cct_row *r = &v->rows[i];
      free(cct_unconst(r->name)), free(cct_unconst(r->file)), free(cct_unconst(r->module)), free(cct_unconst(r->callsite));
      free(cct_unconst(r->text)), free(r->inclusive), free(r->exclusive), free(r->share);
    }
    free(v->rows);
    v->rows = o.rows;
    v->nrows = o.n;
    if (o.facts) free(v->priv), v->priv = o.facts;
    o.rows = NULL, o.facts = NULL;
  }
  for (size_t i = 0; i < n; i++) free(o.kids[i]);
  free(o.kids), free(o.nkids), free(roots), free(o.rows), free(o.facts), free(o.pick);
  return rc;
}

int q_vm_bind(qvm *p, qv *q, cct_err *err) {
  if (!p || !p->nout) return CCT_OK;
  for (size_t k = 0; k < p->nops; k++) {
    size_t col;
    cct_err e = CCT_ERR_INIT;
    int rc = q_metric_column(q->r, p->ops[k], &col, &e);
    size_t j = 0;
    while (!rc && j < q->nvcols && q->vcols[j] != col) j++;
    if (rc || j == q->nvcols) {
      const char *o = p->ops[k], *sep = strchr(o, '\x1f');
      return cct_err_set(err, CCT_EUSAGE,
                         "'%.*s%s%s' is not in the filtered tree (filters carry the 'sum' metrics only): "
                         "show statistics without filters",
                         (int)(sep ? sep - o : (long)strlen(o)), o, sep ? ":" : "", sep ? sep + 1 : "");
    }
    p->map[k] = j;
    p->tot[k] = q_root_total(q, col);
  }
  if (p->disp_virtual) q->shown = p;
  return CCT_OK;
}

double q_vm_value(const qvm *p, const double *vals) {
  double ops[CCT_VIEW_MAX_METRICS];
  for (size_t k = 0; k < p->nops; k++) ops[k] = vals[p->map[k] * 2];
  return eval(p, p->out[0].root, ops, p->tot);
}

int q_vm_finish(const qvm *p, cct_view *v, cct_err *err) {
  if (!v || !p->nout || !v->nmetrics) return CCT_OK;
  double *total = malloc((v->nmetrics + 1) * sizeof *total);
  if (!total) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  memcpy(total, v->total, v->nmetrics * sizeof *total);
  int lost = 0;
  for (size_t i = 0; i < v->nrows; i++) {
    cct_row *r = &v->rows[i];
    int merged = r->occurrences > 1; /* a flat row of several contexts */
    lost |= remap(p, &r->inclusive, p->map, total, merged) | remap(p, &r->exclusive, p->map, total, merged) |
            remap(p, &r->share, p->map, total, merged);
  }
  lost |= remap(p, &v->base, p->map, total, 0) | remap(p, &v->total, p->map, total, 0);
  free(total);
  for (size_t j = 0; !lost && j < p->nout; j++)
    if (p->out[j].stat) v->base[j] = NAN; /* no percentages of a statistic */
  const char **names = calloc(p->nout + 1, sizeof *names);
  if (!names) lost = 1;
  for (size_t j = 0; names && j < p->nout; j++) lost |= !(names[j] = strdup(p->out[j].name));
  for (size_t i = 0; i < v->nmetrics; i++) free(cct_unconst(v->metrics[i]));
  free(cct_unconst(v->metrics));
  v->metrics = names;
  v->nmetrics = names ? p->nout : 0;
  if (!lost && p->disp_virtual && v->nrows) lost = resort(p, v) != 0;
  return lost ? cct_err_set(err, CCT_ENOMEM, "out of memory") : CCT_OK;
}

/* ---- definitions ---- */

/* Recursive-descent parser of EXPR: expr = term {(+|-) term}; term = unary
 * {(*|/) unary}; unary = - unary | primary; primary = number | ( expr ) |
 * min(expr, expr) | max(expr, expr) | 'quoted name' | name.  A name is the
 * longest metric name of the run (statistics and derived metrics included)
 * that the text starts with, so names with blanks and parentheses need no
 * quotes ('CPUTIME (usec) / 1e6'), else a word of letters, digits, '_', ':'
 * and '.' resolved as 'metric' resolves it (unique prefix). */
typedef struct parser {
  const char *s, *p;
  qdef *d;
  size_t cap;
  char **names;       /* known names, for the longest match */
  size_t nnames;
  cct_err *err;
} parser;

static void blank(parser *ps) {
  while (*ps->p == ' ' || *ps->p == '\t') ps->p++;
}

static int perr(parser *ps, const char *what) {
  if (!ps->err->code)
    cct_err_set(ps->err, CCT_EUSAGE, "%s at character %d of '%s'", what, (int)(ps->p - ps->s) + 1, ps->s);
  return -1;
}

static int dnode(parser *ps, vx x) {
  if (CCT_GROW(ps->d->n, ps->d->nn + 1, ps->cap)) return cct_err_set(ps->err, CCT_ENOMEM, "out of memory"), -1;
  ps->d->n[ps->d->nn] = x;
  return (int)ps->d->nn++;
}

static int expr(parser *ps);

static int is_word(char c) { return isalnum((unsigned char)c) || c == '_' || c == ':' || c == '.'; }

static int leaf_named(parser *ps, const char *name, size_t len) {
  char *nm = strndup(name, len);
  if (!nm) return cct_err_set(ps->err, CCT_ENOMEM, "out of memory"), -1;
  int x = dnode(ps, (vx){.op = X_LEAF, .name = nm, .a = -1, .b = -1});
  if (x < 0) free(nm);
  return x;
}

static int primary(parser *ps) {
  blank(ps);
  const char *p = ps->p;
  if (*p == '(') {
    ps->p++;
    int x = expr(ps);
    blank(ps);
    if (x < 0) return -1;
    if (*ps->p != ')') return perr(ps, "expected ')'");
    ps->p++;
    return x;
  }
  if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) {
    char *end;
    double d = strtod(p, &end);
    ps->p = end;
    return dnode(ps, (vx){.op = X_NUM, .num = d, .a = -1, .b = -1});
  }
  if (*p == '\'' || *p == '"') {
    const char *e = strchr(p + 1, *p);
    if (!e) return perr(ps, "unterminated quote");
    ps->p = e + 1;
    return leaf_named(ps, p + 1, (size_t)(e - p - 1));
  }
  for (int f = 0; f < 2; f++) { /* min( max( */
    const char *fn = f ? "max" : "min";
    if (strncasecmp(p, fn, 3)) continue; /* first: p may hold fewer than 3 characters */
    const char *q = p + 3;
    while (*q == ' ') q++;
    if (*q == '(') {
      ps->p = q + 1;
      int a = expr(ps);
      blank(ps);
      if (a < 0) return -1;
      if (*ps->p != ',') return perr(ps, "expected ','");
      ps->p++;
      int b = expr(ps);
      blank(ps);
      if (b < 0) return -1;
      if (*ps->p != ')') return perr(ps, "expected ')'");
      ps->p++;
      return dnode(ps, (vx){.op = f ? X_MAX : X_MIN, .a = a, .b = b});
    }
  }
  size_t best = 0;
  for (size_t i = 0; i < ps->nnames; i++) {
    size_t l = strlen(ps->names[i]);
    if (l > best && !strncasecmp(p, ps->names[i], l) && !is_word(p[l])) best = l;
  }
  if (!best)
    while (is_word(p[best])) best++;
  if (!best) return perr(ps, *p ? "expected a metric name, a number or '('" : "expression ends early");
  ps->p = p + best;
  return leaf_named(ps, p, best);
}

static int unary(parser *ps) {
  blank(ps);
  if (*ps->p == '-') {
    ps->p++;
    int a = unary(ps);
    return a < 0 ? -1 : dnode(ps, (vx){.op = X_NEG, .a = a, .b = a});
  }
  return primary(ps);
}

static int binary(parser *ps, int level) {
  int a = level ? unary(ps) : binary(ps, 1);
  for (;;) {
    if (a < 0) return -1;
    blank(ps);
    char c = *ps->p;
    int op = level ? (c == '*' ? X_MUL : c == '/' ? X_DIV : -1) : (c == '+' ? X_ADD : c == '-' ? X_SUB : -1);
    if (op < 0) return a;
    ps->p++;
    int b = level ? unary(ps) : binary(ps, 1);
    if (b < 0) return -1;
    a = dnode(ps, (vx){.op = op, .a = a, .b = b});
  }
}

static int expr(parser *ps) { return binary(ps, 0); }

static void def_free(qdef *d) {
  for (size_t i = 0; i < d->nn; i++) free(d->n[i].name);
  free(d->n), free(d->name), free(d->text);
  memset(d, 0, sizeof *d);
}

void q_vm_defs_free(cct_query *s) {
  for (size_t i = 0; i < s->ndefs; i++) def_free(&s->defs[i]);
  free(s->defs);
  s->defs = NULL;
  s->ndefs = 0;
}

/* Appends the names of run r (stored, statistics, derived) to *names. */
static int known_names(const cct_query *s, const qrun *r, char ***names, size_t *n) {
  size_t cap = r->nsum * (S_COUNT + 1) + s->ndefs + 1;
  char **v = calloc(cap, sizeof *v);
  if (!v) return -1;
  size_t k = 0;
  for (size_t i = 0; i < r->nsum; i++) {
    v[k++] = strdup(r->cols[i].name);
    for (int st = 0; st < S_COUNT; st++) {
      long S, Q, N;
      if (!stat_cols(r, r->cols[i].name, st, &S, &Q, &N)) v[k++] = xprintf("%s:%s", r->cols[i].name, stat_names[st]);
    }
  }
  for (size_t i = 0; i < s->ndefs; i++) v[k++] = strdup(s->defs[i].name);
  int lost = 0;
  for (size_t i = 0; i < k; i++) lost |= !v[i];
  *names = v, *n = k;
  return lost ? -1 : 0;
}

int cct_query_define(cct_query *s, const char *name, const char *text, cct_err *err) {
  while (*name == ' ') name++;
  size_t nl = strlen(name);
  while (nl && name[nl - 1] == ' ') nl--;
  if (!nl) return cct_err_set(err, CCT_EUSAGE, "need a NAME: metric define NAME = EXPR");
  qdef d = {0};
  char **names = NULL;
  size_t nnames = 0;
  parser ps = {.d = &d, .err = err};
  int rc = CCT_OK;
  while (*text == ' ') text++;
  if (!(d.name = strndup(name, nl)) || !(d.text = strdup(text)) || known_names(s, s->r, &names, &nnames))
    rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
  if (!rc) {
    const qrun *r = s->r;
    size_t col;
    cct_err e = CCT_ERR_INIT;
    if (!q_metric_column(r, d.name, &col, &e) && !strcasecmp(r->cols[col].name, d.name))
      rc = cct_err_set(err, CCT_EUSAGE, "'%s' is a stored metric of run %d; choose another name", d.name, r->run);
  }
  if (!rc) {
    ps.s = ps.p = d.text;
    ps.names = names, ps.nnames = nnames;
    d.root = expr(&ps);
    blank(&ps);
    if (d.root >= 0 && *ps.p) perr(&ps, "unexpected text");
    rc = err->code;
  }
  for (size_t i = 0; i < nnames; i++) free(names[i]);
  free(names);
  if (!rc) { /* every name must resolve in the current run */
    qvm p = {0};
    for (size_t i = 0; !rc && i < d.nn; i++) {
      int virt;
      if (d.n[i].op != X_LEAF) continue;
      if (!strcasecmp(d.n[i].name, d.name)) rc = cct_err_set(err, CCT_EUSAGE, "'%s' is defined through itself", d.name);
      else if (build(&p, s, s->r, d.n[i].name, 1, &virt, NULL, err) < 0) rc = err->code ? err->code : CCT_ENOTFOUND;
    }
    for (size_t i = 0; i < p.nops; i++) free(p.ops[i]);
    free(p.n);
  }
  if (rc) {
    def_free(&d);
    return rc;
  }
  for (size_t i = 0; i < s->ndefs; i++)
    if (!strcasecmp(s->defs[i].name, d.name)) {
      def_free(&s->defs[i]);
      s->defs[i] = d;
      return CCT_OK;
    }
  qdef *g = cct_reallocarray(s->defs, (s->ndefs + 1), sizeof *g);
  if (!g) {
    def_free(&d);
    return cct_err_set(err, CCT_ENOMEM, "out of memory");
  }
  s->defs = g;
  s->defs[s->ndefs++] = d;
  return CCT_OK;
}

size_t cct_query_defines(const cct_query *s, size_t i, const char **name, const char **text) {
  if (i < s->ndefs) {
    if (name) *name = s->defs[i].name;
    if (text) *text = s->defs[i].text;
  }
  return s->ndefs;
}

int cct_query_find_metric(cct_query *s, const char *name, char **canon, cct_err *err) {
  *canon = NULL;
  qvm *p = NULL;
  cct_view_spec spec = {.run = s->r->run, .metric = name, .only_display = 1};
  int rc = q_vm_plan(s, &spec, &p, err);
  if (rc) return rc;
  if (!p->nout) rc = cct_err_set(err, CCT_ENOTFOUND, "run %d has no metrics", s->r->run);
  else if (!(*canon = strdup(p->out[0].name))) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
  q_vm_free(p);
  return rc;
}
