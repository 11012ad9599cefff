/* derive.c: the fourth reader: a run of a cctq archive, read back and
 * transformed by filters (SPEC section 5: keep, drop, hide, prune, recursion),
 * handed to the writer like any database, so that a filtered run is an
 * archive run like the others and every view, center, export and check runs
 * on it unchanged (cct_ingest_derive; used by the query library's filters).
 *
 * The tree is held in memory as linked nodes in the run's pre-order.  A filter
 * removes nodes (drop, keep, prune), or removes nodes and moves their children
 * (hide: to the parent; recursion: to the outermost frame of the same
 * function).  Values are never recomputed from scratch: a node untouched keeps
 * the database's figures exactly; a change adds to or subtracts from the
 * values of the nodes it affects (inclusive: the ancestors; exclusive, the
 * 'function' scope: the lexical chain up to the enclosing frame; the lex_aware
 * exclusive: the chain up to the enclosing loop or frame).  Every change is
 * logged as such an operation on node values, and the log is replayed on each
 * profile's values, so per-profile figures (stats) follow the same filters. */
#include "cct_util.h"
#include "cct_schema.h"
#include "cct_sqlite.h"
#include "idmap.h"
#include "ingest_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

/* One context of the run. */
typedef struct dnode {
  int64_t function, file, line, module, offset; /* archive ids (0: none), line -1: none */
  uint32_t id;                                  /* the database's id */
  int32_t parent, first, lastc, prev, next;     /* current tree links, -1: none */
  unsigned char kind, relation, callsite, frame, gone, opened;
} dnode;

/* A logged change of values: op on the values of the nodes targets[t0..t0+nt). */
enum { OP_ADD, OP_SUB, OP_SET, OP_ZERO };
enum { C_INCL, C_EXCL, C_LEX }; /* value components of a node and metric */
typedef struct dop {
  int32_t src;           /* the node whose value is read (before the change) */
  unsigned char op, from, to; /* OP_*, C_* read from src, C_* changed in the targets */
  uint32_t t0, nt;
} dop;

typedef struct dtree {
  dnode *n;
  size_t nn;
  int32_t root;
  size_t nm;        /* 'sum' metric columns */
  int64_t maxfn;    /* the largest function id of a node (arrays per function are this long + 1) */
  double *val;      /* summary values: nn x nm x 3 (C_*) */
  dop *ops;
  size_t nops, opcap;
  uint32_t *tg;     /* op targets */
  size_t ntg, tgcap;
  cct_idmap ids;    /* database id -> node */
  cct_err *err;
} dtree;

static int oom(dtree *t) { return cct_err_set(t->err, CCT_ENOMEM, "out of memory filtering the run"); }

/* ---- values and the log ---- */

/* Applies op o to a layer of values: stride comps per node and metric (3, or 2
 * for a profile, which has no lex_aware exclusive: ops on it are skipped). */
static void apply(const dtree *t, const dop *o, double *v, size_t nm, size_t comps) {
  if (comps < 3 && (o->from == C_LEX || o->to == C_LEX)) return;
  for (size_t m = 0; m < nm; m++) {
    double s = o->src >= 0 ? v[((size_t)o->src * nm + m) * comps + o->from] : 0;
    for (uint32_t k = 0; k < o->nt; k++) {
      double *d = &v[((size_t)t->tg[o->t0 + k] * nm + m) * comps];
      switch (o->op) {
      case OP_ADD: d[o->to] += s; break;
      case OP_SUB: d[o->to] -= s; break;
      case OP_SET: d[o->to] = s; break;
      default: memset(d, 0, comps * sizeof *d);
      }
    }
  }
}

/* Starts an op reading component from of src; targets follow with target(). */
static dop *op_begin(dtree *t, int op, int32_t src, int from, int to) {
  if (CCT_GROW(t->ops, t->nops + 1, t->opcap)) return oom(t), NULL;
  dop *o = &t->ops[t->nops++];
  *o = (dop){src, (unsigned char)op, (unsigned char)from, (unsigned char)to, (uint32_t)t->ntg, 0};
  return o;
}

static int target(dtree *t, dop *o, int32_t node) {
  if (CCT_GROW(t->tg, t->ntg + 1, t->tgcap)) return oom(t);
  t->tg[t->ntg++] = (uint32_t)node;
  o->nt++;
  return CCT_OK;
}

/* Ends the op: applies it to the summary values. */
static int op_end(dtree *t) {
  apply(t, &t->ops[t->nops - 1], t->val, t->nm, 3);
  return CCT_OK;
}

/* The chains an op changes, from node p upwards. */
enum { CH_ANCESTORS, CH_LEXICAL, CH_LOOP, CH_SELF };

static int is_frame(const dnode *x) { return x->frame; }

/* One op on the chain of kind ch starting at p (CH_ANCESTORS: p and its
 * ancestors up to, not including, stop; CH_LEXICAL: p up to its frame;
 * CH_LOOP: p up to its loop or frame; CH_SELF: p). */
static int op_chain(dtree *t, int op, int32_t src, int from, int to, int ch, int32_t p, int32_t stop) {
  if (p < 0) return CCT_OK;
  dop *o = op_begin(t, op, src, from, to);
  if (!o) return CCT_ENOMEM;
  for (int32_t x = p; x >= 0 && x != stop; x = t->n[x].parent) {
    if (target(t, &t->ops[t->nops - 1], x)) return CCT_ENOMEM;
    const dnode *d = &t->n[x];
    if (ch == CH_SELF || (ch == CH_LEXICAL && is_frame(d)) || (ch == CH_LOOP && (is_frame(d) || d->kind == CCT_KIND_LOOP)))
      break;
  }
  return op_end(t);
}

/* ---- tree surgery ---- */

static void unlink_node(dtree *t, int32_t i) {
  dnode *x = &t->n[i];
  if (x->prev >= 0) t->n[x->prev].next = x->next;
  else if (x->parent >= 0) t->n[x->parent].first = x->next;
  if (x->next >= 0) t->n[x->next].prev = x->prev;
  else if (x->parent >= 0) t->n[x->parent].lastc = x->prev;
  x->prev = x->next = -1;
  x->gone = 1;
}

/* Moves the children of i under p: in i's place when p is i's parent (i is
 * then unlinked), else appended to p's children. */
static void move_children(dtree *t, int32_t i, int32_t p) {
  dnode *x = &t->n[i];
  for (int32_t c = x->first; c >= 0; c = t->n[c].next) t->n[c].parent = p;
  if (x->first < 0) {
    unlink_node(t, i);
    return;
  }
  int32_t f = x->first, l = x->lastc;
  x->first = x->lastc = -1;
  if (p == x->parent) { /* splice in place of i */
    t->n[f].prev = x->prev;
    t->n[l].next = x->next;
    if (x->prev >= 0) t->n[x->prev].next = f;
    else t->n[p].first = f;
    if (x->next >= 0) t->n[x->next].prev = l;
    else t->n[p].lastc = l;
    x->prev = x->next = -1;
    x->gone = 1;
    return;
  }
  unlink_node(t, i);
  dnode *q = &t->n[p];
  t->n[f].prev = q->lastc;
  if (q->lastc >= 0) t->n[q->lastc].next = f;
  else q->first = f;
  q->lastc = l;
}

/* Whether node i is still in the tree. */
static int alive(const dtree *t, int32_t i) {
  for (int32_t x = i; x >= 0; x = t->n[x].parent)
    if (t->n[x].gone) return 0;
  return 1;
}

/* The nodes of step s that are still in the tree, in pre-order; with
 * outermost, only those with no proper ancestor among them. */
static int occurrences(dtree *t, const cct_derive_step *s, int outermost, int32_t **out, size_t *nout) {
  *out = NULL;
  *nout = 0;
  int32_t *v = malloc((s->nids + 1) * sizeof *v);
  unsigned char *in = calloc(t->nn, 1);
  if (!v || !in) return free(v), free(in), oom(t);
  size_t n = 0;
  for (size_t i = 0; i < s->nids; i++) {
    int64_t *x = cct_idmap_get(&t->ids, s->ids[i], 0);
    if (x && alive(t, (int32_t)*x) && !in[*x]) in[*x] = 1, v[n++] = (int32_t)*x;
  }
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    int inner = 0;
    for (int32_t a = t->n[v[i]].parent; outermost && a >= 0 && !inner; a = t->n[a].parent) inner = in[a];
    if (!inner) v[k++] = v[i];
  }
  free(in);
  *out = v;
  *nout = k;
  return CCT_OK;
}

/* drop: the subtrees of the outermost occurrences go, with their cost. */
static int f_drop(dtree *t, const int32_t *o, size_t n) {
  for (size_t i = 0; i < n; i++) {
    int32_t d = o[i], p = t->n[d].parent;
    if (p < 0) continue; /* the root stays (with its values) */
    int rc = op_chain(t, OP_SUB, d, C_INCL, C_INCL, CH_ANCESTORS, p, -1);
    if (!rc && !is_frame(&t->n[d])) rc = op_chain(t, OP_SUB, d, C_EXCL, C_EXCL, CH_LEXICAL, p, -1);
    if (!rc && !is_frame(&t->n[d]) && t->n[d].kind != CCT_KIND_LOOP)
      rc = op_chain(t, OP_SUB, d, C_LEX, C_LEX, CH_LOOP, p, -1);
    if (rc) return rc;
    unlink_node(t, d);
  }
  return CCT_OK;
}

/* keep: only the subtrees of the outermost occurrences and their ancestors stay;
 * an ancestor's inclusive is the sum below it, its exclusive 0. */
static int f_keep(dtree *t, const int32_t *o, size_t n) {
  unsigned char *mark = calloc(t->nn, 1); /* 1 ancestor, 2 occurrence */
  if (!mark) return oom(t);
  for (size_t i = 0; i < n; i++) mark[o[i]] = 2;
  for (size_t i = 0; i < n; i++)
    for (int32_t a = t->n[o[i]].parent; a >= 0 && !mark[a]; a = t->n[a].parent) mark[a] = 1;
  int rc = CCT_OK;
  if (!mark[t->root]) mark[t->root] = 1; /* nothing kept: the root alone, zero */
  if (mark[t->root] == 1) {
    /* remove what is neither; walk the ancestors' children */
    for (size_t i = 0; i < t->nn; i++) {
      if (mark[i] != 1 || t->n[i].gone) continue;
      for (int32_t c = t->n[i].first, nx; c >= 0; c = nx) {
        nx = t->n[c].next;
        if (!mark[c]) unlink_node(t, c);
      }
    }
    for (size_t i = 0; !rc && i < t->nn; i++)
      if (mark[i] == 1) rc = op_chain(t, OP_ZERO, -1, 0, 0, CH_SELF, (int32_t)i, -1);
    for (size_t i = 0; !rc && i < n; i++) rc = op_chain(t, OP_ADD, o[i], C_INCL, C_INCL, CH_ANCESTORS, t->n[o[i]].parent, -1);
  }
  free(mark);
  return rc;
}

/* prune: the callees (everything below) of the outermost occurrences go; their
 * cost becomes the occurrence's own (exclusive = inclusive). */
static int f_prune(dtree *t, const int32_t *o, size_t n) {
  int rc = CCT_OK;
  for (size_t i = 0; !rc && i < n; i++) {
    int32_t x = o[i], p = t->n[x].parent;
    if (!is_frame(&t->n[x])) { /* the cost is now lexical in the enclosing frame */
      rc = op_chain(t, OP_ADD, x, C_INCL, C_EXCL, CH_LEXICAL, p, -1);
      if (!rc) rc = op_chain(t, OP_SUB, x, C_EXCL, C_EXCL, CH_LEXICAL, p, -1);
      if (!rc && t->n[x].kind != CCT_KIND_LOOP) rc = op_chain(t, OP_ADD, x, C_INCL, C_LEX, CH_LOOP, p, -1);
      if (!rc && t->n[x].kind != CCT_KIND_LOOP) rc = op_chain(t, OP_SUB, x, C_LEX, C_LEX, CH_LOOP, p, -1);
    }
    if (!rc) rc = op_chain(t, OP_SET, x, C_INCL, C_EXCL, CH_SELF, x, -1);
    if (!rc) rc = op_chain(t, OP_SET, x, C_INCL, C_LEX, CH_SELF, x, -1);
    for (int32_t c = t->n[x].first, nx; !rc && c >= 0; c = nx) {
      nx = t->n[c].next;
      unlink_node(t, c);
    }
  }
  return rc;
}

/* hide: every occurrence goes; its children take its place under its parent
 * and its own cost is the parent's (a frame's exclusive joins the caller's). */
static int f_hide(dtree *t, const int32_t *o, size_t n) {
  int rc = CCT_OK;
  for (size_t i = 0; !rc && i < n; i++) {
    int32_t h = o[i], p = t->n[h].parent;
    if (p < 0) continue; /* the root cannot be hidden */
    if (is_frame(&t->n[h])) {
      /* A frame called from a call-site line takes that line's place in line views: its
       * children go where the line is (beside it, in the caller), the line keeps its own cost. */
      const dnode *pp = &t->n[p];
      if (pp->kind == CCT_KIND_LINE && pp->callsite && pp->parent >= 0) {
        rc = op_chain(t, OP_SUB, h, C_INCL, C_INCL, CH_SELF, p, -1);
        p = pp->parent;
      }
      if (!rc) rc = op_chain(t, OP_ADD, h, C_EXCL, C_EXCL, CH_LEXICAL, p, -1);
      if (!rc) rc = op_chain(t, OP_ADD, h, C_LEX, C_LEX, CH_LOOP, p, -1);
    } else if (t->n[h].kind == CCT_KIND_LOOP) {
      rc = op_chain(t, OP_ADD, h, C_LEX, C_LEX, CH_LOOP, p, -1);
    }
    if (!rc) move_children(t, h, p);
  }
  return rc;
}

/* The node after i's subtree in pre-order (-1 at the end), leaving i and the
 * ancestors it climbs (recursion: open counts per function). */
static int32_t after(dtree *t, int32_t i, int *open) {
  for (;;) {
    dnode *x = &t->n[i];
    if (x->opened) open[x->function]--, x->opened = 0;
    if (i == t->root) return -1;
    if (x->next >= 0) return x->next;
    i = x->parent;
  }
}

/* recursion: a frame of a function inside a frame of the same function (of the
 * item's functions, or of any) is merged into the outermost one: its children
 * move there, its own cost is that frame's, the frames between lose it. */
static int f_recursion(dtree *t, const int32_t *o, size_t n, int every) {
  int64_t maxfn = t->maxfn;
  int *open = calloc((size_t)maxfn + 1, sizeof *open);
  int32_t *outer = calloc((size_t)maxfn + 1, sizeof *outer);
  unsigned char *fold = calloc((size_t)maxfn + 1, 1);
  if (!open || !outer || !fold) return free(open), free(outer), free(fold), oom(t);
  for (size_t i = 0; i < n; i++)
    if (t->n[o[i]].frame && t->n[o[i]].kind != CCT_KIND_ROOT) fold[t->n[o[i]].function] = 1;
  int rc = CCT_OK;
  int32_t i = t->root;
  while (!rc && i >= 0) {
    dnode *x = &t->n[i];
    int64_t f = x->function;
    if (x->frame && x->kind != CCT_KIND_ROOT && f > 0 && (every || fold[f])) {
      if (open[f]) {
        int32_t a = outer[f], nx = x->next, p = x->parent, c = x->first;
        rc = op_chain(t, OP_SUB, i, C_INCL, C_INCL, CH_ANCESTORS, p, a);
        if (!rc) rc = op_chain(t, OP_ADD, i, C_EXCL, C_EXCL, CH_SELF, a, -1);
        if (!rc) rc = op_chain(t, OP_ADD, i, C_LEX, C_LEX, CH_SELF, a, -1);
        move_children(t, i, a);
        i = p == a && c >= 0 ? c : nx >= 0 ? nx : after(t, p, open); /* spliced children: walked next */
        continue;
      }
      if (!open[f]++) outer[f] = i;
      x->opened = 1;
    }
    i = x->first >= 0 ? x->first : after(t, i, open);
  }
  free(open);
  free(outer);
  free(fold);
  return rc;
}

static int apply_step(dtree *t, const cct_derive_step *s) {
  int32_t *o = NULL;
  size_t n = 0;
  int every = s->kind == CCT_FILTER_RECURSION && !s->nids;
  int rc = occurrences(t, s, s->kind != CCT_FILTER_HIDE && s->kind != CCT_FILTER_RECURSION, &o, &n);
  if (rc) return rc;
  switch (s->kind) {
  case CCT_FILTER_KEEP: rc = f_keep(t, o, n); break;
  case CCT_FILTER_DROP: rc = f_drop(t, o, n); break;
  case CCT_FILTER_HIDE: rc = f_hide(t, o, n); break;
  case CCT_FILTER_PRUNE: rc = f_prune(t, o, n); break;
  case CCT_FILTER_RECURSION: rc = f_recursion(t, o, n, every); break;
  default: rc = cct_err_set(t->err, CCT_EUSAGE, "no filter kind %d", s->kind);
  }
  free(o);
  return rc;
}

/* ---- reading the run ---- */

static int prep(sqlite3 *db, const char *name, int run, sqlite3_stmt **st, cct_err *err) {
  int rc = cct_schema_prepare_named(db, cct_sql_derive, name, st, err);
  if (!rc) sqlite3_bind_int(*st, 1, run);
  return rc;
}

static int step_fail(sqlite3 *db, sqlite3_stmt *st, int rc, cct_err *err) {
  sqlite3_finalize(st);
  return cct_err_set(err, rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB ? CCT_ECORRUPT : CCT_ESQL,
                     "cannot read the run to filter: %s", sqlite3_errmsg(db));
}

static int64_t opt_id(sqlite3_stmt *st, int col) {
  return sqlite3_column_type(st, col) == SQLITE_NULL ? CCT_NONE : sqlite3_column_int64(st, col);
}

/* Loads the tree (pre-order, links from the pre/last intervals) and the summary values. */
static int load_tree(sqlite3 *db, int run, int64_t root_pre, int64_t root_last, const int64_t *mids, dtree *t,
                     cct_err *err) {
  sqlite3_stmt *st = NULL;
  int rc = prep(db, "contexts", run, &st, err), s;
  if (rc) return rc;
  sqlite3_bind_int64(st, 2, root_pre);
  sqlite3_bind_int64(st, 3, root_last);
  size_t cap = (size_t)(root_last - root_pre + 1);
  t->n = calloc(cap ? cap : 1, sizeof *t->n);
  int32_t *stack = malloc((cap ? cap : 1) * sizeof *stack);
  int64_t *lasts = malloc((cap ? cap : 1) * sizeof *lasts);
  if (!t->n || !stack || !lasts) return free(stack), free(lasts), sqlite3_finalize(st), oom(t);
  size_t top = 0;
  while ((s = sqlite3_step(st)) == SQLITE_ROW) {
    if (t->nn == cap) break;
    int32_t i = (int32_t)t->nn++;
    dnode *x = &t->n[i];
    int64_t pre = root_pre + i, last = sqlite3_column_int64(st, 9);
    x->id = (uint32_t)sqlite3_column_int64(st, 0);
    x->kind = (unsigned char)sqlite3_column_int(st, 1);
    x->relation = (unsigned char)sqlite3_column_int(st, 2);
    x->function = sqlite3_column_int64(st, 3);
    if (x->function > t->maxfn) t->maxfn = x->function;
    x->file = sqlite3_column_int64(st, 4);
    x->line = sqlite3_column_type(st, 5) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 5);
    x->module = sqlite3_column_int64(st, 6);
    x->offset = sqlite3_column_int64(st, 7);
    x->callsite = (unsigned char)sqlite3_column_int(st, 8);
    x->frame = (unsigned char)sqlite3_column_int(st, 10);
    x->first = x->lastc = x->prev = x->next = -1;
    while (top && lasts[top - 1] < pre) top--;
    x->parent = top ? stack[top - 1] : -1;
    if (x->parent >= 0) {
      dnode *p = &t->n[x->parent];
      x->prev = p->lastc;
      if (p->lastc >= 0) t->n[p->lastc].next = i;
      else p->first = i;
      p->lastc = i;
    } else if (i) {
      rc = cct_err_set(err, CCT_ECORRUPT, "context %u of run %d lies outside the tree", x->id, run);
      break;
    }
    stack[top] = i;
    lasts[top++] = last;
    int added;
    if (!cct_idmap_put(&t->ids, x->id, 0, i, &added)) {
      rc = oom(t);
      break;
    }
  }
  free(stack);
  free(lasts);
  if (!rc && s != SQLITE_ROW && s != SQLITE_DONE) return step_fail(db, st, s, err);
  sqlite3_finalize(st);
  if (!rc && t->nn != cap) rc = cct_err_set(err, CCT_ECORRUPT, "run %d has %zu contexts, its root spans %zu", run, t->nn, cap);
  if (rc) return rc;
  t->root = 0;
  t->val = calloc(t->nn * (t->nm ? t->nm : 1) * 3, sizeof *t->val);
  if (!t->val) return oom(t);
  for (size_t m = 0; m < t->nm; m++) {
    if ((rc = prep(db, "values", run, &st, err))) return rc;
    sqlite3_bind_int64(st, 2, mids[m]);
    sqlite3_bind_int64(st, 3, root_pre);
    sqlite3_bind_int64(st, 4, root_pre + (int64_t)t->nn - 1);
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
      int64_t i = sqlite3_column_int64(st, 0) - root_pre;
      if (i < 0 || (size_t)i >= t->nn) continue;
      double *v = &t->val[((size_t)i * t->nm + m) * 3];
      for (int c = 0; c < 3; c++) v[c] = sqlite3_column_double(st, 1 + c);
    }
    if (s != SQLITE_DONE) return step_fail(db, st, s, err);
    sqlite3_finalize(st);
  }
  return CCT_OK;
}

/* A value at the noise level of the subtraction that made it is 0. */
static double clean(double v, double scale) { return fabs(v) <= scale * 1e-12 ? 0 : v; }

/* Hands the transformed tree to the writer, in pre-order. */
static int write_tree(dtree *t, const int *has_lex, cct_writer *w) {
  double *scale = calloc(t->nm + 1, sizeof *scale);
  if (!scale) return oom(t);
  for (size_t m = 0; m < t->nm; m++) scale[m] = fabs(t->val[(size_t)t->root * t->nm * 3 + m * 3]);
  int rc = CCT_OK;
  int32_t i = t->root;
  while (!rc && i >= 0) {
    const dnode *x = &t->n[i];
    cct_context c = {x->id, x->kind, x->relation, x->kind == CCT_KIND_FUNCTION ? x->function : CCT_NONE,
                     x->file > 0 ? x->file : CCT_NONE, x->line >= 0 ? x->line : CCT_NONE,
                     x->kind == CCT_KIND_INSTRUCTION && x->module > 0 ? x->module : CCT_NONE, x->offset, x->callsite, 0};
    rc = cct_writer_enter(w, &c);
    for (size_t m = 0; !rc && m < t->nm; m++) {
      /* A database's own figures may disagree by rounding (children's exclusives adding up to a
       * little more than the parent's inclusive): a moved cost never makes exclusive exceed inclusive. */
      const double *v = &t->val[((size_t)i * t->nm + m) * 3];
      double in = clean(v[C_INCL], scale[m]), ex = clean(v[C_EXCL], scale[m]);
      double lx = clean(v[has_lex[m] ? C_LEX : C_EXCL], scale[m]);
      if (in >= 0 && ex > in) ex = in;
      if (lx > ex) lx = ex;
      rc = cct_writer_value(w, (int)m, CCT_INCLUSIVE, in);
      if (!rc) rc = cct_writer_value(w, (int)m, CCT_EXCLUSIVE, ex);
      if (!rc) rc = cct_writer_value(w, (int)m, CCT_EXCLUSIVE_LEX, lx);
    }
    if (rc) break;
    if (x->first >= 0) {
      i = x->first;
      continue;
    }
    for (;;) { /* leave i and the ancestors whose last child it ends */
      if ((rc = cct_writer_exit(w))) break;
      if (i == t->root) {
        i = -1;
        break;
      }
      if (t->n[i].next >= 0) {
        i = t->n[i].next;
        break;
      }
      i = t->n[i].parent;
    }
  }
  free(scale);
  return rc; /* the writer's code: its message is in cct_writer_err(w) */
}

/* A node left in the tree, by database id (the order of profile values). */
typedef struct idnode {
  uint32_t id;
  int32_t node;
} idnode;

static int by_id(const void *a, const void *b) {
  uint32_t x = ((const idnode *)a)->id, y = ((const idnode *)b)->id;
  return (x > y) - (x < y);
}

/* The profiles: each one's values (a zstd frame per metric) read, changed by
 * the logged ops, and written for the nodes left. */
static int write_profiles(sqlite3 *db, int run, const int64_t *mids, dtree *t, cct_writer *w, cct_err *err) {
  sqlite3_stmt *ps = NULL, *vs = NULL;
  int rc = prep(db, "profiles", run, &ps, err), s;
  if (rc) return rc;
  idnode *order = malloc((t->nn + 1) * sizeof *order);
  double *layer = malloc((t->nn + 1) * 2 * sizeof *layer);
  uint32_t *ctx = malloc((t->nn + 1) * sizeof *ctx);
  double *incl = malloc((t->nn + 1) * sizeof *incl), *excl = malloc((t->nn + 1) * sizeof *excl);
  size_t nleft = 0;
  if (!order || !layer || !ctx || !incl || !excl) rc = oom(t);
  for (size_t i = 0; !rc && i < t->nn; i++)
    if (alive(t, (int32_t)i)) order[nleft++] = (idnode){t->n[i].id, (int32_t)i};
  if (!rc) qsort(order, nleft, sizeof *order, by_id);
  while (!rc && (s = sqlite3_step(ps)) == SQLITE_ROW) {
    cct_profile_id id = {-1, -1, -1, -1, -1, -1, (const char *)sqlite3_column_text(ps, 7)};
    int64_t *f[6] = {&id.node, &id.rank, &id.thread, &id.core, &id.gpucontext, &id.gpustream};
    for (int k = 0; k < 6; k++) *f[k] = sqlite3_column_type(ps, 1 + k) == SQLITE_NULL ? -1 : sqlite3_column_int64(ps, 1 + k);
    if ((rc = cct_writer_profile(w, &id))) break;
    for (size_t m = 0; !rc && m < t->nm; m++) {
      memset(layer, 0, t->nn * 2 * sizeof *layer);
      if ((rc = prep(db, "profile_values", run, &vs, err))) break;
      sqlite3_bind_int64(vs, 2, sqlite3_column_int64(ps, 0));
      sqlite3_bind_int64(vs, 3, mids[m]);
      int have = 0;
      if ((s = sqlite3_step(vs)) == SQLITE_ROW) {
        const void *z = sqlite3_column_blob(vs, 0);
        size_t zn = (size_t)sqlite3_column_bytes(vs, 0);
        unsigned long long raw = z ? ZSTD_getFrameContentSize(z, zn) : 0;
        unsigned char *buf = raw >= 4 && raw < ((unsigned long long)1 << 40) ? malloc((size_t)raw) : NULL;
        uint32_t n = 0;
        if (buf && ZSTD_decompress(buf, (size_t)raw, z, zn) == raw) memcpy(&n, buf, 4);
        if (!buf || raw != 4 + (unsigned long long)n * 20) {
          free(buf);
          rc = cct_err_set(err, CCT_ECORRUPT, "damaged per-profile values in run %d", run);
          break;
        }
        for (uint32_t k = 0; k < n; k++) {
          uint32_t cid;
          memcpy(&cid, buf + 4 + 4 * (size_t)k, 4);
          int64_t *x = cct_idmap_get(&t->ids, cid, 0);
          if (!x) continue;
          memcpy(&layer[*x * 2], buf + 4 + 4 * (size_t)n + 8 * (size_t)k, 8);
          memcpy(&layer[*x * 2 + 1], buf + 4 + 12 * (size_t)n + 8 * (size_t)k, 8);
        }
        free(buf);
        have = 1;
      } else if (s != SQLITE_DONE) {
        rc = step_fail(db, vs, s, err);
        vs = NULL;
        break;
      }
      sqlite3_finalize(vs);
      vs = NULL;
      if (!have) continue;
      for (size_t k = 0; k < t->nops; k++) apply(t, &t->ops[k], layer, 1, 2);
      double scale = fabs(layer[(size_t)t->root * 2]);
      size_t cnt = 0;
      for (size_t k = 0; k < nleft; k++) {
        size_t x = (size_t)order[k].node;
        double a = clean(layer[x * 2], scale), b = clean(layer[x * 2 + 1], scale);
        if (a == 0 && b == 0) continue;
        ctx[cnt] = order[k].id, incl[cnt] = a, excl[cnt++] = b;
      }
      rc = cct_writer_profile_values(w, (int)m, cnt, ctx, incl, excl);
    }
  }
  if (!rc && s != SQLITE_ROW && s != SQLITE_DONE) rc = step_fail(db, ps, s, err), ps = NULL;
  sqlite3_finalize(ps);
  free(order);
  free(layer);
  free(ctx);
  free(incl);
  free(excl);
  return rc;
}

/* The run's 'sum' metric columns: ids and whether they have a lex_aware exclusive. */
static int read_metrics(sqlite3 *db, int run, int64_t **mids, int **has_lex, size_t *nm, cct_err *err) {
  sqlite3_stmt *st = NULL;
  int rc = prep(db, "metrics", run, &st, err), s = SQLITE_DONE;
  size_t cap = 0;
  while (!rc && (s = sqlite3_step(st)) == SQLITE_ROW) {
    int *h = NULL;
    if (CCT_GROW(*mids, *nm + 1, cap) || !(h = cct_reallocarray(*has_lex, cap, sizeof *h))) {
      rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
      break;
    }
    *has_lex = h;
    (*mids)[*nm] = sqlite3_column_int64(st, 0);
    (*has_lex)[(*nm)++] = sqlite3_column_int(st, 3);
  }
  if (!rc && s != SQLITE_DONE) return step_fail(db, st, s, err);
  sqlite3_finalize(st);
  return rc;
}

/* Declares the run's modules, files, functions (not the synthetic ones of
 * instruction frames, which the writer makes again) and 'sum' metrics. */
static int declare(sqlite3 *db, int run, const dtree *t, cct_writer *w, cct_err *err) {
  int64_t maxfn = t->maxfn;
  unsigned char *synth = calloc((size_t)maxfn + 1, 1);
  if (!synth) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  for (size_t i = 0; i < t->nn; i++)
    if (t->n[i].frame && t->n[i].kind == CCT_KIND_INSTRUCTION && t->n[i].function > 0) synth[t->n[i].function] = 1;
  sqlite3_stmt *st = NULL;
  int rc = prep(db, "modules", run, &st, err), s = SQLITE_DONE;
  while (!rc && (s = sqlite3_step(st)) == SQLITE_ROW)
    rc = cct_writer_module(w, sqlite3_column_int64(st, 0), (const char *)sqlite3_column_text(st, 1));
  if (!rc && s != SQLITE_DONE) return free(synth), step_fail(db, st, s, err);
  sqlite3_finalize(st);
  st = NULL; /* a stage that failed leaves nothing to finalize again */
  if (!rc) rc = prep(db, "files", run, &st, err);
  while (!rc && (s = sqlite3_step(st)) == SQLITE_ROW)
    rc = cct_writer_file_copy(w, sqlite3_column_int64(st, 0), (const char *)sqlite3_column_text(st, 1),
                              sqlite3_column_type(st, 3) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 2),
                              sqlite3_column_blob(st, 3), (size_t)sqlite3_column_bytes(st, 3));
  if (!rc && s != SQLITE_DONE) return free(synth), step_fail(db, st, s, err);
  sqlite3_finalize(st);
  st = NULL;
  if (!rc) rc = prep(db, "functions", run, &st, err);
  while (!rc && (s = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t id = sqlite3_column_int64(st, 0);
    if (id <= maxfn && synth[id]) continue;
    const char *name = (const char *)sqlite3_column_text(st, 1);
    rc = cct_writer_function(w, id, name ? name : "", opt_id(st, 2), opt_id(st, 3), opt_id(st, 4));
  }
  free(synth);
  if (!rc && s != SQLITE_DONE) return step_fail(db, st, s, err);
  sqlite3_finalize(st);
  st = NULL;
  if (!rc) rc = prep(db, "metrics", run, &st, err);
  while (!rc && (s = sqlite3_step(st)) == SQLITE_ROW)
    if (cct_writer_metric(w, (const char *)sqlite3_column_text(st, 1), "sum", (const char *)sqlite3_column_text(st, 2),
                          sqlite3_column_int(st, 3), err) < 0)
      rc = err->code;
  if (!rc && s != SQLITE_DONE) return step_fail(db, st, s, err);
  sqlite3_finalize(st);
  if (rc && cct_writer_err(w)->code) cct_err_set(err, rc, "%s", cct_writer_err(w)->msg);
  return rc;
}

int cct_read_derived(sqlite3 *db, int run, const cct_derive_step *steps, size_t nsteps, cct_writer *w, cct_err *err) {
  dtree t = {0};
  t.err = err;
  t.ids = (cct_idmap)CCT_IDMAP_INIT;
  int64_t *mids = NULL;
  int *has_lex = NULL;
  sqlite3_stmt *st = NULL;
  int rc = prep(db, "run", run, &st, err);
  int64_t root_pre = 0, root_last = -1;
  if (!rc) {
    int s = sqlite3_step(st);
    if (s == SQLITE_ROW) root_pre = sqlite3_column_int64(st, 4), root_last = sqlite3_column_int64(st, 5);
    else if (s == SQLITE_DONE) rc = cct_err_set(err, CCT_ENOTFOUND, "no run %d with a tree to filter", run);
    else return step_fail(db, st, s, err);
    sqlite3_finalize(st);
  }
  if (!rc) rc = read_metrics(db, run, &mids, &has_lex, &t.nm, err);
  if (!rc) rc = load_tree(db, run, root_pre, root_last, mids, &t, err);
  if (!rc) rc = declare(db, run, &t, w, err);
  for (size_t i = 0; !rc && i < nsteps; i++) rc = apply_step(&t, &steps[i]);
  if (!rc) rc = write_tree(&t, has_lex, w);
  if (!rc) rc = write_profiles(db, run, mids, &t, w, err);
  if (rc && w && cct_writer_err(w)->code) cct_err_set(err, rc, "%s", cct_writer_err(w)->msg);
  free(t.n);
  free(t.val);
  free(t.ops);
  free(t.tg);
  cct_idmap_release(&t.ids);
  free(mids);
  free(has_lex);
  return rc;
}

int cct_ingest_derive(sqlite3 *db, int run, const cct_derive_step *steps, size_t nsteps, const char *out_path,
                      cct_err *err) {
  sqlite3_stmt *st = NULL;
  int rc = cct_schema_prepare_named(db, cct_sql_derive, "run", &st, err);
  if (rc) return rc;
  sqlite3_bind_int(st, 1, run);
  char path[4096] = "", format[64] = "", title[1024] = "", digest[128] = "";
  int s = sqlite3_step(st);
  if (s == SQLITE_ROW) {
    snprintf(path, sizeof path, "%s", (const char *)sqlite3_column_text(st, 0));
    snprintf(format, sizeof format, "%s", (const char *)sqlite3_column_text(st, 1));
    snprintf(title, sizeof title, "%s", (const char *)sqlite3_column_text(st, 2));
    snprintf(digest, sizeof digest, "filtered:%s", (const char *)sqlite3_column_text(st, 3));
  }
  sqlite3_finalize(st);
  if (s != SQLITE_ROW) return cct_err_set(err, CCT_ENOTFOUND, "no run %d to filter", run);
  cct_writer *w = NULL;
  if ((rc = cct_writer_open(out_path, path, format, title, digest, 0, 0, &w, err))) return rc;
  if ((rc = cct_read_derived(db, run, steps, nsteps, w, err))) {
    cct_writer_abort(w);
    return rc;
  }
  return cct_writer_commit(w, NULL, err);
}
