/* filter_tree.c: filters (SPEC section 5: keep, drop, hide, prune, recursion)
 * as transformations of a run's tree image (filter_tree.h), in memory.
 *
 * Each filter works on the tree the previous one made: the tree is linked
 * (parent, first/last child, siblings) over the input's arrays, the filter
 * removes nodes (drop, keep, prune) or removes nodes and moves their children
 * (hide: to the parent; recursion: to the outermost frame of the same
 * function), and the nodes left are written out in pre order as a new
 * cct_tree with every derived field (depth, frames, levels, call sites, frame
 * counts) computed again.  Values are never recomputed from scratch: a node
 * untouched keeps the database's figures exactly; a change adds to or
 * subtracts from the values of the nodes it affects (inclusive: the
 * ancestors; exclusive, the 'function' scope: the lexical chain up to the
 * enclosing frame; the lex_aware exclusive: the chain up to the enclosing
 * loop or frame).  Every change is logged as such an operation, so that the
 * log replays on any metric's values and on each profile's (qf_values), copying
 * only the values it changes. */
#include "filter_tree.h"
#include "cct_kinds.h"
#include "cct_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { OP_ADD, OP_SUB, OP_SET, OP_ZERO };
enum { C_INCL, C_EXCL, C_LEX };
/* The chains an op changes, from a node upwards. */
enum { CH_ANCESTORS, CH_LEXICAL, CH_LOOP, CH_SELF };

/* One filter at work: the input tree, its links as the filter changes them, the log. */
typedef struct work {
  const cct_tree *in;
  int32_t n;
  int32_t *parent, *first, *lastc, *prev, *next, *map;
  uint8_t *gone, *opened, *mark;
  qf_stage *st;
  size_t opcap, tgcap;
  cct_err *err;
} work;

static int oom(work *w) { return cct_err_set(w->err, CCT_ENOMEM, "out of memory filtering the run"); }

static int is_frame(const cct_tree *t, int32_t i) {
  return t->kind[i] == CCT_KIND_ROOT || t->kind[i] == CCT_KIND_FUNCTION ||
         (t->kind[i] == CCT_KIND_INSTRUCTION && t->relation[i] == CCT_REL_CALL);
}

/* ---- the log ---- */

/* Logs one op on the chain of kind ch starting at p (CH_ANCESTORS: p and its ancestors
 * up to, not including, stop; CH_LEXICAL: p up to its frame; CH_LOOP: p up to its loop
 * or frame; CH_SELF: p), over the links as they are now. */
static int op_chain(work *w, int op, int32_t src, int from, int to, int ch, int32_t p, int32_t stop) {
  if (p < 0) return CCT_OK;
  qf_stage *s = w->st;
  if (CCT_GROW(s->ops, s->nops + 1, w->opcap)) return oom(w);
  qf_op *o = &s->ops[s->nops++];
  *o = (qf_op){src, (uint8_t)op, (uint8_t)from, (uint8_t)to, (uint32_t)s->ntg, 0};
  for (int32_t x = p; x >= 0 && x != stop; x = w->parent[x]) {
    if (CCT_GROW(s->tg, s->ntg + 1, w->tgcap)) return oom(w);
    s->tg[s->ntg++] = x;
    o->nt++;
    int fr = is_frame(w->in, x);
    if (ch == CH_SELF || (ch == CH_LEXICAL && fr) || (ch == CH_LOOP && (fr || w->in->kind[x] == CCT_KIND_LOOP))) break;
  }
  return CCT_OK;
}

/* ---- tree surgery on the links ---- */

static void unlink_node(work *w, int32_t i) {
  if (w->prev[i] >= 0) w->next[w->prev[i]] = w->next[i];
  else if (w->parent[i] >= 0) w->first[w->parent[i]] = w->next[i];
  if (w->next[i] >= 0) w->prev[w->next[i]] = w->prev[i];
  else if (w->parent[i] >= 0) w->lastc[w->parent[i]] = w->prev[i];
  w->prev[i] = w->next[i] = -1;
  w->gone[i] = 1;
}

/* Moves the children of i under p: in i's place when p is i's parent (i is then
 * unlinked), else after p's children. */
static void move_children(work *w, int32_t i, int32_t p) {
  for (int32_t c = w->first[i]; c >= 0; c = w->next[c]) w->parent[c] = p;
  if (w->first[i] < 0) {
    unlink_node(w, i);
    return;
  }
  int32_t f = w->first[i], l = w->lastc[i];
  w->first[i] = w->lastc[i] = -1;
  if (p == w->parent[i]) { /* splice in place of i */
    w->prev[f] = w->prev[i];
    w->next[l] = w->next[i];
    if (w->prev[i] >= 0) w->next[w->prev[i]] = f;
    else w->first[p] = f;
    if (w->next[i] >= 0) w->prev[w->next[i]] = l;
    else w->lastc[p] = l;
    w->prev[i] = w->next[i] = -1;
    w->gone[i] = 1;
    return;
  }
  unlink_node(w, i);
  w->prev[f] = w->lastc[p];
  if (w->lastc[p] >= 0) w->next[w->lastc[p]] = f;
  else w->first[p] = f;
  w->lastc[p] = l;
}

/* ---- the filters (as ingest/derive.c defined them, over the input tree's nodes) ---- */

/* drop: the subtrees of the outermost occurrences go, with their cost. */
static int f_drop(work *w, const int32_t *o, size_t n) {
  for (size_t i = 0; i < n; i++) {
    int32_t d = o[i], p = w->parent[d];
    if (p < 0) continue; /* the root stays (with its values) */
    int fr = is_frame(w->in, d);
    int rc = op_chain(w, OP_SUB, d, C_INCL, C_INCL, CH_ANCESTORS, p, -1);
    if (!rc && !fr) rc = op_chain(w, OP_SUB, d, C_EXCL, C_EXCL, CH_LEXICAL, p, -1);
    if (!rc && !fr && w->in->kind[d] != CCT_KIND_LOOP) rc = op_chain(w, OP_SUB, d, C_LEX, C_LEX, CH_LOOP, p, -1);
    if (rc) return rc;
    unlink_node(w, d);
  }
  return CCT_OK;
}

/* keep: only the subtrees of the outermost occurrences and their ancestors stay; an
 * ancestor's inclusive is the sum below it, its exclusives 0. */
static int f_keep(work *w, const int32_t *o, size_t n) {
  uint8_t *mark = w->mark; /* 1 ancestor, 2 occurrence */
  memset(mark, 0, (size_t)w->n);
  for (size_t i = 0; i < n; i++) mark[o[i]] = 2;
  for (size_t i = 0; i < n; i++)
    for (int32_t a = w->parent[o[i]]; a >= 0 && !mark[a]; a = w->parent[a]) mark[a] = 1;
  if (!mark[0]) mark[0] = 1; /* nothing kept: the root alone, zero */
  if (mark[0] != 1) return CCT_OK;
  for (int32_t i = 0; i < w->n; i++) {
    if (mark[i] != 1) continue;
    for (int32_t c = w->first[i], nx; c >= 0; c = nx) {
      nx = w->next[c];
      if (!mark[c]) unlink_node(w, c);
    }
  }
  int rc = CCT_OK;
  for (int32_t i = 0; !rc && i < w->n; i++)
    if (mark[i] == 1) rc = op_chain(w, OP_ZERO, -1, 0, 0, CH_SELF, i, -1);
  for (size_t i = 0; !rc && i < n; i++) rc = op_chain(w, OP_ADD, o[i], C_INCL, C_INCL, CH_ANCESTORS, w->parent[o[i]], -1);
  return rc;
}

/* prune: the callees (everything below) of the outermost occurrences go; their cost
 * becomes the occurrence's own (exclusive = inclusive). */
static int f_prune(work *w, const int32_t *o, size_t n) {
  int rc = CCT_OK;
  for (size_t i = 0; !rc && i < n; i++) {
    int32_t x = o[i], p = w->parent[x];
    if (!is_frame(w->in, x)) { /* the cost is now lexical in the enclosing frame */
      int loop = w->in->kind[x] == CCT_KIND_LOOP;
      rc = op_chain(w, OP_ADD, x, C_INCL, C_EXCL, CH_LEXICAL, p, -1);
      if (!rc) rc = op_chain(w, OP_SUB, x, C_EXCL, C_EXCL, CH_LEXICAL, p, -1);
      if (!rc && !loop) rc = op_chain(w, OP_ADD, x, C_INCL, C_LEX, CH_LOOP, p, -1);
      if (!rc && !loop) rc = op_chain(w, OP_SUB, x, C_LEX, C_LEX, CH_LOOP, p, -1);
    }
    if (!rc) rc = op_chain(w, OP_SET, x, C_INCL, C_EXCL, CH_SELF, x, -1);
    if (!rc) rc = op_chain(w, OP_SET, x, C_INCL, C_LEX, CH_SELF, x, -1);
    for (int32_t c = w->first[x], nx; !rc && c >= 0; c = nx) {
      nx = w->next[c];
      unlink_node(w, c);
    }
  }
  return rc;
}

/* hide: every occurrence goes; its children take its place under its parent and its
 * own cost is the parent's (a frame's exclusive joins the caller's). */
static int f_hide(work *w, const int32_t *o, size_t n) {
  const cct_tree *t = w->in;
  int rc = CCT_OK;
  for (size_t i = 0; !rc && i < n; i++) {
    int32_t h = o[i], p = w->parent[h];
    if (p < 0) continue; /* the root cannot be hidden */
    if (is_frame(t, h)) {
      /* A frame called from a call-site line takes that line's place in line views: its
       * children go where the line is (beside it, in the caller), the line keeps its own cost. */
      if (t->kind[p] == CCT_KIND_LINE && t->callsite[p] && w->parent[p] >= 0) {
        rc = op_chain(w, OP_SUB, h, C_INCL, C_INCL, CH_SELF, p, -1);
        p = w->parent[p];
      }
      if (!rc) rc = op_chain(w, OP_ADD, h, C_EXCL, C_EXCL, CH_LEXICAL, p, -1);
      if (!rc) rc = op_chain(w, OP_ADD, h, C_LEX, C_LEX, CH_LOOP, p, -1);
    } else if (t->kind[h] == CCT_KIND_LOOP) {
      rc = op_chain(w, OP_ADD, h, C_LEX, C_LEX, CH_LOOP, p, -1);
    }
    if (!rc) move_children(w, h, p);
  }
  return rc;
}

/* The node after i's subtree in the links' pre order (-1 at the end), leaving i and
 * the ancestors it climbs (recursion: open counts per function). */
static int32_t after(work *w, int32_t i, int32_t *open) {
  for (;;) {
    if (w->opened[i]) open[w->in->function[i]]--, w->opened[i] = 0;
    if (i == 0) return -1;
    if (w->next[i] >= 0) return w->next[i];
    i = w->parent[i];
  }
}

/* recursion: a frame of a function inside a frame of the same function (of the item's
 * functions, or of any) is merged into the outermost one: its children move there, its
 * own cost is that frame's, the frames between lose it. */
static int f_recursion(work *w, const int32_t *o, size_t n, int every) {
  const cct_tree *t = w->in;
  int32_t maxfn = 0;
  for (int32_t i = 0; i < w->n; i++)
    if (t->function[i] > maxfn) maxfn = t->function[i];
  int32_t *open = calloc((size_t)maxfn + 1, sizeof *open), *outer = calloc((size_t)maxfn + 1, sizeof *outer);
  uint8_t *fold = calloc((size_t)maxfn + 1, 1);
  if (!open || !outer || !fold) {
    free(open);
    free(outer);
    free(fold);
    return oom(w);
  }
  for (size_t i = 0; i < n; i++)
    if (is_frame(t, o[i]) && t->kind[o[i]] != CCT_KIND_ROOT) fold[t->function[o[i]]] = 1;
  int rc = CCT_OK;
  int32_t i = 0;
  while (!rc && i >= 0) {
    int32_t f = t->function[i];
    if (is_frame(t, i) && t->kind[i] != CCT_KIND_ROOT && f > 0 && (every || fold[f])) {
      if (open[f]) {
        int32_t a = outer[f], nx = w->next[i], p = w->parent[i], c = w->first[i];
        rc = op_chain(w, OP_SUB, i, C_INCL, C_INCL, CH_ANCESTORS, p, a);
        if (!rc) rc = op_chain(w, OP_ADD, i, C_EXCL, C_EXCL, CH_SELF, a, -1);
        if (!rc) rc = op_chain(w, OP_ADD, i, C_LEX, C_LEX, CH_SELF, a, -1);
        move_children(w, i, a);
        /* children spliced in i's place (a frame called straight from its outer frame) are
         * walked next; children appended to a's come after a's others (derive.c skipped the
         * first kind: f > f > f kept its innermost f) */
        i = p == a && c >= 0 ? c : nx >= 0 ? nx : after(w, p, open);
        continue;
      }
      if (!open[f]++) outer[f] = i;
      w->opened[i] = 1;
    }
    i = w->first[i] >= 0 ? w->first[i] : after(w, i, open);
  }
  free(open);
  free(outer);
  free(fold);
  return rc;
}

/* ---- one filter: links, surgery, the output tree ---- */

static int by_orig_cmp(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* The input nodes of step s (whose run node is marked in want), in the run's pre order
 * (the order derive.c handled them in); with outermost, only those with no proper
 * ancestor among them.  *out: malloc'd. */
static int occurrences(work *w, const int32_t *orig, const uint8_t *want, int outermost, int32_t **out, size_t *nout) {
  size_t n = 0;
  for (int32_t i = 0; i < w->n; i++) n += want[orig[i]] != 0;
  int32_t *v = malloc((n + 1) * sizeof *v);
  int64_t *key = malloc((n + 1) * sizeof *key);
  if (!v || !key) {
    free(v);
    free(key);
    return oom(w);
  }
  size_t k = 0;
  int32_t cover = -1; /* the end of the subtree of the last outermost occurrence */
  for (int32_t i = 0; i < w->n; i++) {
    if (!want[orig[i]] || (outermost && i <= cover)) continue;
    if (outermost) cover = w->in->last[i];
    key[k++] = (int64_t)orig[i] << 32 | (uint32_t)i;
  }
  qsort(key, k, sizeof *key, by_orig_cmp);
  for (size_t j = 0; j < k; j++) v[j] = (int32_t)(key[j] & 0xffffffff);
  free(key);
  *out = v;
  *nout = k;
  return CCT_OK;
}

/* The node after x in the pre order of w's links, -1 after the last. */
static int32_t pre_next(const work *w, int32_t x) {
  if (w->first[x] >= 0) return w->first[x];
  while (x != 0 && w->next[x] < 0) x = w->parent[x];
  return x == 0 ? -1 : w->next[x];
}

/* Writes the nodes left in w's links, in pre order, as the tree *t (from: per output
 * node, its input node). */
static int write_out(work *w, cct_tree *t) {
  const cct_tree *in = w->in;
  int32_t n = 0;
  for (int32_t x = 0; x >= 0; x = pre_next(w, x)) w->map[x] = n++; /* number the nodes left */
  qf_stage *s = w->st;
  s->nout = n;
  s->from = cct_big_alloc((size_t)n * sizeof *s->from, 0);
  if (!s->from || cct_tree_alloc(t, n)) return oom(w);
  t->base = in->base;
  int32_t k = 0;
  for (int32_t x = 0; x >= 0; x = pre_next(w, x)) {
    s->from[k] = x;
    t->last[k] = k; /* raised below as the subtree's nodes follow */
    k++;
  }
  for (int32_t i = 0; i < n; i++) {
    int32_t x = s->from[i];
    int32_t p = i ? w->map[w->parent[x]] : -1;
    int fr = is_frame(in, x);
    t->id[i] = in->id[x];
    t->kind[i] = in->kind[x];
    t->relation[i] = in->relation[x];
    t->callsite[i] = in->callsite[x];
    t->file[i] = in->file[x];
    t->line[i] = in->line[x];
    t->module[i] = in->module[x];
    t->offset[i] = in->offset[x];
    t->parent[i] = p;
    t->call_file[i] = 0;
    t->call_line[i] = -1;
    if (p < 0) {
      t->function[i] = in->function[x];
      t->frame[i] = 0, t->fdepth[i] = 0, t->fparent[i] = -1, t->ldepth[i] = 0, t->lparent[i] = -1;
      continue;
    }
    t->depth[i] = t->depth[p] + 1;
    t->function[i] = fr ? in->function[x] : t->function[p];
    if (!fr && !t->file[i]) t->file[i] = t->file[p]; /* lines inherit their scope's file (as the writer does) */
    if (fr && t->kind[p] == CCT_KIND_LINE) t->call_file[i] = t->file[p], t->call_line[i] = t->line[p];
    t->frame[i] = fr ? i : t->frame[p];
    t->fdepth[i] = t->fdepth[p] + fr;
    t->fparent[i] = t->frame[p];
    if (t->callsite[p] && t->relation[i] != CCT_REL_LEXICAL) {
      t->ldepth[i] = t->ldepth[p];
      t->lparent[i] = t->lparent[p];
    } else {
      t->ldepth[i] = t->ldepth[p] + 1;
      t->lparent[i] = p;
    }
  }
  uint8_t *calls = cct_big_alloc((size_t)n, 1);
  if (!calls) return oom(w);
  for (int32_t i = n - 1; i > 0; i--) { /* subtree ends and frame counts, children before parents */
    int32_t p = t->parent[i];
    if (t->last[i] > t->last[p]) t->last[p] = t->last[i];
    t->nframes[p] += t->nframes[i] + is_frame(t, i);
    calls[p] |= t->relation[i] != CCT_REL_LEXICAL;
  }
  /* a call-site line whose callees are all gone is a plain line, as the writer stores one
   * whose callee frame is missing (its children are all lexical: levels do not change) */
  for (int32_t i = 0; i < n; i++) t->callsite[i] = t->callsite[i] && calls[i];
  free(calls);
  return CCT_OK;
}

/* Runs step s on the tree in into *out (its stage in *st; want: the run's nodes of the
 * step's item, orig: the run's node of each node of in). */
static int run_step(const cct_tree *in, const int32_t *orig, const qf_step *s, const uint8_t *want, qf_stage *st,
                    cct_tree *out, cct_err *err) {
  int32_t n = in->n;
  work w = {.in = in, .n = n, .st = st, .err = err};
  st->nin = n;
  size_t words = (size_t)n * 6;
  int32_t *block = cct_big_alloc(words * sizeof *block, 0);
  uint8_t *bytes = cct_big_alloc((size_t)n * 3, 1);
  if (!block || !bytes) {
    free(block);
    free(bytes);
    return oom(&w);
  }
  w.parent = block, w.first = block + n, w.lastc = block + 2 * (size_t)n, w.prev = block + 3 * (size_t)n;
  w.next = block + 4 * (size_t)n, w.map = block + 5 * (size_t)n;
  w.gone = bytes, w.opened = bytes + n, w.mark = bytes + 2 * (size_t)n;
  memcpy(w.parent, in->parent, (size_t)n * sizeof *w.parent);
  for (int32_t i = 0; i < n; i++) w.first[i] = w.lastc[i] = w.prev[i] = w.next[i] = -1;
  for (int32_t i = 1; i < n; i++) {
    int32_t p = in->parent[i];
    w.prev[i] = w.lastc[p];
    if (w.lastc[p] >= 0) w.next[w.lastc[p]] = i;
    else w.first[p] = i;
    w.lastc[p] = i;
  }
  int32_t *o = NULL;
  size_t no = 0;
  int every = s->kind == CCT_FILTER_RECURSION && !s->nocc;
  int rc = occurrences(&w, orig, want, s->kind != CCT_FILTER_HIDE && s->kind != CCT_FILTER_RECURSION, &o, &no);
  if (!rc) switch (s->kind) {
    case CCT_FILTER_KEEP: rc = f_keep(&w, o, no); break;
    case CCT_FILTER_DROP: rc = f_drop(&w, o, no); break;
    case CCT_FILTER_HIDE: rc = f_hide(&w, o, no); break;
    case CCT_FILTER_PRUNE: rc = f_prune(&w, o, no); break;
    case CCT_FILTER_RECURSION: rc = f_recursion(&w, o, no, every); break;
    default: rc = cct_err_set(err, CCT_EUSAGE, "no filter kind %d", s->kind);
    }
  if (!rc) rc = write_out(&w, out);
  free(o);
  free(block);
  free(bytes);
  return rc;
}

/* ---- values ---- */

/* One metric's values over the nodes of a stage's input tree as the log is replayed:
 * the run's values (base[c][stride * i] for run node i), and the few nodes an op
 * changed, copied into ov (comps values each; slot[x] its entry for input node x, -1
 * for a node with the run's values).  A filter of k occurrences changes the values of
 * their ancestor chains only, so replaying a log touches a few pages, not a copy of
 * every value of the run (1M contexts: 24 MB per buffer to fill on first touch). */
typedef struct layer {
  const qf_tree *f;
  const double *base[3];
  size_t stride;
  int comps;
  size_t stage;        /* the stage whose input tree slot numbers */
  int32_t *slot, *next; /* per node of the stage's input tree (next: of its output's) */
  double *ov;
  size_t nov, cap;
} layer;

/* The run's node that node x of stage k's input tree is. */
static int32_t run_node(const qf_tree *f, size_t k, int32_t x) {
  while (k-- > 0) x = f->stages[k].from[x];
  return x;
}

/* Node x's values (comps of them) in L, copied into ov on first use; NULL when out of
 * memory.  The pointer holds until the next call. */
static double *at(layer *L, int32_t x) {
  if (L->slot[x] < 0) {
    if (CCT_GROW(L->ov, (L->nov + 1) * (size_t)L->comps, L->cap)) return NULL;
    int32_t r = run_node(L->f, L->stage, x);
    for (int c = 0; c < L->comps; c++) L->ov[L->nov * (size_t)L->comps + (size_t)c] = L->base[c][L->stride * (size_t)r];
    L->slot[x] = (int32_t)L->nov++;
  }
  return &L->ov[(size_t)L->slot[x] * (size_t)L->comps];
}

/* Applies op o of stage s to L (an op on the lex_aware part is skipped without one). */
static int apply(layer *L, const qf_stage *s, const qf_op *o) {
  if (L->comps < 3 && (o->from == C_LEX || o->to == C_LEX)) return CCT_OK;
  double x = 0;
  if (o->src >= 0) {
    const double *v = at(L, o->src);
    if (!v) return CCT_ENOMEM;
    x = v[o->from];
  }
  for (uint32_t k = 0; k < o->nt; k++) {
    double *d = at(L, s->tg[o->t0 + k]);
    if (!d) return CCT_ENOMEM;
    switch (o->op) {
    case OP_ADD: d[o->to] += x; break;
    case OP_SUB: d[o->to] -= x; break;
    case OP_SET: d[o->to] = x; break;
    default: memset(d, 0, (size_t)L->comps * sizeof *d);
    }
  }
  return CCT_OK;
}

/* The values of f's nodes kept: the last stage's output (f->t may have moved). */
static int32_t nodes_out(const qf_tree *f) { return f->nstages ? f->stages[f->nstages - 1].nout : f->nsrc; }

/* Replays f's log on the values base (comps parts, stride apart) into L, whose slots
 * then number f's output nodes.  Returns CCT_OK or CCT_ENOMEM (L freed by layer_free). */
static int replay(layer *L) {
  const qf_tree *f = L->f;
  size_t cap = (size_t)f->nsrc; /* every stage's input is at most the run's size */
  L->slot = cct_big_alloc(cap * sizeof *L->slot, 0);
  L->next = cct_big_alloc(cap * sizeof *L->next, 0);
  if (!L->slot || !L->next) return CCT_ENOMEM;
  memset(L->slot, 0xff, cap * sizeof *L->slot); /* -1: the run's values */
  for (L->stage = 0; L->stage < f->nstages; L->stage++) {
    const qf_stage *s = &f->stages[L->stage];
    for (size_t j = 0; j < s->nops; j++)
      if (apply(L, s, &s->ops[j])) return CCT_ENOMEM;
    for (int32_t i = 0; i < s->nout; i++) L->next[i] = L->slot[s->from[i]];
    int32_t *x = L->slot;
    L->slot = L->next, L->next = x;
  }
  return CCT_OK;
}

static void layer_free(layer *L) {
  free(L->slot);
  free(L->next);
  free(L->ov);
}

/* Part c of output node i of f after replay(L). */
static double layer_value(const layer *L, int32_t i, int c) {
  if (L->slot[i] >= 0) return L->ov[(size_t)L->slot[i] * (size_t)L->comps + (size_t)c];
  return L->base[c][L->stride * (size_t)L->f->orig[i]];
}

/* A value at the noise level of the subtraction that made it is 0. */
static double clean(double v, double scale) { return fabs(v) <= scale * 1e-12 ? 0 : v; }

/* (inclusive, exclusive, lex_aware) cleaned: noise is 0, and a database's own
 * figures, which may disagree by rounding (children's exclusives adding up to a little
 * more than the parent's inclusive), never make a moved cost's exclusive exceed inclusive. */
static void clean3(double in, double ex, double lx, double scale, double *incl, double *excl, double *lex) {
  *incl = clean(in, scale), *excl = clean(ex, scale), *lex = clean(lx, scale);
  if (*incl >= 0 && *excl > *incl) *excl = *incl;
  if (*lex > *excl) *lex = *excl;
}

int qf_values(const qf_tree *f, const double *in, int comps, double *out, cct_err *err) {
  layer L = {.f = f, .base = {in, in + 1, comps > 2 ? in + 2 : in}, .stride = (size_t)comps, .comps = comps};
  if (replay(&L)) {
    layer_free(&L);
    return cct_err_set(err, CCT_ENOMEM, "out of memory filtering the run");
  }
  int32_t n = nodes_out(f);
  double scale = fabs(layer_value(&L, 0, C_INCL));
  for (int32_t i = 0; i < n; i++) {
    double *d = &out[(size_t)i * comps];
    if (comps < 3) d[0] = clean(layer_value(&L, i, C_INCL), scale), d[1] = clean(layer_value(&L, i, C_EXCL), scale);
    else
      clean3(layer_value(&L, i, C_INCL), layer_value(&L, i, C_EXCL), layer_value(&L, i, C_LEX), scale, &d[0], &d[1],
             &d[2]);
  }
  layer_free(&L);
  return CCT_OK;
}

void qf_free(qf_tree *f) {
  if (!f) return;
  cct_tree_free(&f->t);
  free(f->orig);
  for (size_t k = 0; k < f->nstages; k++) {
    free(f->stages[k].from);
    free(f->stages[k].ops);
    free(f->stages[k].tg);
  }
  free(f->stages);
  memset(f, 0, sizeof *f);
}

int qf_make(const cct_tree *src, const qf_step *steps, size_t n, qf_tree *out, cct_err *err) {
  memset(out, 0, sizeof *out);
  int32_t ns = src->n;
  out->nsrc = ns;
  out->src = src;
  out->stages = calloc(n + 1, sizeof *out->stages);
  uint8_t *want = cct_big_alloc((size_t)ns, 1);
  int32_t *orig = cct_big_alloc((size_t)ns * sizeof *orig, 0);
  cct_tree cur = {0};
  int rc = !n ? cct_err_set(err, CCT_EUSAGE, "no filter to apply")
           : out->stages && want && orig ? CCT_OK : cct_err_set(err, CCT_ENOMEM, "out of memory filtering the run");
  for (int32_t i = 0; !rc && i < ns; i++) orig[i] = i;
  const cct_tree *in = src;
  for (size_t k = 0; !rc && k < n; k++) {
    memset(want, 0, (size_t)ns);
    for (size_t j = 0; j < steps[k].nocc; j++)
      if (steps[k].occ[j] >= 0 && steps[k].occ[j] < ns) want[steps[k].occ[j]] = 1;
    cct_tree next;
    rc = run_step(in, orig, &steps[k], want, &out->stages[k], &next, err);
    out->nstages = k + 1;
    if (rc) {
      cct_tree_free(&next);
      break;
    }
    int32_t *o2 = cct_big_alloc((size_t)next.n * sizeof *o2, 0);
    if (!o2) {
      cct_tree_free(&next);
      rc = cct_err_set(err, CCT_ENOMEM, "out of memory filtering the run");
      break;
    }
    for (int32_t i = 0; i < next.n; i++) o2[i] = orig[out->stages[k].from[i]];
    free(orig);
    orig = o2;
    cct_tree_free(&cur);
    cur = next;
    in = &cur;
  }
  free(want);
  out->t = cur;
  out->orig = orig;
  /* the primary metric's values, replayed from the run's arrays into the new tree's */
  layer L = {.f = out, .base = {src->incl, src->excl, src->lex}, .stride = 1, .comps = 3};
  if (!rc && replay(&L)) rc = cct_err_set(err, CCT_ENOMEM, "out of memory filtering the run");
  if (!rc) {
    double scale = fabs(layer_value(&L, 0, C_INCL));
    for (int32_t i = 0; i < cur.n; i++)
      clean3(layer_value(&L, i, C_INCL), layer_value(&L, i, C_EXCL), layer_value(&L, i, C_LEX), scale,
             &out->t.incl[i], &out->t.excl[i], &out->t.lex[i]);
  }
  layer_free(&L);
  if (rc) {
    qf_free(out);
    return rc;
  }
  return CCT_OK;
}
