/* views.c: the top-down, bottom-up and flat views (SPEC section 5), built as a
 * merged row tree (vtree) in C: contexts are read with ranges of the context
 * table (pre is its key) for small subtrees, one level of all large ones per
 * statement run over the level indexes (context_frame_level, context_line_level),
 * callers one bottom-up level at a time (each caller frame read once), the primary
 * metric's values with the rows and other columns per level (q_values_many); merged
 * into rows with a hash map keyed by (parent row, key), then sorted (inclusive of the display metric descending, ties by
 * label), cut by the threshold and emitted in pre-order with handles 1, 2, ...
 * (the top row, when the view has one, is handle 1).  Also cct_view_free and
 * the session's copy of the last view for '@N'. */
#include "cct_util.h"
#include "query_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the row tree ---- */

typedef struct vnode {
  int parent, depth, kind, inlined, center;
  int level, hot;         /* topdown: the levels of the depth it uses, on the hot path (see td_hot) */
  int hide;               /* flat tree N: not among the rows picked (flat_pick) */
  int64_t function, file, module, offset;
  long long line;
  char *name, *callsite;  /* owned until moved into the view */
  const char *filep, *modp; /* session-cached paths */
  int *child;             /* sorted children (after vt_sort) */
  int nchild;
  long long occ;          /* flat: contexts the row adds up; bottomup: the caller paths (outermost
                             occurrences) it merges; -1 when not counted */
} vnode;

/* One entry of a row tree's child map: the key (parent row, kind, k1, k2, k3) and
 * the child row (-1: an empty slot). */
typedef struct vkid {
  int64_t k1, k2, k3;
  int32_t parent, kind, node, pad;
} vkid;

typedef struct vtree {
  vnode *n;
  size_t nn, cap, nm;
  double *val; /* per node x metric: inclusive, exclusive */
  int sort;    /* CCT_SORT_* of siblings */
  vkid *kids;  /* (parent, kind, k1, k2, k3) -> node: open addressing, at most half full */
  size_t nkids, capkids; /* entries, slots (a power of two) */
} vtree;

static void vt_free(vtree *t) {
  for (size_t i = 0; i < t->nn; i++) {
    free(t->n[i].name);
    free(t->n[i].callsite);
    free(t->n[i].child);
  }
  free(t->n);
  free(t->val);
  free(t->kids);
  memset(t, 0, sizeof *t);
}

/* Adds a node (no merging); returns its index or -1. */
static int vt_add(vtree *t, int parent, int kind) {
  if (t->nn == t->cap) { /* n and val grow together: cap nodes, 2 * nm values each */
    size_t cap = cct_grow_cap(t->cap, t->nn + 1, sizeof *t->n), nvals;
    if (!cap || cct_mul(cap, (t->nm ? t->nm : 1) * 2, &nvals)) return -1;
    vnode *n = cct_reallocarray(t->n, cap, sizeof *n);
    if (!n) return -1;
    t->n = n;
    double *v = cct_reallocarray(t->val, nvals, sizeof *v);
    if (!v) return -1;
    t->val = v;
    t->cap = cap;
  }
  vnode *x = &t->n[t->nn];
  memset(x, 0, sizeof *x);
  x->parent = parent;
  x->depth = parent >= 0 ? t->n[parent].depth + 1 : 0;
  x->level = parent >= 0 ? t->n[parent].level + 1 : 0;
  x->kind = kind;
  x->line = -1;
  x->occ = -1;
  memset(t->val + t->nn * t->nm * 2, 0, t->nm * 2 * sizeof *t->val);
  return (int)t->nn++;
}

static size_t vk_hash(int parent, int kind, int64_t k1, int64_t k2, int64_t k3) {
  uint64_t h = ((uint64_t)(uint32_t)parent << 32 | (uint32_t)kind) * 0x9E3779B97F4A7C15ull;
  h = (h ^ (uint64_t)k1) * 0xBF58476D1CE4E5B9ull;
  h = (h ^ (uint64_t)k2) * 0x94D049BB133111EBull;
  h = (h ^ (uint64_t)k3) * 0x9E3779B97F4A7C15ull;
  return (size_t)(h ^ (h >> 29));
}

/* Doubles the child map.  Returns 0 or -1. */
static int vk_grow(vtree *t) {
  size_t cap = t->capkids ? t->capkids * 2 : 256;
  vkid *k = cct_reallocarray(NULL, cap, sizeof *k);
  if (!k) return -1;
  for (size_t i = 0; i < cap; i++) k[i].node = -1;
  for (size_t j = 0; j < t->capkids; j++) {
    const vkid *e = &t->kids[j];
    if (e->node < 0) continue;
    size_t i = vk_hash(e->parent, e->kind, e->k1, e->k2, e->k3) & (cap - 1);
    while (k[i].node >= 0) i = (i + 1) & (cap - 1);
    k[i] = *e;
  }
  free(t->kids);
  t->kids = k;
  t->capkids = cap;
  return 0;
}

/* Returns the child of parent with key (kind, k1, k2, k3), creating it
 * (*added = 1); -1 when out of memory.  (A map of its own: the views look a
 * child up for every context or caller they merge, 200,000 times for a
 * bottomup 3 of 74,000 occurrences.) */
static int vt_child(vtree *t, int parent, int kind, int64_t k1, int64_t k2, int64_t k3, int *added) {
  *added = 0;
  if ((t->nkids + 1) * 2 > t->capkids && vk_grow(t)) return -1;
  size_t i = vk_hash(parent, kind, k1, k2, k3) & (t->capkids - 1);
  for (;; i = (i + 1) & (t->capkids - 1)) {
    vkid *e = &t->kids[i];
    if (e->node < 0) break;
    if (e->parent == parent && e->kind == kind && e->k1 == k1 && e->k2 == k2 && e->k3 == k3) return e->node;
  }
  int node = vt_add(t, parent, kind);
  if (node < 0) return -1;
  t->kids[i] = (vkid){k1, k2, k3, parent, kind, node, 0};
  t->nkids++;
  *added = 1;
  return node;
}

static void vt_addval(vtree *t, int node, const double *incl, const double *excl) {
  double *v = t->val + (size_t)node * t->nm * 2;
  for (size_t m = 0; m < t->nm; m++) {
    v[2 * m] += incl[m];
    v[2 * m + 1] += excl[m];
  }
}

/* A child with its sort keys (no sort context outside the array). */
typedef struct skey {
  double v; /* the sort value: inclusive or exclusive of the display metric, occurrences, 0 */
  const char *name, *callsite;
  int node;
} skey;

/* Sort value descending, then label, call site and node. */
static int by_value(const void *a, const void *b) {
  const skey *x = a, *y = b;
  if (x->v != y->v) return x->v > y->v ? -1 : 1;
  int c = strcmp(x->name, y->name);
  if (c) return c;
  c = strcmp(x->callsite, y->callsite);
  return c ? c : (x->node > y->node) - (x->node < y->node);
}

/* Builds the sorted child lists. */
static int vt_sort(vtree *t) {
  int *cnt = calloc(t->nn + 1, sizeof *cnt);
  if (!cnt) return -1;
  for (size_t i = 0; i < t->nn; i++)
    if (t->n[i].parent >= 0) cnt[t->n[i].parent]++;
  for (size_t i = 0; i < t->nn; i++) {
    t->n[i].nchild = 0;
    if (cnt[i] && !(t->n[i].child = malloc((size_t)cnt[i] * sizeof(int)))) {
      free(cnt);
      return -1;
    }
  }
  for (size_t i = 0; i < t->nn; i++)
    if (t->n[i].parent >= 0) {
      vnode *p = &t->n[t->n[i].parent];
      p->child[p->nchild++] = (int)i;
    }
  int most = 0;
  for (size_t i = 0; i < t->nn; i++)
    if (cnt[i] > most) most = cnt[i];
  free(cnt);
  skey *keys = malloc(((size_t)most + 1) * sizeof *keys);
  if (!keys) return -1;
  for (size_t i = 0; i < t->nn; i++) {
    vnode *p = &t->n[i];
    if (p->nchild < 2) continue;
    for (int c = 0; c < p->nchild; c++) {
      const vnode *x = &t->n[p->child[c]];
      double key = !t->nm || t->sort == CCT_SORT_NAME ? 0 /* ties: by label */
                   : t->sort == CCT_SORT_OCCURRENCES ? (double)x->occ
                   : t->val[(size_t)p->child[c] * t->nm * 2 + (t->sort == CCT_SORT_EXCLUSIVE)];
      keys[c] = (skey){key, x->name ? x->name : "", x->callsite ? x->callsite : "", p->child[c]};
    }
    qsort(keys, (size_t)p->nchild, sizeof *keys, by_value);
    for (int c = 0; c < p->nchild; c++) p->child[c] = keys[c].node;
  }
  free(keys);
  return 0;
}

/* ---- views ---- */

cct_view *q_view_new(const qv *q, const char *name, const size_t *vcols, size_t n) {
  cct_view *v = calloc(1, sizeof *v);
  if (!v) return NULL;
  v->view = name;
  v->run = q->shown_run;
  v->granularity = q->gran;
  v->nmetrics = n;
  v->metrics = calloc(n + 1, sizeof *v->metrics);
  v->total = calloc(n + 1, sizeof *v->total);
  v->base = calloc(n + 1, sizeof *v->base);
  v->ncenter = q->c->nitems;
  v->center = calloc(q->c->nitems + 1, sizeof *v->center);
  if (!v->metrics || !v->total || !v->base || !v->center) {
    cct_view_free(v);
    return NULL;
  }
  int lost = 0; /* out of memory */
  for (size_t i = 0; i < n; i++) {
    v->metrics[i] = q_strdup(q->r->cols[vcols[i]].name);
    v->total[i] = v->base[i] = q_root_total(q, vcols[i]);
    lost |= !v->metrics[i] && q->r->cols[vcols[i]].name;
  }
  if (q->percent == CCT_PERCENT_CENTER && q->c->nitems && n) { /* shares of the center's inclusive */
    double *excl = calloc(n, sizeof *excl);
    if (excl) q_center_top(q->c, vcols, n, 0, v->base, excl);
    else lost = 1;
    free(excl);
    v->percent = CCT_PERCENT_CENTER;
  }
  for (size_t i = 0; i < q->c->nitems; i++) lost |= !(v->center[i] = q_strdup(q->c->items[i].text));
  size_t nf = q->nfilters + (q->win != NULL); /* a window is named as the filters are (window.c) */
  if (nf && (v->filters = calloc(nf, sizeof *v->filters))) {
    for (size_t i = 0; i < q->nfilters; i++) lost |= !(v->filters[v->nfilters++] = cct_filter_text(&q->filters[i]));
    if (q->win) lost |= !(v->filters[v->nfilters++] = q_window_text(q));
  } else if (nf) {
    lost = 1;
  }
  cct_window *w = q->win ? malloc(sizeof *w) : NULL;
  if (w) *w = (cct_window){(double)q->win->from * 1e-9, (double)q->win->to * 1e-9};
  lost |= q->win && !w;
  v->window = w;
  if (lost) {
    cct_view_free(v);
    return NULL;
  }
  return v;
}

size_t cct_view_path(const cct_view *v, size_t i, const char **names) {
  size_t n = 0;
  for (long j = (long)i; j >= 0 && n <= (size_t)v->rows[i].depth; j = v->rows[j].parent) names[n++] = v->rows[j].name;
  for (size_t a = 0, b = n; a + 1 < b; a++, b--) { /* top row first */
    const char *t = names[a];
    names[a] = names[b - 1];
    names[b - 1] = t;
  }
  return n;
}

/* Frees what row r owns. */
static void row_release(cct_row *r) {
  free(cct_unconst(r->name));
  free(cct_unconst(r->file));
  free(cct_unconst(r->module));
  free(cct_unconst(r->callsite));
  free(cct_unconst(r->text));
  free(r->inclusive);
  free(r->exclusive);
  free(r->share);
}

void cct_view_free(cct_view *v) {
  if (!v) return;
  for (size_t i = 0; i < v->nmetrics; i++) free(cct_unconst(v->metrics[i]));
  for (size_t i = 0; i < v->ncenter; i++) free(cct_unconst(v->center[i]));
  for (size_t i = 0; i < v->nfilters; i++) free(cct_unconst(v->filters[i]));
  free(cct_unconst(v->filters));
  for (size_t i = 0; i < v->nrows; i++) row_release(&v->rows[i]);
  free(v->rows);
  free(cct_unconst(v->metrics));
  free(cct_unconst(v->center));
  free(v->total);
  free(v->base);
  free(cct_unconst(v->note));
  free(cct_unconst(v->window));
  free(v->priv);
  free(v);
}

const lastrow *q_view_facts(const cct_view *v) { return v->priv; }

int q_view_drop_zero(cct_view *v, size_t nshown, cct_err *err) {
  size_t n = v->nrows, m = nshown < v->nmetrics ? nshown : v->nmetrics, kept = 0;
  int data = 0; /* some shown metric has a non-zero total */
  for (size_t k = 0; k < m; k++) data |= v->total[k] != 0;
  if (!n || !data) return CCT_OK;
  unsigned char *keep = calloc(n, 1);
  long *to = calloc(n, sizeof *to);
  if (!keep || !to) {
    free(keep), free(to);
    return cct_err_set(err, CCT_ENOMEM, "out of memory");
  }
  for (size_t i = n; i-- > 0;) { /* children come after their parent: their mark reaches it first */
    const cct_row *r = &v->rows[i];
    for (size_t k = 0; k < m && !keep[i]; k++) keep[i] = r->inclusive[k] != 0 || r->exclusive[k] != 0; /* NaN too */
    if (r->kind == CCT_ROW_CENTER || (r->kind == CCT_ROW_ROOT && r->depth == 0 && strcmp(v->view, "flat"))) keep[i] = 1;
    if (keep[i] && r->parent >= 0) keep[r->parent] = 1;
  }
  lastrow *facts = v->priv;
  for (size_t i = 0; i < n; i++) {
    if (!keep[i]) {
      row_release(&v->rows[i]);
      continue;
    }
    to[i] = (long)kept;
    cct_row r = v->rows[i];
    r.handle = (int)kept + 1;
    r.parent = r.parent >= 0 ? (int)to[r.parent] : -1;
    v->rows[kept] = r;
    if (facts) facts[kept] = facts[i];
    kept++;
  }
  v->zero_rows += n - kept;
  v->nrows = kept;
  free(keep);
  free(to);
  return CCT_OK;
}

/* Emits node i and its visible subtree in pre-order into v (rows and facts);
 * prow is the index in v->rows of the parent's row (-1 for none). */
static int emit(vtree *t, int i, double cut, cct_view *v, lastrow *facts, int *handle, long prow) {
  vnode *x = &t->n[i];
  cct_row *r = &v->rows[v->nrows];
  memset(r, 0, sizeof *r);
  r->handle = ++*handle;
  r->depth = x->depth;
  r->level = x->level;
  r->hot = x->hot;
  r->kind = x->kind;
  r->name = x->name;
  x->name = NULL;
  r->callsite = x->callsite;
  x->callsite = NULL;
  r->inlined = x->inlined;
  r->center = x->center;
  r->line = cct_scope_source_line(x->line); /* (a function's line, or a loop's or line's scope line) */
  r->file = q_strdup(x->filep);
  r->module = q_strdup(x->modp);
  r->parent = (int)prow;
  r->inclusive = calloc(t->nm + 1, sizeof(double));
  r->exclusive = calloc(t->nm + 1, sizeof(double));
  r->mark = 0;
  r->occurrences = x->occ;
  facts[v->nrows] = (lastrow){x->kind, NULL, x->function, x->file, x->module, x->offset, x->line};
  v->nrows++;
  if (!r->inclusive || !r->exclusive) return -1;
  for (size_t m = 0; m < t->nm; m++) {
    r->inclusive[m] = t->val[((size_t)i * t->nm + m) * 2];
    r->exclusive[m] = t->val[((size_t)i * t->nm + m) * 2 + 1];
  }
  long self = (long)v->nrows - 1;
  for (int c = 0; c < x->nchild; c++) {
    int k = x->child[c];
    if ((t->nm && cut > 0 && t->val[(size_t)k * t->nm * 2] < cut) || t->n[k].hide) continue;
    if (emit(t, k, cut, v, facts, handle, self)) return -1;
  }
  return 0;
}

/* Sorts t and moves its rows (roots: nodes without parent, in order) into v. */
static int vt_to_view(const qv *q, vtree *t, const int *roots, size_t nroots, cct_view *v, cct_err *err) {
  t->sort = q->sort;
  if (vt_sort(t)) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  v->rows = calloc(t->nn + 1, sizeof *v->rows);
  lastrow *facts = calloc(t->nn + 1, sizeof *facts);
  if (!v->rows || !facts) {
    free(facts);
    return cct_err_set(err, CCT_ENOMEM, "out of memory");
  }
  double cut = v->nmetrics ? q->threshold * v->base[0] : 0;
  int handle = 0, rc = 0;
  for (size_t i = 0; !rc && i < nroots; i++) {
    /* the top row of topdown / bottomup is never cut; flat rows are */
    int kind = t->n[roots[i]].kind;
    if ((kind != CCT_ROW_CENTER && kind != CCT_ROW_ROOT && t->nm && cut > 0 && t->val[(size_t)roots[i] * t->nm * 2] < cut) ||
        t->n[roots[i]].hide)
      continue;
    rc = emit(t, roots[i], cut, v, facts, &handle, -1);
  }
  for (size_t i = 0; i < v->nrows; i++) facts[i].name = cct_unconst(v->rows[i].name); /* not owned */
  v->priv = facts;
  return rc ? cct_err_set(err, CCT_ENOMEM, "out of memory") : CCT_OK;
}

/* Ends a view built in the row tree t: unless rc says an error came first,
 * fills v from t and hands it to *out; frees t, and v on error.  Returns rc or
 * the error of the conversion. */
static int vt_finish(const qv *q, vtree *t, int rc, cct_view *v, cct_view **out, cct_err *err) {
  int root = 0;
  if (!rc) rc = vt_to_view(q, t, &root, 1, v, err);
  vt_free(t);
  if (rc) {
    cct_view_free(v);
    return rc;
  }
  *out = v;
  return CCT_OK;
}

/* Fills a function row's facts. */
static int set_function(const qv *q, vnode *x, int64_t fn, cct_err *err) {
  const fninfo *f = NULL;
  int rc = q_function(q, fn, &f, err);
  if (rc) return rc;
  x->function = fn;
  if (!f) {
    char buf[32];
    snprintf(buf, sizeof buf, "<function %lld>", (long long)fn);
    x->name = strdup(buf);
    return x->name ? CCT_OK : cct_err_set(err, CCT_ENOMEM, "out of memory");
  }
  x->name = q_strdup(f->name);
  x->file = f->file_id;
  x->filep = f->file;
  x->line = f->line;
  x->module = f->module_id;
  x->modp = f->module;
  return x->name ? CCT_OK : cct_err_set(err, CCT_ENOMEM, "out of memory");
}

/* "PREFIXbasename:line" into *out (malloc'd).  Returns CCT_OK or an error
 * (out of memory, damaged archive) with *out NULL. */
static int loc_label(const qv *q, int loop, int64_t file, long long line, char **out, cct_err *err) {
  *out = NULL;
  const char *p = NULL;
  int rc = q_path(q, 0, file, &p, err);
  if (rc) return rc;
  const fninfo *f = NULL;
  long long fn = cct_scope_function(line);
  int shared = 0;
  if (fn && (rc = q_function(q, fn, &f, err))) return rc;
  if (loop && (rc = q_loop_shared(q, file, line, &shared, err))) return rc;
  *out = q_scope_label(loop, p, line, f ? f->name : NULL, shared);
  return *out ? CCT_OK : cct_err_set(err, CCT_ENOMEM, "out of memory");
}

/* Reads inclusive and exclusive of column col of the static scope (kind s of CCT_FLAT_*,
 * key, line) into *incl, *excl (0 when the scope has no row).  Returns CCT_OK or an error. */
static int flat_one(const qv *q, int s, int64_t key, int64_t line, size_t col, double *incl, double *excl,
                    cct_err *err) {
  *incl = *excl = 0;
  if (q_scopes_in_memory(q, col)) return q_scope_one(q, s, col, key, line, incl, excl, err); /* a filtered run, a window */
  sqlite3_stmt *st = q_stmt(q, ST_FLAT_ONE, err);
  if (!st) return CCT_ESQL;
  sqlite3_bind_int(st, 2, s); /* CCT_FLAT_* = CCT_TOTAL_* (static_assert in flat_rows) */
  sqlite3_bind_int64(st, 3, q->r->cols[col].id);
  sqlite3_bind_int64(st, 4, key);
  sqlite3_bind_int64(st, 5, line);
  int rc = cct_step(st, err);
  if (rc == CCT_STEP_ROW) {
    *incl = sqlite3_column_double(st, 0);
    *excl = sqlite3_column_double(st, 1);
  }
  sqlite3_reset(st);
  return rc == CCT_STEP_ROW ? CCT_OK : rc;
}

/* Whether the center is every frame of one function *fn: items that take all the frames
 * of the functions they match, and every member of O a frame of the same function.  Its
 * top row is then that function's flat row (SPEC section 5: a flat row equals the top row
 * of its item centered; the tests check it on every sample against bottom-up's top row,
 * which sums the occurrences): one look-up instead of the values of every occurrence. */
static int center_one_function(const cct_center *c, int64_t *fn) {
  if (!c->nitems || !c->nO) return 0;
  for (size_t i = 0; i < c->nitems; i++) {
    int t = c->items[i].type;
    if (t != IT_NAME && t != IT_GLOB && t != IT_RE && t != IT_FILE && t != IT_MODULE && t != IT_CLASS &&
        t != IT_NAMESPACE && t != IT_FUNCTION_ID && t != IT_FILE_ID && t != IT_MODULE_ID)
      return 0;
  }
  for (size_t i = 0; i < c->nO; i++)
    if (c->O[i].frame != c->O[i].pre || c->O[i].kind == CCT_KIND_ROOT || c->O[i].function != c->O[0].function)
      return 0;
  *fn = c->O[0].function;
  return 1;
}

/* Whether every column of cols[0..n) is the run's primary metric, whose values the
 * occurrences carry (qctx.pv): none is read from the archive. */
static int columns_in_rows(const qv *q, const size_t *cols, size_t n) {
  if (q->r->ft || !n) return 0;
  for (size_t m = 0; m < n; m++)
    if (cols[m] != q->r->primary || (q->win && cols[m] == q->win->col)) return 0;
  return 1;
}

/* Creates the top row (node 0): the center, or the program root without a center; with
 * fn (a center of every frame of function *fn, lex 0) from that function's flat row. */
static int top_row(const qv *q, vtree *t, const size_t *vcols, size_t nm, int lex, const int64_t *fn, cct_err *err) {
  int top = vt_add(t, -1, q->c->nitems ? CCT_ROW_CENTER : CCT_ROW_ROOT);
  if (top < 0) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  t->n[top].name = strdup(q->c->nitems ? q_center_label(q->c) : "<program>");
  t->n[top].center = q->c->nitems > 0;
  double incl[CCT_VIEW_MAX_METRICS] = {0}, excl[CCT_VIEW_MAX_METRICS] = {0};
  if (q->c->nitems && fn && !lex) {
    for (size_t m = 0; m < nm; m++) {
      int rc = flat_one(q, CCT_FLAT_FUNCTIONS, *fn, 0, vcols[m], &incl[m], &excl[m], err);
      if (rc) return rc;
    }
  } else if (q->c->nitems) {
    q_center_top(q->c, vcols, nm, lex, incl, excl);
  } else {
    double v[3 * CCT_VIEW_MAX_METRICS];
    int rc = q_values(q, q->r->root.pre, vcols, nm, v, err);
    if (rc) return rc;
    for (size_t m = 0; m < nm; m++) {
      incl[m] = v[3 * m];
      excl[m] = v[3 * m + (lex ? 2 : 1)];
    }
  }
  vt_addval(t, top, incl, excl);
  return t->n[top].name ? CCT_OK : cct_err_set(err, CCT_ENOMEM, "out of memory");
}

/* The outermost occurrences (or the root without a center). */
static qctx *outer_list(const qv *q, size_t *n) {
  if (!q->c->nitems) {
    qctx *r = malloc(sizeof *r);
    if (r) *r = q->r->root;
    *n = r ? 1 : 0;
    return r;
  }
  qctx *r = malloc((q->c->nO ? q->c->nO : 1) * sizeof *r);
  *n = 0;
  if (!r) return NULL;
  for (size_t i = 0; i < q->c->nO; i++)
    if (q->c->outer[i]) r[(*n)++] = q->c->O[i];
  return r;
}

/* ---- a map of one context (pre) -> row ----
 * The level maps of topdown: every context of a level is put, every context of
 * the next looks its parent up (a key of one word, not the shared 5-word map). */
typedef struct rmapent {
  int64_t key, val;
} rmapent;
typedef struct rowmap {
  rmapent *e; /* key -1: empty (a pre is never negative) */
  size_t n, cap;
} rowmap;

static size_t rm_hash(int64_t k) {
  uint64_t h = (uint64_t)k * 0x9E3779B97F4A7C15ull;
  return (size_t)(h ^ (h >> 32));
}

static int64_t *rmap_get(const rowmap *m, int64_t key) {
  if (!m->cap || key < 0) return NULL;
  for (size_t i = rm_hash(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
    if (m->e[i].key == key) return &m->e[i].val;
    if (m->e[i].key < 0) return NULL;
  }
}

/* Makes room for m to hold n entries at most half full (one allocation for a level
 * whose size is known, not a doubling series).  Returns 0, or -1 when out of memory. */
static int rmap_room(rowmap *m, size_t n) {
  if (n * 2 <= m->cap) return 0;
  size_t cap = m->cap ? m->cap : 256;
  while (cap < n * 2) cap *= 2;
  rmapent *e = cct_reallocarray(NULL, cap, sizeof *e);
  if (!e) return -1;
  for (size_t i = 0; i < cap; i++) e[i].key = -1;
  for (size_t j = 0; j < m->cap; j++) {
    if (m->e[j].key < 0) continue;
    size_t i = rm_hash(m->e[j].key) & (cap - 1);
    while (e[i].key >= 0) i = (i + 1) & (cap - 1);
    e[i] = m->e[j];
  }
  free(m->e);
  m->e = e, m->cap = cap;
  return 0;
}

/* Puts key -> v unless key is there (*added says which).  Returns the value's slot, NULL when out of memory. */
static int64_t *rmap_put(rowmap *m, int64_t key, int64_t v, int *added) {
  *added = 0;
  if (key < 0 || rmap_room(m, m->n + 1)) return NULL;
  size_t i = rm_hash(key) & (m->cap - 1);
  for (; m->e[i].key >= 0; i = (i + 1) & (m->cap - 1))
    if (m->e[i].key == key) return &m->e[i].val;
  m->e[i] = (rmapent){key, v};
  m->n++;
  *added = 1;
  return &m->e[i].val;
}

static void rmap_free(rowmap *m) {
  free(m->e);
  memset(m, 0, sizeof *m);
}

/* ---- top-down ----
 *
 * Level k (1..depth) holds the contexts at function level fdepth(o) + k (line
 * level: ldepth(o) + k, one less for a call-site line, whose callees take its
 * place) inside the subtree of each o in O*.  They are found in memory by one
 * walk of each subtree in pre order over the run's tree image, which skips every
 * subtree below the last level (and, at function granularity, every subtree
 * without a frame): work bounded by the rows and the contexts between them, not
 * by the size of the run.  The rows of a level come out in pre order, as
 * occurrence after occurrence; values of metrics other than the primary one
 * are then read in one statement per metric and level (q_values_many). */

/* One context of a level as the merge reads it (lctx_of). */
typedef struct lctx {
  int64_t parent, function, file, line, module, offset, call_file, call_line, pre; /* parent: fparent or lparent */
  int kind, relation, callsite;
} lctx;

/* The contexts of a level: tree nodes (their fields are read once, when the level is
 * merged, not copied into a row of 120 bytes each as the walk finds them). */
typedef struct lrows {
  int32_t *v;
  size_t n, cap;
} lrows;

/* The fields of node i that td_add merges by (granularity line or function). */
static void lctx_of(const cct_tree *t, int32_t i, int line, lctx *r) {
  int64_t b = t->base;
  int32_t p = line ? t->lparent[i] : t->fparent[i];
  memset(r, 0, sizeof *r);
  r->parent = p < 0 ? -1 : b + p;
  r->function = t->function[i];
  r->relation = t->relation[i];
  r->pre = b + i;
  if (!line) {
    r->kind = CCT_KIND_FUNCTION; /* every frame is a function row at function granularity */
  } else {
    r->kind = t->kind[i];
    r->file = t->file[i];
    r->line = t->line[i];
    r->module = t->module[i];
    r->offset = t->offset[i];
    r->callsite = t->callsite[i];
    r->call_file = t->call_file[i];
    r->call_line = t->call_line[i];
  }
}

/* The level of o that its level-1 rows are one below. */
static int td_base(const qv *q, const qctx *o) {
  if (q->gran != CCT_GRAN_LINE) return o->fdepth;
  return o->ldepth - (o->kind == CCT_KIND_LINE && o->callsite ? 1 : 0);
}

/* Files node i at level k into lv[k], growing lv (*nlv levels allocated, *maxk the
 * deepest level filled). */
static int td_emit(const qv *q, int32_t i, int k, lrows **lv, int *nlv, int *maxk, cct_err *err) {
  (void)q;
  if (k > *nlv) {
    int n = *nlv ? *nlv : 4;
    while (n < k) n *= 2;
    lrows *v = cct_reallocarray(*lv, (size_t)n + 1, sizeof *v);
    if (!v) return cct_err_set(err, CCT_ENOMEM, "out of memory");
    size_t from = *lv ? (size_t)*nlv + 1 : 0; /* entries 0..nlv are in use once allocated */
    memset(v + from, 0, ((size_t)n + 1 - from) * sizeof *v);
    *lv = v;
    *nlv = n;
  }
  lrows *l = &(*lv)[k];
  if (CCT_GROW(l->v, l->n + 1, l->cap)) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  l->v[l->n++] = i;
  if (k > *maxk) *maxk = k;
  return CCT_OK;
}

/* Files the rows of levels 1..depth below tree node x into lv[1..] (td_emit).  Line
 * granularity: a walk of x's subtree in pre order that skips what lies below the last
 * level (level k = ldepth - base).  Function granularity: the callee lists of the index
 * (q_frame_children), depth first, so that only the frames shown are visited; the
 * level-1 frames are the callees of x's frame inside x's subtree. */
static int td_walk_node(const qv *q, int32_t x, int base, int depth, lrows **lv, int *nlv, int *maxk, cct_err *err) {
  const cct_tree *t = &q->r->tree;
  int rc = CCT_OK;
  if (q->gran == CCT_GRAN_LINE) {
    for (int32_t i = x + 1; !rc && i <= t->last[x];) {
      int k = t->ldepth[i] - base;
      if (k >= 1 && k <= depth) rc = td_emit(q, i, k, lv, nlv, maxk, err);
      int down = t->last[i] > i && (k < depth || t->callsite[i]);
      i = down ? i + 1 : t->last[i] + 1;
    }
    return rc;
  }
  if (t->nframes[x] <= 0 || depth < 1) return CCT_OK;
  typedef struct span {
    const int32_t *v;
    size_t i, n;
  } span;
  span *st = malloc(((size_t)(depth < 64 ? depth : 64) + 1) * sizeof *st);
  size_t cap = (size_t)(depth < 64 ? depth : 64) + 1, top = 0;
  if (!st) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  const int32_t *c;
  size_t n;
  rc = q_frame_children(q, t->frame[x], &c, &n, err);
  size_t lo = 0, hi = n; /* the callees inside o's subtree: x < c <= last[x] */
  while (lo < hi && c[lo] <= x) lo++;
  while (hi > lo && c[hi - 1] > t->last[x]) hi--;
  if (!rc) st[top++] = (span){c + lo, 0, hi - lo};
  while (!rc && top) {
    span *s = &st[top - 1];
    if (s->i == s->n) {
      top--;
      continue;
    }
    int32_t f = s->v[s->i++];
    int k = (int)top;
    rc = td_emit(q, f, k, lv, nlv, maxk, err);
    if (rc || k >= depth || t->nframes[f] <= 0) continue;
    if (!(rc = q_frame_children(q, f, &c, &n, err)) && n) {
      if (top == cap) {
        span *w = cct_reallocarray(st, cap * 2, sizeof *st);
        if (!w) {
          rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
          break;
        }
        st = w;
        cap *= 2;
      }
      st[top++] = (span){c, 0, n};
    }
  }
  free(st);
  return rc;
}

/* td_walk_node below occurrence o, whose level-1 rows are one below td_base. */
static int td_walk(const qv *q, const qctx *o, int depth, lrows **lv, int *nlv, int *maxk, cct_err *err) {
  int32_t x;
  if (q_tree_node(q, o->pre, &x)) return cct_err_set(err, CCT_ECORRUPT, "context %lld is not in run %d", (long long)o->pre, q->shown_run);
  return td_walk_node(q, x, td_base(q, o), depth, lv, nlv, maxk, err);
}

/* Adds the rows of one level (sorted by pre) to t.  prev maps the contexts of
 * the level above to rows; cur receives this level's. */
static int td_add(const qv *q, vtree *t, const lrows *l, int k, const rowmap *prev, rowmap *cur, const size_t *vcols,
                  size_t nm, cct_err *err) {
  int line = q->gran == CCT_GRAN_LINE;
  const cct_tree *tr = &q->r->tree;
  size_t n = l->n;
  int64_t *ids = malloc((n ? n : 1) * sizeof *ids);
  double *vals = malloc((n ? n : 1) * 3 * (nm ? nm : 1) * sizeof *vals), *pv = malloc((n ? n : 1) * 3 * sizeof *pv);
  int rc = ids && vals && pv && !rmap_room(cur, cur->n + n) ? CCT_OK : cct_err_set(err, CCT_ENOMEM, "out of memory");
  for (size_t i = 0; !rc && i < n; i++) {
    int32_t x = l->v[i];
    ids[i] = tr->base + x;
    pv[3 * i] = tr->incl[x], pv[3 * i + 1] = tr->excl[x], pv[3 * i + 2] = tr->lex[x];
  }
  /* the primary metric's values from the arrays */
  if (!rc) rc = q_values_many(q, ids, n, vcols, nm, n ? pv : NULL, 3 * sizeof *pv, vals, 3 * nm, err);
  free(ids);
  free(pv);
  for (size_t i = 0; !rc && i < n; i++) {
    lctx rx;
    lctx_of(tr, l->v[i], line, &rx);
    const lctx *r = &rx;
    int parent = 0;
    if (k > 1) {
      int64_t *p = rmap_get(prev, r->parent);
      if (!p) continue; /* under a context without a row of its own (a call-site line without residue) */
      parent = (int)*p;
    }
    const double *v = vals + 3 * nm * i;
    double incl[CCT_VIEW_MAX_METRICS], excl[CCT_VIEW_MAX_METRICS];
    int is_frame = r->kind == CCT_KIND_FUNCTION || (r->kind == CCT_KIND_INSTRUCTION && r->relation == CCT_REL_CALL);
    int kind, added = 0;
    int64_t k1 = 0, k2 = 0, k3 = 0;
    for (size_t m = 0; m < nm; m++) {
      incl[m] = v[3 * m];
      excl[m] = v[3 * m + 2]; /* topdown: lex_aware (equals exclusive where the run lacks it) */
    }
    if (is_frame) {
      kind = CCT_ROW_FUNCTION;
      k1 = r->function;
      if (line) k2 = r->call_file, k3 = r->call_line;
    } else if (r->kind == CCT_KIND_LOOP) {
      kind = CCT_ROW_LOOP;
      k1 = r->file, k2 = cct_scope_line(r->kind, r->line, r->function, r->module, r->offset);
    } else if (r->kind == CCT_KIND_LINE) {
      kind = CCT_ROW_LINE;
      k1 = r->file, k2 = cct_scope_line(r->kind, r->line, r->function, r->module, r->offset);
      if (r->callsite) { /* only its residue: its own (exclusive) cost */
        int any = 0;
        for (size_t m = 0; m < nm; m++) {
          incl[m] = v[3 * m + 1];
          any |= incl[m] != 0;
        }
        if (!any) continue;
      }
    } else {
      kind = CCT_ROW_INSTRUCTION;
      k1 = r->module, k2 = r->offset;
    }
    int node = vt_child(t, parent, kind, k1, k2, k3, &added);
    if (node < 0) {
      rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
      break;
    }
    vnode *x = &t->n[node];
    if (added) {
      x->inlined = r->relation == CCT_REL_INLINED;
      if (kind == CCT_ROW_FUNCTION) {
        rc = set_function(q, x, r->function, err);
        x->center = q_center_has_function(q->c, r->function);
        if (!rc && line && r->call_line >= 0) rc = loc_label(q, 0, r->call_file, r->call_line, &x->callsite, err);
      } else if (kind == CCT_ROW_INSTRUCTION) {
        const char *mp = NULL;
        if ((rc = q_path(q, 1, r->module, &mp, err))) break;
        char buf[600];
        snprintf(buf, sizeof buf, "%s+0x%llx", mp ? cct_basename(mp) : "?", (unsigned long long)r->offset);
        x->name = strdup(buf);
        x->module = r->module;
        x->modp = mp;
        x->offset = r->offset;
      } else {
        x->line = k2;
        rc = loc_label(q, kind == CCT_ROW_LOOP, r->file, x->line, &x->name, err);
        x->file = r->file;
        if (!rc) rc = q_path(q, 0, r->file, &x->filep, err); /* cached by loc_label */
      }
      if (!rc && !x->name) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
      if (rc) break;
    } else if (r->relation != CCT_REL_INLINED) {
      x->inlined = 0;
    }
    vt_addval(t, node, incl, excl);
    int put;
    if (!rmap_put(cur, r->pre, node, &put)) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
  }
  free(vals);
  return rc;
}

/* ---- the hot path ----
 *
 * As hpcviewer's hot-path button: from the top row, the heaviest child (by the
 * inclusive value of the display metric; ties as siblings sort) while it holds at
 * least the fraction q->hot of its parent's inclusive.  Those rows (and the top)
 * are hot, and a hot row uses no level of the depth: a row's level is 0 when hot,
 * else its parent's plus one, and the view holds the rows whose parent's level is
 * below the depth.  Without hot rows that is depth D; with them, topdown D shows
 * the whole hot path and D levels below every row of it, and is exactly the rows
 * of level <= D of topdown D + k (the hot path does not depend on the depth). */

/* The inclusive value of node i the view shows first (a statistic or derived
 * metric computed from the engine's columns). */
static double shown_value(const qv *q, const vtree *t, size_t i) {
  const double *v = &t->val[i * t->nm * 2];
  return q->shown ? q_vm_value(q->shown, v) : v[0];
}

/* The heaviest child of h among nodes [from, to) when it holds at least frac of h. */
static int hot_child(const qv *q, const vtree *t, int h, size_t from, size_t to, double frac) {
  int best = -1;
  double bv = 0, hv = shown_value(q, t, (size_t)h);
  for (size_t i = from; i < to; i++) {
    if (t->n[i].parent != h) continue;
    double v = shown_value(q, t, i);
    const vnode *x = &t->n[i], *b = best >= 0 ? &t->n[best] : NULL;
    int c = 0;
    if (b && v == bv) c = strcmp(x->name ? x->name : "", b->name ? b->name : "");
    if (b && v == bv && !c) c = strcmp(x->callsite ? x->callsite : "", b->callsite ? b->callsite : "");
    if (!b || v > bv || (v == bv && c < 0)) best = (int)i, bv = v;
  }
  return best >= 0 && hv > 0 && bv > 0 && bv >= frac * hv ? best : -1;
}

/* Marks the hot child of *tail among nodes [from, to) (then the new tail), and sets
 * the levels of those nodes. */
static void hot_level(const qv *q, vtree *t, int *tail, size_t from, size_t to, double frac) {
  int c = *tail >= 0 ? hot_child(q, t, *tail, from, to, frac) : -1;
  if (c >= 0) t->n[c].hot = 1;
  *tail = c;
  for (size_t i = from; i < to; i++) t->n[i].level = t->n[i].hot ? 0 : t->n[t->n[i].parent].level + 1;
}

/* After the levels 1..maxk of a topdown of depth (start[k]: the first node of level
 * k, start[maxk + 1] = t->nn): marks the hot path, and adds the levels below maxk
 * that rows of level < depth need, one level at a time (the contexts of level k in
 * *last, their rows in *prev).  Returns CCT_OK or an error. */
static int td_hot(const qv *q, vtree *t, int depth, const size_t *start, int maxk, const lrows *last, rowmap *prev,
                  const size_t *vcols, size_t nm, cct_err *err) {
  const cct_tree *tr = &q->r->tree;
  int line = q->gran == CCT_GRAN_LINE, tail = 0, rc = CCT_OK;
  t->n[0].hot = 1;
  for (int k = 1; k <= maxk; k++) hot_level(q, t, &tail, start[k], start[k + 1], q->hot);
  lrows cur = *last, *nx = NULL; /* cur: the deepest level (owned from the second round on) */
  int nnx = 0, mk = 0, own = 0;
  for (int k = maxk; !rc && k >= depth;) { /* rows of level < depth at depth k need children */
    for (size_t i = 0; !rc && i < cur.n; i++) {
      int32_t x = cur.v[i];
      int64_t *row = rmap_get(prev, tr->base + x);
      if (!row || t->n[*row].level >= depth || (line && tr->callsite[x])) continue; /* a call site's callees are rows */
      rc = td_walk_node(q, x, line ? tr->ldepth[x] : 0, 1, &nx, &nnx, &mk, err);
    }
    if (rc || !mk || !nx[1].n) break;
    rowmap next = {0};
    size_t from = t->nn;
    rc = td_add(q, t, &nx[1], k + 1, prev, &next, vcols, nm, err);
    if (!rc) hot_level(q, t, &tail, from, t->nn, q->hot);
    rmap_free(prev);
    *prev = next;
    if (own) free(cur.v);
    cur = nx[1], own = 1;
    memset(&nx[1], 0, sizeof nx[1]);
    mk = 0;
    k++;
  }
  if (own) free(cur.v);
  for (int k = 0; nx && k <= nnx; k++) free(nx[k].v);
  free(nx);
  return rc;
}

int q_topdown(const qv *q, int depth, cct_view **out, cct_err *err) {
  *out = NULL;
  if (depth < 0) return cct_err_set(err, CCT_EUSAGE, "depth must be 0 or more");
  size_t vcols[CCT_VIEW_MAX_METRICS], nm = q_view_columns(q, vcols);
  int64_t fn = 0;
  /* the top row from the function's flat row when the occurrences' values would be read
   * through SQLite; from the occurrences when they carry them (the run's primary metric):
   * no look-up in scope_total, whose integrity check is ~30 ms at 1M contexts */
  int flatrow = center_one_function(q->c, &fn) && !columns_in_rows(q, vcols, nm);
  int need = !flatrow || q->percent == CCT_PERCENT_CENTER ? q_center_need(q, vcols, nm, err) : CCT_OK;
  if (need) return need;
  cct_view *v = q_view_new(q, "topdown", vcols, nm);
  if (!v) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  vtree t = {0};
  t.nm = nm;
  size_t no = 0;
  qctx *os = outer_list(q, &no);
  lrows *lv = NULL; /* lv[k], k = 1..nlv: the rows of level k */
  int nlv = 0, maxk = 0;
  rowmap prev = {0}, cur = {0};
  int rc = os ? top_row(q, &t, vcols, nm, 0, flatrow ? &fn : NULL, err) : cct_err_set(err, CCT_ENOMEM, "out of memory");
  for (size_t i = 0; !rc && i < no && depth > 0; i++) rc = td_walk(q, &os[i], depth, &lv, &nlv, &maxk, err);
  size_t *start = calloc((size_t)maxk + 2, sizeof *start); /* the first node of each level */
  if (!rc && !start) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
  for (int k = 1; !rc && k <= maxk; k++) {
    start[k] = t.nn;
    rc = td_add(q, &t, &lv[k], k, &prev, &cur, vcols, nm, err);
    rmap_free(&prev);
    prev = cur;
    memset(&cur, 0, sizeof cur);
  }
  if (start) start[maxk + 1] = t.nn;
  if (!rc && q->hot > 0 && nm && maxk > 0) rc = td_hot(q, &t, depth, start, maxk, &lv[maxk], &prev, vcols, nm, err);
  free(start);
  rmap_free(&prev);
  rmap_free(&cur);
  v->hotpath = q->hot;
  for (int k = 0; lv && k <= nlv; k++) free(lv[k].v);
  free(lv);
  free(os);
  return vt_finish(q, &t, rc, v, out, err);
}

/* Bottom-up: the caller chains of O*, walked one level at a time for all
 * occurrences together, so that the callers of a level are read in one
 * statement.  Rows are created and values added in occurrence order within
 * each level, which keeps the order of siblings and of sums of a walk done
 * occurrence by occurrence. */
int q_bottomup(const qv *q, int depth, cct_view **out, cct_err *err) {
  *out = NULL;
  if (depth < 0) return cct_err_set(err, CCT_EUSAGE, "depth must be 0 or more");
  if (!q->c->nitems) return cct_err_set(err, CCT_EUSAGE, "no center: use 'center NAME' or 'flat'");
  size_t vcols[CCT_VIEW_MAX_METRICS], nm = q_view_columns(q, vcols);
  int need = q_center_need(q, vcols, nm, err);
  if (need) return need;
  cct_view *v = q_view_new(q, "bottomup", vcols, nm);
  if (!v) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  vtree t = {0};
  t.nm = nm;
  int rc = top_row(q, &t, vcols, nm, 0, NULL, err);
  int line = q->gran == CCT_GRAN_LINE;
  /* per walk (one per member of O*): O index, current row, next caller frame, call site */
  typedef struct walk {
    size_t i;
    int node;
    int64_t cur, cfile, cline;
  } walk;
  walk *w = malloc((q->c->nO + 1) * sizeof *w);
  size_t nw = 0;
  if (!rc && !w) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
  long long paths = 0; /* the outermost occurrences: each one caller path */
  for (size_t i = 0; i < q->c->nO; i++) paths += q->c->outer[i] != 0;
  if (!rc) t.n[0].occ = paths;
  for (size_t i = 0; !rc && i < q->c->nO && depth > 0; i++) {
    if (!q->c->outer[i]) continue;
    const qctx *o = &q->c->O[i];
    int is_frame = o->frame == o->pre;
    w[nw++] = (walk){i, 0, is_frame ? o->fparent : o->frame, is_frame ? o->call_file : 0, is_frame ? o->call_line : -1};
    if (o->kind == CCT_KIND_ROOT) w[nw - 1].cur = -1;
  }
  const cct_tree *tr = &q->r->tree;
  enum { AHEAD = 8 }; /* callers far apart in the arrays: their fields are asked for ahead, to overlap the misses */
  for (int k = 1; !rc && k <= depth && nw; k++) {
    size_t keep = 0;
    for (size_t j = 0; !rc && j < nw; j++) {
      walk *x = &w[j];
      if (j + AHEAD < nw) {
        int64_t ahead = w[j + AHEAD].cur - tr->base;
        if (ahead > 0 && ahead < tr->n) {
          __builtin_prefetch(&tr->kind[ahead]), __builtin_prefetch(&tr->function[ahead]);
          __builtin_prefetch(&tr->fparent[ahead]), __builtin_prefetch(&tr->call_file[ahead]);
          __builtin_prefetch(&tr->call_line[ahead]);
        }
      }
      double incl[CCT_VIEW_MAX_METRICS], excl[CCT_VIEW_MAX_METRICS];
      for (size_t m = 0; m < nm; m++) {
        incl[m] = q->c->cv[vcols[m]][3 * x->i];
        excl[m] = q->c->cv[vcols[m]][3 * x->i + 1];
      }
      int32_t f = -1; /* the caller frame (a node of the tree image) */
      if (x->cur >= 0 && x->cur != q->r->root.pre && q_tree_node(q, x->cur, &f)) {
        rc = cct_err_set(err, CCT_ECORRUPT, "caller context %lld is not in run %d", (long long)x->cur, q->shown_run);
        break;
      }
      if (f >= 0 && tr->kind[f] == CCT_KIND_ROOT) f = -1; /* defensive: the root is never a caller row */
      if (f < 0) { /* the chain ends: an occurrence without a caller sits under '<program root>' */
        if (k == 1) {
          int added;
          int node = vt_child(&t, 0, CCT_ROW_ROOT, 0, 0, 0, &added);
          if (node < 0) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
          else {
            if (added && !(t.n[node].name = strdup("<program root>"))) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
            vt_addval(&t, node, incl, excl);
            t.n[node].occ += added ? 2 : 1; /* from -1: one path more */
          }
        }
        continue;
      }
      int added;
      int64_t ffn = tr->function[f];
      int child = vt_child(&t, x->node, CCT_ROW_FUNCTION, ffn, line ? x->cfile : 0, line ? x->cline : 0, &added);
      if (child < 0) {
        rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
        break;
      }
      if (added) {
        rc = set_function(q, &t.n[child], ffn, err);
        t.n[child].inlined = tr->relation[f] == CCT_REL_INLINED;
        t.n[child].center = q_center_has_function(q->c, ffn);
        if (!rc && line && x->cline >= 0) rc = loc_label(q, 0, x->cfile, x->cline, &t.n[child].callsite, err);
      }
      vt_addval(&t, child, incl, excl);
      t.n[child].occ += added ? 2 : 1; /* from -1: one path more */
      x->node = child;
      x->cfile = tr->call_file[f];
      x->cline = tr->call_line[f];
      x->cur = tr->fparent[f] < 0 ? -1 : tr->base + tr->fparent[f];
      if (x->cur < 0 || x->cur == q->r->root.pre) continue; /* chain ends: no '<program root>' below level 1 */
      w[keep++] = *x;
    }
    nw = keep;
  }
  free(w);
  return vt_finish(q, &t, rc, v, out, err);
}

/* ---- flat ---- */

typedef struct frow {
  int64_t key, line;
  double incl, excl;
  char *label;
  long long occ; /* contexts the scope adds up, -1 when not counted */
  double sortv;  /* the sort value (descending; 0 for every row when sorting by name) */
} frow;

/* Sort value descending, then label, key and line. */
static int by_sortv(const void *a, const void *b) {
  const frow *x = a, *y = b;
  if (x->sortv != y->sortv) return x->sortv > y->sortv ? -1 : 1;
  if (x->label && y->label) {
    int c = strcmp(x->label, y->label);
    if (c) return c;
  }
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->line > y->line) - (x->line < y->line);
}

/* Sets the sort value of rows[0..n) for the order sort. */
static void flat_sortv(frow *rows, size_t n, int sort) {
  for (size_t i = 0; i < n; i++)
    rows[i].sortv = sort == CCT_SORT_EXCLUSIVE     ? rows[i].excl
                    : sort == CCT_SORT_OCCURRENCES ? (double)rows[i].occ
                    : sort == CCT_SORT_NAME        ? 0
                                                   : rows[i].incl;
}

/* Labels rows[0..n) of kind s that have none. */
static int flat_labels(const qv *q, int s, frow *rows, size_t n, cct_err *err) {
  int rc = CCT_OK;
  for (size_t i = 0; i < n && !rc; i++) {
    if (rows[i].label) continue;
    if (s == CCT_FLAT_FUNCTIONS) {
      const fninfo *f = NULL;
      if ((rc = q_function(q, rows[i].key, &f, err))) break;
      rows[i].label = q_strdup(f ? f->name : "?");
    } else if (s == CCT_FLAT_FILES || s == CCT_FLAT_MODULES) {
      const char *p = NULL;
      if ((rc = q_path(q, s == CCT_FLAT_MODULES, rows[i].key, &p, err))) break;
      rows[i].label = q_strdup(p ? p : "?");
    } else {
      rc = loc_label(q, s == CCT_FLAT_LOOPS, rows[i].key, rows[i].line, &rows[i].label, err);
    }
    if (!rc && !rows[i].label) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
  }
  return rc;
}

/* Reads the static scopes of kind s for the display metric, sorted by q->sort, at
 * most n (0 = all), with count set the contexts each one adds up (functions, loops and
 * lines; what 'center' finds for the row; -1 for others and lines without a number). */
static int flat_rows(const qv *q, int s, int n, int count, frow **prows, size_t *pnr, cct_err *err) {
  _Static_assert((int)CCT_FLAT_FUNCTIONS == CCT_TOTAL_FUNCTION && (int)CCT_FLAT_LOOPS == CCT_TOTAL_LOOP &&
                     (int)CCT_FLAT_LINES == CCT_TOTAL_LINE && (int)CCT_FLAT_FILES == CCT_TOTAL_FILE &&
                     (int)CCT_FLAT_MODULES == CCT_TOTAL_MODULE,
                 "flat kinds are scope_total kinds");
  *prows = NULL;
  *pnr = 0;
  if (!q->r->ncols) return CCT_OK;
  int sort = q->sort;
  int counted = (count || sort == CCT_SORT_OCCURRENCES) &&
                (s == CCT_FLAT_FUNCTIONS || s == CCT_FLAT_LOOPS || s == CCT_FLAT_LINES);
  frow *rows = NULL;
  size_t nr = 0, cap = 0;
  int step;
  if (q_scopes_in_memory(q, q->disp)) { /* a filtered run, a window: its scopes computed in memory */
    const qscope *sc = NULL;
    size_t nsc = 0;
    int rc = q_scopes(q, s, q->disp, &sc, &nsc, err);
    if (!rc && nsc && !(rows = calloc(nsc, sizeof *rows))) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
    if (rc) return rc;
    for (size_t i = 0; i < nsc; i++) {
      rows[nr] = (frow){sc[i].key, sc[i].line, sc[i].incl, sc[i].excl, NULL, -1, 0};
      if (counted && (s == CCT_FLAT_FUNCTIONS || sc[i].line != -1)) rows[nr].occ = sc[i].contexts;
      nr++;
    }
    goto sorted;
  }
  sqlite3_stmt *st = q_stmt(q, ST_FLAT, err);
  if (!st) return CCT_ESQL;
  sqlite3_bind_int(st, 2, s);
  sqlite3_bind_int64(st, 3, q->r->cols[q->disp].id);
  while ((step = cct_step(st, err)) == CCT_STEP_ROW) {
    if (CCT_GROW(rows, nr + 1, cap)) {
      free(rows);
      sqlite3_reset(st);
      return cct_err_set(err, CCT_ENOMEM, "out of memory");
    }
    frow *r = &rows[nr++];
    *r = (frow){sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1), sqlite3_column_double(st, 2),
                sqlite3_column_double(st, 3), NULL, -1, 0};
    if (counted && (s == CCT_FLAT_FUNCTIONS || r->line != -1)) r->occ = sqlite3_column_int64(st, 4);
  }
  sqlite3_reset(st);
  if (step) {
    free(rows);
    return step;
  }
sorted:;
  /* Sorting by name needs the labels of every row first. */
  int rc = sort == CCT_SORT_NAME ? flat_labels(q, s, rows, nr, err) : CCT_OK;
  flat_sortv(rows, nr, sort);
  if (nr && !rc) qsort(rows, nr, sizeof *rows, by_sortv);
  /* Labels for the rows shown and the rows tied with the last one, then the final order. */
  size_t keep = n > 0 && (size_t)n < nr ? (size_t)n : nr;
  while (sort != CCT_SORT_NAME && keep < nr && rows[keep].sortv == rows[keep - 1].sortv) keep++;
  if (!rc) rc = flat_labels(q, s, rows, keep, err);
  if (keep) qsort(rows, keep, sizeof *rows, by_sortv);
  if (n > 0 && keep > (size_t)n) keep = (size_t)n;
  for (size_t i = keep; i < nr; i++) free(rows[i].label), rows[i].label = NULL;
  *prows = rows;
  *pnr = keep;
  return rc;
}

/* Whether the center holds a context of kind at (file, line). */
static int center_has_at(const qv *q, int kind, int64_t file, long long line) {
  for (size_t i = 0; i < q->c->nO; i++)
    if (q->c->O[i].kind == kind && q->c->O[i].file == file && q_ctx_scope_line(&q->c->O[i]) == line)
      return 1;
  return 0;
}

/* Sets *has to whether an item names file / module id.  Returns CCT_OK or an error. */
static int center_has_scope(const qv *q, int module, int64_t id, int *has, cct_err *err) {
  *has = 0;
  for (size_t i = 0; i < q->c->nitems && !*has; i++) {
    const citem *it = &q->c->items[i];
    if (it->type == (module ? IT_MODULE_ID : IT_FILE_ID) && it->id == id) *has = 1;
    if (it->type == (module ? IT_MODULE : IT_FILE)) {
      const char *p = NULL;
      int rc = q_path(q, module, id, &p, err);
      if (rc) return rc;
      *has = p && q_suffix_match(p, it->arg);
    }
  }
  return CCT_OK;
}

/* Fills node x (kind s of CCT_FLAT_*) from a flat row; values of other columns by point look-up. */
static int flat_node(const qv *q, vtree *t, int node, int s, const frow *r, const size_t *vcols, size_t nm,
                     cct_err *err) {
  vnode *x = &t->n[node];
  x->occ = r->occ >= 0 ? r->occ : -1;
  double incl[CCT_VIEW_MAX_METRICS] = {0}, excl[CCT_VIEW_MAX_METRICS] = {0};
  incl[0] = r->incl;
  excl[0] = r->excl;
  for (size_t m = 1; m < nm; m++) {
    int rc = flat_one(q, s, r->key, r->line, vcols[m], &incl[m], &excl[m], err);
    if (rc) return rc;
  }
  vt_addval(t, node, incl, excl);
  x = &t->n[node];
  switch (s) {
  case CCT_FLAT_FUNCTIONS: {
    int rc = set_function(q, x, r->key, err);
    if (rc) return rc;
    x->center = q_center_has_function(q->c, r->key);
    break;
  }
  case CCT_FLAT_LOOPS:
  case CCT_FLAT_LINES: {
    x->name = q_strdup(r->label);
    x->file = r->key;
    x->line = r->line;
    x->center = center_has_at(q, s == CCT_FLAT_LOOPS ? CCT_KIND_LOOP : CCT_KIND_LINE, r->key, r->line);
    int rc = q_path(q, 0, r->key, &x->filep, err);
    if (rc) return rc;
    break;
  }
  case CCT_FLAT_FILES:
  default: {
    int module = s != CCT_FLAT_FILES;
    x->name = q_strdup(r->label);
    if (module) x->module = r->key;
    else x->file = r->key;
    int rc = q_path(q, module, r->key, module ? &x->modp : &x->filep, err);
    if (!rc) rc = center_has_scope(q, module, r->key, &x->center, err);
    if (rc) return rc;
  }
  }
  return x->name ? CCT_OK : cct_err_set(err, CCT_ENOMEM, "out of memory");
}

static const int flat_row_kind[] = {CCT_ROW_FUNCTION, CCT_ROW_LOOP, CCT_ROW_LINE, CCT_ROW_FILE, CCT_ROW_MODULE};

/* Loop and line rows of function fn under node: loops by header, lines under
 * their innermost loop of the same frame; inclusive by the outermost rule per key. */
static int flat_scopes(const qv *q, vtree *t, int node, int64_t fn, const size_t *vcols, size_t nm, double cut,
                       cct_err *err) {
  typedef struct sc {
    int64_t pre, last, frame, file, line;
    int kind;
    double pv[3]; /* the primary metric's values */
  } sc;
  const cct_tree *tr = &q->r->tree;
  const int32_t *nodes;
  size_t n = 0;
  int rc = q_frames_of(q, fn, 1, &nodes, &n, err); /* the loops and lines of fn's frames, in pre order */
  if (rc) return rc;
  sc *v = malloc((n ? n : 1) * sizeof *v);
  int64_t *pres = malloc((n ? n : 1) * sizeof *pres);
  double *vals = malloc((n ? n : 1) * 3 * (nm ? nm : 1) * sizeof *vals);
  if (!v || !pres || !vals) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
  for (size_t i = 0; !rc && i < n; i++) {
    int32_t x = nodes[i];
    v[i] = (sc){tr->base + x, tr->base + tr->last[x], tr->base + tr->frame[x], tr->file[x],
                q_node_scope_line(tr, x),
                tr->kind[x], {tr->incl[x], tr->excl[x], tr->lex[x]}};
    pres[i] = v[i].pre;
  }
  /* every value in one statement run per metric other than the primary one */
  if (!rc) rc = q_values_many(q, pres, n, vcols, nm, n ? v[0].pv : NULL, sizeof *v, vals, 3 * nm, err);
  free(pres);
  int *stack = malloc((n + 1) * sizeof *stack);
  int *rowof = malloc((n + 1) * sizeof *rowof);
  qmap maxlast = {0};
  if (!stack || !rowof) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
  size_t top = 0;
  for (size_t i = 0; !rc && i < n; i++) {
    sc *x = &v[i];
    while (top && v[stack[top - 1]].last < x->pre) top--;
    int parent = node;
    if (top && v[stack[top - 1]].frame == x->frame) parent = rowof[stack[top - 1]];
    int added;
    int kind = x->kind == CCT_KIND_LOOP ? CCT_ROW_LOOP : CCT_ROW_LINE;
    int r = vt_child(t, parent, kind, x->file, x->line, 0, &added);
    if (r < 0) {
      rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
      break;
    }
    if (added) {
      t->n[r].file = x->file;
      t->n[r].line = x->line;
      t->n[r].center = center_has_at(q, x->kind, x->file, x->line);
      rc = loc_label(q, kind == CCT_ROW_LOOP, x->file, x->line, &t->n[r].name, err);
      if (!rc) rc = q_path(q, 0, x->file, &t->n[r].filep, err);
      if (rc) break;
    }
    rowof[i] = r;
    const double *xv = vals + 3 * nm * i;
    double incl[CCT_VIEW_MAX_METRICS], excl[CCT_VIEW_MAX_METRICS];
    int64_t *ml = qmap_put(&maxlast, r, 0, 0, 0, 0, -1, &added);
    if (!ml) {
      rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
      break;
    }
    int outer = x->pre > *ml;
    if (outer) *ml = x->last;
    for (size_t m = 0; m < nm; m++) {
      incl[m] = outer ? xv[3 * m] : 0;
      excl[m] = xv[3 * m + 1];
    }
    vt_addval(t, r, incl, excl);
    if (x->kind == CCT_KIND_LOOP) stack[top++] = (int)i;
  }
  (void)cut;
  qmap_free(&maxlast);
  free(stack);
  free(rowof);
  free(v);
  free(vals);
  return rc;
}

/* Appends x to the list *l (*n entries, *cap allocated).  Returns 0 or -1. */
static int push_int(int **l, size_t *n, size_t *cap, int x) {
  if (CCT_GROW(*l, *n + 1, *cap)) return -1;
  (*l)[(*n)++] = x;
  return 0;
}

/* flat tree N (N > 0): shows the N heaviest rows of t, each with its parent: from the
 * top-level rows, the heaviest row (inclusive of the first metric, ties by label)
 * among those whose parent is shown, N times, rows under the threshold cut never.
 * The loops and lines of a function (flat_scopes) are added when it is picked.  The
 * rows of t [0, nskel) are the modules, files and functions; the others stay hidden. */
static int flat_pick(const qv *q, vtree *t, int n, double cut, const size_t *vcols, size_t nm, cct_err *err) {
  size_t nskel = t->nn, ncand = 0, capc = 0, nsc = 0, capsc = 0;
  int *cand = NULL, *scope = NULL; /* candidates; per node past nskel, its function's first scope node */
  int rc = CCT_OK;
  for (size_t i = 0; i < nskel; i++) {
    t->n[i].hide = 1;
    if (t->n[i].parent < 0 && push_int(&cand, &ncand, &capc, (int)i)) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
  }
  for (int picked = 0; !rc && picked < n; picked++) {
    long best = -1;
    double bv = 0;
    for (size_t c = 0; c < ncand; c++) {
      int x = cand[c];
      double v = t->val[(size_t)x * t->nm * 2];
      if (cut > 0 && v < cut) continue;
      int cmp = best < 0 || v > bv ? -1 : v < bv ? 1 : strcmp(t->n[x].name ? t->n[x].name : "", t->n[cand[best]].name ? t->n[cand[best]].name : "");
      if (cmp < 0) best = (long)c, bv = v;
    }
    if (best < 0) break;
    int x = cand[best];
    cand[best] = cand[--ncand];
    t->n[x].hide = 0;
    size_t from = (size_t)x < nskel ? 0 : (size_t)scope[(size_t)x - nskel], to = (size_t)x < nskel ? nskel : t->nn;
    if ((size_t)x < nskel && t->n[x].kind == CCT_ROW_FUNCTION) { /* its loops and lines, now */
      from = t->nn;
      rc = flat_scopes(q, t, x, t->n[x].function, vcols, nm, cut, err);
      to = t->nn;
      for (size_t i = from; !rc && i < to; i++) {
        t->n[i].hide = 1;
        if (push_int(&scope, &nsc, &capsc, (int)from)) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
      }
    }
    for (size_t i = from; !rc && i < to; i++) /* its children become candidates */
      if (t->n[i].parent == x && push_int(&cand, &ncand, &capc, (int)i)) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
  }
  free(cand);
  free(scope);
  return rc;
}

/* flat tree: module > file > function > loop > line; n > 0: the n heaviest rows (flat_pick). */
static int flat_tree(const qv *q, vtree *t, int n, const size_t *vcols, size_t nm, double cut, int **roots,
                     size_t *nroots, cct_err *err) {
  frow *mods = NULL, *files = NULL, *fns = NULL;
  size_t nmods = 0, nfiles = 0, nfns = 0;
  int rc = flat_rows(q, CCT_FLAT_MODULES, 0, 0, &mods, &nmods, err);
  if (!rc) rc = flat_rows(q, CCT_FLAT_FILES, 0, 0, &files, &nfiles, err);
  if (!rc) rc = flat_rows(q, CCT_FLAT_FUNCTIONS, 0, 0, &fns, &nfns, err);
  *roots = calloc(nmods + 2, sizeof **roots);
  if (!*roots && !rc) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
  qmap modrow = {0}, filerow = {0};
  for (size_t i = 0; !rc && i < nmods; i++) {
    int node = vt_add(t, -1, CCT_ROW_MODULE), added;
    if (node < 0) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
    if (rc || (rc = flat_node(q, t, node, CCT_FLAT_MODULES, &mods[i], vcols, nm, err))) break;
    (*roots)[(*nroots)++] = node;
    if (!qmap_put(&modrow, mods[i].key, 0, 0, 0, 0, node, &added)) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
  }
  /* file rows under each module holding functions of the file */
  for (size_t i = 0; !rc && i < nfns; i++) {
    const fninfo *f = NULL;
    if ((rc = q_function(q, fns[i].key, &f, err))) break;
    if (!f) continue;
    int64_t *mrow = qmap_get(&modrow, f->module_id, 0, 0, 0, 0);
    if (!mrow) continue;
    if (cut > 0 && fns[i].incl < cut) continue;
    int64_t fid = f->file_id;
    int64_t *frowp = qmap_get(&filerow, f->module_id, fid, 0, 0, 0);
    int parent;
    if (!frowp) {
      frow *fr = NULL;
      for (size_t j = 0; j < nfiles; j++)
        if (files[j].key == fid) fr = &files[j];
      int added;
      int node = vt_child(t, (int)*mrow, CCT_ROW_FILE, fid, 0, 0, &added);
      if (node < 0) {
        rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
        break;
      }
      frow none = {fid, 0, 0, 0, (char *)"<unknown file>", -1, 0};
      if ((rc = flat_node(q, t, node, CCT_FLAT_FILES, fr ? fr : &none, vcols, nm, err))) break;
      if (!qmap_put(&filerow, f->module_id, fid, 0, 0, 0, node, &added)) {
        rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
        break;
      }
      parent = node;
    } else {
      parent = (int)*frowp;
    }
    int added;
    int node = vt_child(t, parent, CCT_ROW_FUNCTION, fns[i].key, 0, 0, &added);
    if (node < 0) {
      rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
      break;
    }
    if ((rc = flat_node(q, t, node, CCT_FLAT_FUNCTIONS, &fns[i], vcols, nm, err))) break;
    if (n <= 0) rc = flat_scopes(q, t, node, fns[i].key, vcols, nm, cut, err); /* else when picked */
  }
  if (!rc && n > 0 && nm) rc = flat_pick(q, t, n, cut, vcols, nm, err);
  qmap_free(&modrow);
  qmap_free(&filerow);
  for (size_t i = 0; i < nmods; i++) free(mods[i].label);
  for (size_t i = 0; i < nfiles; i++) free(files[i].label);
  for (size_t i = 0; i < nfns; i++) free(fns[i].label);
  free(mods);
  free(files);
  free(fns);
  return rc;
}

int q_flat(const qv *q, int kind, int n, cct_view **out, cct_err *err) {
  *out = NULL;
  if (kind < CCT_FLAT_FUNCTIONS || kind > CCT_FLAT_TREE) return cct_err_set(err, CCT_EUSAGE, "bad flat kind %d", kind);
  size_t vcols[CCT_VIEW_MAX_METRICS], nm = q_view_columns(q, vcols);
  int need = q->percent == CCT_PERCENT_CENTER ? q_center_need(q, vcols, nm, err) : CCT_OK; /* shares of the center */
  if (need) return need;
  cct_view *v = q_view_new(q, "flat", vcols, nm);
  if (!v) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  vtree t = {0};
  t.nm = nm;
  int *roots = NULL;
  size_t nroots = 0;
  int rc = CCT_OK;
  double cut = nm ? q->threshold * v->base[0] : 0;
  if (kind == CCT_FLAT_TREE) {
    rc = flat_tree(q, &t, n, vcols, nm, cut, &roots, &nroots, err);
  } else {
    frow *rows = NULL;
    size_t nr = 0;
    rc = flat_rows(q, kind, n, 1, &rows, &nr, err);
    roots = calloc(nr + 1, sizeof *roots);
    if (!roots && !rc) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < nr; i++) {
      int node = vt_add(&t, -1, flat_row_kind[kind]);
      if (node < 0) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
      else rc = flat_node(q, &t, node, kind, &rows[i], vcols, nm, err);
      roots[nroots++] = node;
    }
    for (size_t i = 0; i < nr; i++) free(rows[i].label);
    free(rows);
  }
  if (!rc) rc = vt_to_view(q, &t, roots, nroots, v, err);
  free(roots);
  vt_free(&t);
  if (rc) {
    cct_view_free(v);
    return rc;
  }
  *out = v;
  return CCT_OK;
}
