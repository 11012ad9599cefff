/* occur.c: look-ups over a run's tree image (common/cct_tree.h) for centers and
 * views: a context as a qctx, the frames of a function, the loops and lines of
 * a function's frames, the callee frames of a frame, the loops or lines at a
 * file:line.  All are kept with the run (qrun.idx): a cache behind the const run.
 *
 * The frames of a function and the callees of a frame are first found one at a
 * time, each list kept once found: a function's by one scan of the function
 * array (~1 ms at 1M contexts), a frame's callees by a walk of its own body (its
 * subtree without its callees' subtrees).  A process that asks for one center and
 * a top-down view never sorts the whole tree (the index of every function's
 * frames and every frame's callees, two counting sorts over the arrays, cost
 * ~25 ms and 10 MB of fresh memory at 1M); after SCANS functions or CALLEE_LISTS
 * frames asked for one at a time, that index is built and answers the rest.  The
 * index of loops and lines by location is built on first use. */
#include "query_int.h"

#include <stdlib.h>
#include <string.h>

enum { SCANS = 8, CALLEE_LISTS = 4096 };

struct qindex {
  int built_fn, built_loc;
  int nscans;            /* functions scanned for one at a time (before built_fn) */
  cct_hmap lists;        /* list_key(0 frames of | 1 loops and lines of, function) or (2 callees of, node) -> index
                          * in list (a key of one word: a top-down looks a frame's callees up for every frame) */
  int32_t **list;        /* the lists found one at a time: list[k][0] entries, then the nodes (each stays put) */
  size_t nlist, caplist;
  int32_t nfn;           /* largest function id + 1 */
  int32_t *fr_start;     /* per function id: start of its frames in fr (nfn + 1 entries) */
  int32_t *fr;           /* frames (kind 1, and instruction frames) by function, in node order */
  int32_t *sc_start;     /* per function id: start of its loops and lines in sc */
  int32_t *sc;           /* loops and lines by their frame's function, in node order */
  int32_t *fc_start;     /* per node: start of the frames it is the caller frame of in fc (n + 1 entries) */
  int32_t *fc;           /* frames (not the root) by fparent, in node order: each frame's callees */
  int32_t *loc;          /* loops and lines with a file, by (file, line, kind, node) */
  size_t nloc;
};

void q_index_free(qindex *x) {
  if (!x) return;
  free(x->fr_start);
  free(x->fr);
  free(x->sc_start);
  free(x->sc);
  free(x->fc_start);
  free(x->fc);
  free(x->loc);
  for (size_t k = 0; k < x->nlist; k++) free(x->list[k]);
  free(x->list);
  cct_hmap_release(&x->lists);
  free(x);
}

void q_tree_ctx(const cct_tree *t, int32_t i, qctx *c) {
  int64_t b = t->base;
  c->id = t->id[i];
  c->pre = b + i;
  c->last = b + t->last[i];
  c->frame = b + t->frame[i];
  c->fdepth = t->fdepth[i];
  c->ldepth = t->ldepth[i];
  c->kind = t->kind[i];
  c->relation = t->relation[i];
  c->callsite = t->callsite[i];
  c->function = t->function[i];
  c->fparent = t->fparent[i] < 0 ? -1 : b + t->fparent[i];
  c->file = t->file[i];
  c->line = t->line[i];
  c->call_file = t->call_file[i];
  c->call_line = t->call_line[i];
  c->module = t->module[i];
  c->offset = t->offset[i];
  c->nframes = t->nframes[i];
  c->pv[0] = t->incl[i];
  c->pv[1] = t->excl[i];
  c->pv[2] = t->lex[i];
}

/* Asks the cache for node i's fields that q_tree_ctx reads (one line of each array). */
static void prefetch_node(const cct_tree *t, int32_t i) {
  __builtin_prefetch(&t->id[i]), __builtin_prefetch(&t->last[i]), __builtin_prefetch(&t->frame[i]);
  __builtin_prefetch(&t->fdepth[i]), __builtin_prefetch(&t->ldepth[i]), __builtin_prefetch(&t->kind[i]);
  __builtin_prefetch(&t->relation[i]), __builtin_prefetch(&t->callsite[i]), __builtin_prefetch(&t->function[i]);
  __builtin_prefetch(&t->fparent[i]), __builtin_prefetch(&t->file[i]), __builtin_prefetch(&t->line[i]);
  __builtin_prefetch(&t->call_file[i]), __builtin_prefetch(&t->call_line[i]), __builtin_prefetch(&t->module[i]);
  __builtin_prefetch(&t->offset[i]), __builtin_prefetch(&t->nframes[i]), __builtin_prefetch(&t->incl[i]);
  __builtin_prefetch(&t->excl[i]), __builtin_prefetch(&t->lex[i]);
}

void q_tree_ctxs(const cct_tree *t, const int32_t *nodes, size_t n, qctx *out) {
  enum { AHEAD = 6 }; /* nodes far apart: every field a cache miss, asked for ahead so that they overlap */
  for (size_t i = 0; i < n && i < AHEAD; i++) prefetch_node(t, nodes[i]);
  for (size_t i = 0; i < n; i++) {
    if (i + AHEAD < n) prefetch_node(t, nodes[i + AHEAD]);
    q_tree_ctx(t, nodes[i], &out[i]);
  }
}

int q_tree_node(const qv *q, int64_t pre, int32_t *i) {
  const cct_tree *t = &q->r->tree;
  if (pre < t->base || pre - t->base >= t->n) return -1;
  *i = (int32_t)(pre - t->base);
  return 0;
}

qindex *q_index_new(void) {
  qindex *x = calloc(1, sizeof(qindex));
  if (x) x->lists.nkey = 1;
  return x;
}

/* The key of list (what, key) in qindex.lists (key >= 0: a function id or a node). */
static int64_t list_key(int what, int64_t key) { return (int64_t)((uint64_t)what << 56 | (uint64_t)key); }

/* The index in x->list of list (what, key), NULL when not kept. */
static const int64_t *list_get(const qindex *x, int what, int64_t key) {
  int64_t k = list_key(what, key);
  return x->lists.cap ? cct_hmap_get(&x->lists, &k) : NULL;
}

/* Builds the per-function frame and scope lists. */
static int build_fn(const cct_tree *t, qindex *x, cct_err *err) {
  int32_t nfn = 0;
  for (int32_t i = 0; i < t->n; i++)
    if (t->function[i] >= nfn) nfn = t->function[i] + 1;
  x->nfn = nfn;
  x->fr_start = calloc((size_t)nfn + 2, sizeof *x->fr_start);
  x->sc_start = calloc((size_t)nfn + 2, sizeof *x->sc_start);
  if (!x->fr_start || !x->sc_start) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  /* counting sorts without a copy of the starts: counts go to start[key + 2], whose prefix
   * sums make start[key + 1] the start of key; filling moves it to key's end, which is the
   * start of key + 1 (the fresh pages of an n-entry copy cost more than the sort) */
  size_t nfr = 0, nsc = 0;
  for (int32_t i = 1; i < t->n; i++) {
    int32_t f = t->function[i];
    if (f <= 0) continue;
    if (t->frame[i] == i) x->fr_start[f + 2]++, nfr++;
    else if (t->kind[i] == CCT_KIND_LOOP || t->kind[i] == CCT_KIND_LINE) x->sc_start[f + 2]++, nsc++;
  }
  for (int32_t f = 0; f < nfn; f++) x->fr_start[f + 2] += x->fr_start[f + 1], x->sc_start[f + 2] += x->sc_start[f + 1];
  x->fr = cct_big_alloc((nfr ? nfr : 1) * sizeof *x->fr, 0);
  x->sc = cct_big_alloc((nsc ? nsc : 1) * sizeof *x->sc, 0);
  if (!x->fr || !x->sc) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  for (int32_t i = 1; i < t->n; i++) {
    int32_t f = t->function[i];
    if (f <= 0) continue;
    if (t->frame[i] == i) x->fr[x->fr_start[f + 1]++] = i;
    else if (t->kind[i] == CCT_KIND_LOOP || t->kind[i] == CCT_KIND_LINE) x->sc[x->sc_start[f + 1]++] = i;
  }
  /* callees by caller frame: the same sort of the frames by fparent */
  x->fc_start = cct_big_alloc(((size_t)t->n + 2) * sizeof *x->fc_start, 1);
  x->fc = cct_big_alloc((nfr + 1) * sizeof *x->fc, 0);
  if (!x->fc_start || !x->fc) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  size_t nfc = 0;
  for (int32_t i = 1; i < t->n; i++)
    if (t->frame[i] == i) x->fc_start[t->fparent[i] + 2]++, nfc++;
  if (nfc > nfr) {
    free(x->fc);
    if (!(x->fc = cct_big_alloc(nfc * sizeof *x->fc, 0))) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  }
  for (int32_t i = 0; i < t->n; i++) x->fc_start[i + 2] += x->fc_start[i + 1];
  for (int32_t i = 1; i < t->n; i++)
    if (t->frame[i] == i) x->fc[x->fc_start[t->fparent[i] + 1]++] = i;
  x->built_fn = 1;
  return CCT_OK;
}

static const cct_tree *sort_tree; /* qsort has no context argument; set only around the sort below */

static int by_loc(const void *a, const void *b) {
  const cct_tree *t = sort_tree;
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  if (t->file[x] != t->file[y]) return t->file[x] < t->file[y] ? -1 : 1;
  if (t->line[x] != t->line[y]) return t->line[x] < t->line[y] ? -1 : 1;
  if (t->kind[x] != t->kind[y]) return t->kind[x] < t->kind[y] ? -1 : 1;
  return (x > y) - (x < y);
}

/* Builds the list of loops and lines by location. */
static int build_loc(const cct_tree *t, qindex *x, cct_err *err) {
  size_t n = 0;
  for (int32_t i = 0; i < t->n; i++) n += (t->kind[i] == CCT_KIND_LOOP || t->kind[i] == CCT_KIND_LINE) && t->file[i] > 0;
  x->loc = cct_big_alloc((n ? n : 1) * sizeof *x->loc, 0);
  if (!x->loc) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  n = 0;
  for (int32_t i = 0; i < t->n; i++)
    if ((t->kind[i] == CCT_KIND_LOOP || t->kind[i] == CCT_KIND_LINE) && t->file[i] > 0) x->loc[n++] = i;
  sort_tree = t;
  qsort(x->loc, n, sizeof *x->loc, by_loc);
  sort_tree = NULL;
  x->nloc = n;
  x->built_loc = 1;
  return CCT_OK;
}

/* Keeps the list v[0..n) under (what, key) (v[0] is set to n; v is the index's
 * now): its index in x->list, or -1 when out of memory (v freed). */
static int64_t keep_list(qindex *x, int what, int64_t key, int32_t *v, size_t n) {
  int added;
  const int64_t k = list_key(what, key);
  if (CCT_GROW(x->list, x->nlist + 1, x->caplist) || !cct_hmap_put(&x->lists, &k, (int64_t)x->nlist, &added)) {
    free(v);
    return -1;
  }
  v[0] = (int32_t)n;
  x->list[x->nlist] = v;
  return (int64_t)x->nlist++;
}

/* The frames (what 0) or loops and lines (what 1) of function fn, by one scan of the
 * arrays that keeps both lists: *list, or CCT_ENOMEM. */
static int scan_function(const cct_tree *t, qindex *x, int64_t fn, int what, const int32_t **list, cct_err *err) {
  int32_t *v[2] = {NULL, NULL};
  size_t nv[2] = {0, 0}, cap[2] = {0, 0};
  x->nscans++;
  for (int32_t i = 1; i < t->n; i++) {
    if (t->function[i] != fn) continue;
    int k = t->frame[i] == i ? 0 : t->kind[i] == CCT_KIND_LOOP || t->kind[i] == CCT_KIND_LINE ? 1 : -1;
    if (k < 0) continue;
    if (CCT_GROW(v[k], nv[k] + 2, cap[k])) {
      free(v[0]);
      free(v[1]);
      return cct_err_set(err, CCT_ENOMEM, "out of memory");
    }
    v[k][1 + nv[k]++] = i;
  }
  int64_t at[2] = {-1, -1};
  int rc = CCT_OK;
  for (int k = 0; k < 2; k++) { /* both kept, or the error (a list kept stays valid) */
    if (rc) free(v[k]);
    else if ((!v[k] && !(v[k] = malloc(sizeof *v[k]))) || (at[k] = keep_list(x, k, fn, v[k], nv[k])) < 0)
      rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
  }
  if (rc) return rc;
  *list = x->list[at[what]];
  return CCT_OK;
}

int q_frames_of(const qv *q, int64_t fn, int scopes, const int32_t **nodes, size_t *n, cct_err *err) {
  *nodes = NULL;
  *n = 0;
  qindex *x = q->r->idx; /* a cache behind the const run: filled once, never changed after */
  if (!x->built_fn && fn <= 0) return CCT_OK;
  if (!x->built_fn) {
    const int64_t *k = list_get(x, scopes ? 1 : 0, fn);
    const int32_t *l = k && *k < (int64_t)x->nlist ? x->list[*k] : NULL;
    if (!l && x->nscans < SCANS) {
      int rc = scan_function(&q->r->tree, x, fn, scopes ? 1 : 0, &l, err);
      if (rc) return rc;
    }
    if (l) {
      *nodes = l + 1;
      *n = (size_t)l[0];
      return CCT_OK;
    }
  }
  if (!x->built_fn) {
    int rc = build_fn(&q->r->tree, x, err);
    if (rc) return rc;
  }
  if (fn <= 0 || fn >= x->nfn) return CCT_OK;
  const int32_t *start = scopes ? x->sc_start : x->fr_start;
  *nodes = (scopes ? x->sc : x->fr) + start[fn];
  *n = (size_t)(start[fn + 1] - start[fn]);
  return CCT_OK;
}

/* The frames whose caller frame is frame x (fparent = x): the frames met by a walk of
 * x's subtree that does not enter them (the nodes in between are x's own loops and
 * lines), in node order, as the index's callee lists: *list, or CCT_ENOMEM. */
static int walk_callees(const cct_tree *t, qindex *ix, int32_t x, const int32_t **list, cct_err *err) {
  int32_t *v = NULL;
  size_t nv = 0, cap = 0;
  for (int32_t i = x + 1; t->frame[x] == x && i <= t->last[x];) {
    if (t->frame[i] != i) {
      i++;
      continue;
    }
    if (CCT_GROW(v, nv + 2, cap)) {
      free(v);
      return cct_err_set(err, CCT_ENOMEM, "out of memory");
    }
    v[1 + nv++] = i;
    i = t->last[i] + 1;
  }
  if (!v && !(v = malloc(sizeof *v))) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  int64_t at = keep_list(ix, 2, x, v, nv);
  if (at < 0) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  *list = ix->list[at];
  return CCT_OK;
}

int q_frame_children(const qv *q, int32_t x, const int32_t **nodes, size_t *n, cct_err *err) {
  *nodes = NULL;
  *n = 0;
  qindex *ix = q->r->idx;
  if (!ix->built_fn && x >= 0 && x < q->r->tree.n) {
    const int64_t *k = list_get(ix, 2, x);
    const int32_t *l = k && *k < (int64_t)ix->nlist ? ix->list[*k] : NULL;
    if (!l && ix->nlist < CALLEE_LISTS) {
      int rc = walk_callees(&q->r->tree, ix, x, &l, err);
      if (rc) return rc;
    }
    if (l) {
      *nodes = l + 1;
      *n = (size_t)l[0];
      return CCT_OK;
    }
  }
  if (!ix->built_fn) {
    int rc = build_fn(&q->r->tree, ix, err);
    if (rc) return rc;
  }
  if (x < 0 || x >= q->r->tree.n) return CCT_OK;
  *nodes = ix->fc + ix->fc_start[x];
  *n = (size_t)(ix->fc_start[x + 1] - ix->fc_start[x]);
  return CCT_OK;
}

int q_nodes_at(const qv *q, int64_t file, long long line, int kind, const int32_t **nodes, size_t *n, cct_err *err) {
  *nodes = NULL;
  *n = 0;
  qindex *x = q->r->idx; /* a cache behind the const run: filled once, never changed after */
  if (!x->built_loc) {
    int rc = build_loc(&q->r->tree, x, err);
    if (rc) return rc;
  }
  const cct_tree *t = &q->r->tree;
  size_t lo = 0, hi = x->nloc; /* the first node at or after (file, line, kind) */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int32_t m = x->loc[mid];
    int before = t->file[m] != file ? t->file[m] < file : t->line[m] != line ? t->line[m] < line : t->kind[m] < kind;
    if (before) lo = mid + 1;
    else hi = mid;
  }
  size_t e = lo;
  while (e < x->nloc && t->file[x->loc[e]] == file && t->line[x->loc[e]] == line && t->kind[x->loc[e]] == kind) e++;
  *nodes = x->loc + lo;
  *n = e - lo;
  return CCT_OK;
}

int q_loop_shared(const qv *q, int64_t file, long long line, int *shared, cct_err *err) {
  *shared = 0;
  long long src = cct_scope_source_line(line);
  if (!cct_scope_is_point(line) || src < 0) return CCT_OK;
  const int32_t *nodes;
  size_t n = 0;
  int rc = q_nodes_at(q, file, src, CCT_KIND_LOOP, &nodes, &n, err);
  for (size_t i = 0; !rc && i < n && !*shared; i++) *shared = q_node_scope_line(&q->r->tree, nodes[i]) != line;
  return rc;
}
