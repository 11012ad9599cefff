/* query_int.h: private declarations shared by the files of the cct_query
 * library: the session structure, the center (items and their occurrences),
 * the cached named statements of schema/query.sql, a small hash map, and the
 * row-tree builder the views share. */
#ifndef CCT_QUERY_INT_H
#define CCT_QUERY_INT_H

#include "cct_query.h"
#include "cct_schema.h"
#include "cct_kinds.h"
#include "cct_tree.h"
#include "cct_util.h"
#include "cct_sqlite.h" /* after the public headers: the extension build routes sqlite3_* calls */

#include <stdint.h>
#include <string.h>

/* Context kinds and relations of base.sql: CCT_KIND_*, CCT_REL_* of common/cct_kinds.h. */

/* At most this many stored metric columns in a view: the display metric, the
 * spec's columns and the operands of its statistics and derived metrics
 * (vmetric.c; csv and json add the run's other 'sum' metrics up to four columns). */
#define CCT_VIEW_MAX_METRICS 16

/* ---- hash map: 5 x int64 key -> int64 value: the shared cct_hmap (common/) ---- */
typedef cct_hmap qmap; /* a zeroed qmap is an empty one */

/* Returns the value slot of key (a,b,c,d,e), or NULL when absent. */
static inline int64_t *qmap_get(const qmap *m, int64_t a, int64_t b, int64_t c, int64_t d, int64_t e) {
  const int64_t k[5] = {a, b, c, d, e};
  return m->cap ? cct_hmap_get(m, k) : NULL;
}
/* Returns the value slot of the key, inserting it with value v when absent
 * (*added set accordingly); NULL when out of memory. */
static inline int64_t *qmap_put(qmap *m, int64_t a, int64_t b, int64_t c, int64_t d, int64_t e, int64_t v, int *added) {
  const int64_t k[5] = {a, b, c, d, e};
  m->nkey = 5;
  return cct_hmap_put(m, k, v, added);
}
/* Frees the map's storage (the map is reusable afterwards). */
static inline void qmap_free(qmap *m) { cct_hmap_release(m); }

/* ---- contexts ---- */

/* One context as read by the statements returning the columns of @root. */
typedef struct qctx {
  int64_t id, pre, last, frame, fparent, function, file, line, call_file, call_line, module, offset;
  int64_t nframes; /* frames strictly inside the subtree */
  int fdepth, ldepth, kind, relation, callsite;
  double pv[3];    /* inclusive, exclusive, exclusive_lex of the run's primary metric (qrun.primary) */
} qctx;

/* The scope line (cct_scope_line: the one key rule of loops and lines) of a context,
 * and of node i of a tree. */
static inline long long q_ctx_scope_line(const qctx *c) {
  return cct_scope_line(c->kind, c->line, c->function, c->module, c->offset);
}
static inline long long q_node_scope_line(const cct_tree *t, int32_t i) {
  return cct_scope_line(t->kind[i], t->line[i], t->function[i], t->module[i], t->offset[i]);
}

/* Item types (see center.c). */
enum {
  IT_NAME, IT_GLOB, IT_RE, IT_LINE, IT_LOOP, IT_FILE, IT_MODULE, IT_CLASS, IT_NAMESPACE, IT_CTX,
  IT_FUNCTION_ID, IT_FILE_ID, IT_MODULE_ID, IT_LINE_ID, IT_LOOP_ID, IT_INSTR,
  IT_LOOP_IN, IT_LINE_IN,      /* 'loop in NAME', 'line in NAME': those without a line in NAME's frames */
  IT_LOOP_IN_ID, IT_LINE_IN_ID /* the same of '@N': file id, function id2 */
};

/* One center item: its text and occurrences. */
typedef struct citem {
  char *text;       /* as typed (or the label of an '@N' row) */
  int type;         /* IT_* */
  char *arg;        /* name, pattern or path */
  int64_t id, id2;  /* ids for IT_*_ID, IT_CTX, IT_INSTR (module, offset), IT_*_IN_ID (file, function) */
  long long line;   /* IT_LINE, IT_LOOP, IT_LINE_ID, IT_LOOP_ID (-1: a loop without a line) */
  long long offset; /* IT_LOOP, IT_LOOP_ID: the loop's address in its module, -1: every loop at the line */
  qctx *occ;        /* occurrences, sorted by pre */
  size_t nocc;
} citem;

/* Columns of the current run: metric ids, 'sum' ones first. */
typedef struct qcolumn {
  int64_t id;
  char *name;
  char *stat;
} qcolumn;

/* Cached statements, indexes into cct_query.st. */
enum {
  ST_ROOT, ST_CTX, ST_VALUE, ST_FUNCTION_INFO, ST_FILE_PATH, ST_MODULE_PATH, ST_FUNCTIONS_BY_NAME,
  ST_FUNCTIONS_BY_GLOB, ST_FUNCTION_NAMES, ST_FUNCTIONS_BY_FILE, ST_FUNCTIONS_BY_MODULE, ST_FUNCTIONS_BY_CLASS,
  ST_FUNCTIONS_BY_NAMESPACE, ST_FILES, ST_MODULES, ST_CONTEXTS_AT, ST_INSTRUCTIONS_AT,
  ST_LINE_COSTS, ST_FLAT, ST_FLAT_ONE, ST_SOURCE,
  ST_PROFILES, ST_PROFILE_VALUES, ST_COMPLETE_FUNCTIONS, ST_COMPLETE_METRICS, ST_RUN_EXISTS, ST_COLUMNS,
  ST_RUNS, ST_BEGIN, ST_COMMIT, ST_VALUES, ST_LOOP_COSTS, ST_FUNCTIONS_AT, ST_FILE_CONTEXTS,
  ST_OCC_FUNCTION, ST_COLUMN_VALUES, ST_COUNT
};

/* What '@N' can refer to: the facts of each row of a view (cct_view.priv). */
typedef struct lastrow {
  int kind;              /* CCT_ROW_* */
  char *name;            /* label (owned only by the session's copy, see session.c) */
  int64_t function, file, module, offset;
  long long line;
} lastrow;

/* Cached function facts. */
typedef struct fninfo {
  char *name, *file, *module;
  int64_t file_id, module_id;
  long long line;
} fninfo;

/* One loaded run (archive.c): its metric columns, root and program totals.
 * Immutable once loaded; the archive keeps every run it loaded. */
typedef struct qrun {
  int run;
  qcolumn *cols;         /* metric columns of the run */
  size_t ncols, nsum;    /* all columns, 'sum' columns (the first nsum) */
  size_t defdisp;        /* the default display column (see default_metric) */
  size_t primary;        /* the column whose values context rows carry (qctx.pv), ncols when none */
  qctx root;
  double *root_incl;     /* per column: program total; NaN for a filtered run's until read (q_run_total) */
  cct_tree tree;         /* the run's tree image (tree_image), read and checked on first use (q_run_tree) */
  const struct qf_tree *ft; /* a filtered run (filter.c): how its tree came from the run's; NULL for a run
                          * of the archive.  Node i of a filtered tree is numbered tree.base + i, which
                          * is not the archive's context of that pre: values come from colv */
  double **colv;         /* a filtered run: per column, NULL until read, then 3 values per node of tree
                          * (q_values_many; a cache behind the const run) */
  struct qscache *scopes; /* a filtered run: its static-scope totals once computed (scopes.c) */
  void (*scopes_free)(struct qscache *c); /* frees scopes (set by scopes.c, called by archive.c's run_free) */
  struct qindex *idx;    /* look-ups over the tree (occur.c), each built on first use */
} qrun;

/* The archive layer (archive.c): the connection, the statement cache, the
 * loaded runs, look-up caches keyed by (id, run) (functions, paths), the read transaction. */
typedef struct qfiltered qfiltered;
typedef struct qarch {
  sqlite3 *db;
  int borrowed;          /* db is the caller's (cct_query_open_db): never closed here */
  sqlite3_stmt *st[ST_COUNT];
  int txn, txn_own;      /* nesting depth of q_begin; whether q_begin opened the transaction */
  int totals_checked;    /* scope_total passed its integrity check (q_arch_stmt) */
  qrun **runs;           /* loaded runs */
  size_t nruns;
  qmap fnmap;            /* (function id, run) -> index in fns */
  fninfo *fns;
  size_t nfns, fncap;
  qmap pathmap;          /* (0 file | 1 module, id, run) -> index in paths */
  char **paths;
  size_t npaths, pathcap;
  qfiltered **filtered;  /* filtered runs of this archive (filter.c), most recent last */
  size_t nfiltered;
  int serial;            /* the last filtered run's serial number */
  void (*traces_free)(struct qarch *a); /* frees traces (set by window.c, called by q_arch_close) */
  struct qtrace_cache *traces; /* the runs' trace records and last windows (window.c), NULL: none read */
} qarch;

/* A resolved center (center.c): the items of one run and their occurrences.
 * Immutable once built (but for the values cache cv): views only read it. */
struct cct_center {
  int run;
  int tree;              /* 0: the run's own tree; else the serial of the filtered run it is of */
  citem *items;
  size_t nitems;
  const qctx *O;         /* union of occurrences, sorted by pre, unique: O_own, or the one item's occ */
  qctx *O_own;           /* O when the center owns it (items: 2 or more), else NULL */
  size_t nO;
  size_t ncols;          /* columns of the run (the size of cv) */
  unsigned char *outer;  /* per O: in O* (no proper ancestor in O) */
  unsigned char *lexouter; /* per O: no proper ancestor in O within the same frame (exclusive counted) */
  double **cv;           /* per column: NULL until a view needs it (q_center_need), then per O member
                          * 3 values: its inclusive, and for O* members the sums of exclusive and of
                          * exclusive_lex over the counted members of its subtree (a cache, filled
                          * through the const center, never changed once filled; but the
                          * trace column's, filled again for another window) */
  int cv_window;         /* the window serial the trace column's cv is of (0: none) */
  qmap cfuncs;           /* functions with a frame in O (key: function id) */
  int owners;            /* owners besides the first (cct_center_share): cct_center_free frees at 0 */
};

/* The values of a run's 'trace (sec)' column over a window (window.c): per
 * tree node, inclusive, exclusive and lex_aware seconds. */
typedef struct qwin {
  double *v;             /* 3 x n */
  int32_t n;
  int64_t base;          /* pre of node 0 */
  size_t col;            /* the run's column they replace */
  int64_t from, to;      /* ns since the run's first record */
  int serial;            /* 1, 2, ... per archive, for caches */
  int tree;              /* the filtered run's serial the values are over (0: the run's own tree) */
} qwin;

/* One computation (a view, a center change): what it reads.  Built on the
 * stack by the entry points from a spec; never outlives the call. */
typedef struct qv {
  qarch *a;
  const qrun *r;         /* the run */
  const cct_center *c;   /* the center; an empty one for the program root */
  size_t disp;           /* index in r->cols of the display metric */
  size_t vcols[CCT_VIEW_MAX_METRICS], nvcols; /* the columns views compute: disp first (q_view_columns) */
  int gran;              /* CCT_GRAN_* */
  double threshold;
  int percent;           /* CCT_PERCENT_* */
  int sort;              /* CCT_SORT_* */
  double hot;            /* topdown: the hot-path fraction (cct_view_spec.hotpath), 0: off */
  int shown_run;         /* the run the user asked for (r is its filtered copy when tree != 0) */
  int tree;              /* 0, or the serial of the filtered run r belongs to */
  const cct_filter *filters; /* the filters applied (names in the view) */
  size_t nfilters;
  const qwin *win;       /* the window's values of the trace column, NULL: none (window.c) */
  const struct qvm *shown; /* a virtual display metric: the hot path follows its values (q_vm_bind) */
} qv;

/* The session (session.c): an archive plus the current settings, the
 * convenience layer over cct_view_compute that clients without their own
 * state use. */
struct cct_query {
  qarch a;
  const qrun *r;         /* current run (owned by a) */
  cct_center *center;    /* current center (owned), never NULL */
  size_t disp;           /* display column in r */
  int gran;
  double threshold;
  double hotpath;        /* cct_view_spec.hotpath of the session's views (0.5 when opened) */
  int percent;           /* CCT_PERCENT_* */
  lastrow *last;         /* facts of the last view a cct_view_* call returned, for '@N' */
  size_t nlast;
  char *lastnames;       /* one block holding the names of last (their name members point into it) */
  cct_filter *filters;   /* current filters (items owned) */
  size_t nfilters;
  struct qdef *defs;     /* derived metrics ('metric define', vmetric.c) */
  size_t ndefs;
  char *vmetric;         /* the display metric when it is a statistic or derived metric (owned), else NULL */
  cct_window window;     /* the window of the trace metric, when windowed (window.c) */
  int windowed;
};

/* ---- archive.c ---- */

/* Opens the archive at path read-only (flags: CCT_OPEN_* of cct_schema.h) into
 * a (zeroed first); with db (path NULL), borrows that open connection instead
 * (no tuning, never closed here).  Returns CCT_OK or an error. */
int q_arch_open(qarch *a, const char *path, int flags, sqlite3 *db, cct_err *err);
/* Frees everything of a and closes its connection (its filtered copies first: q_filtered_close). */
void q_arch_close(qarch *a);
/* The loaded run (loading it once: columns, root, program totals; not its tree
 * image); *r NULL with CCT_ENOTFOUND when the archive has no such run.  Returns
 * CCT_OK or an error. */
int q_run_get(qarch *a, int run, const qrun **r, cct_err *err);
/* Reads and checks r's tree image (r->tree) unless it is there already: every
 * computation over r->tree calls it first (q_spec_bind does for views and
 * centers), so that listing runs, metrics or SQL never reads the image.
 * Returns CCT_OK, or an error naming the archive (a missing or damaged image). */
int q_run_tree(qarch *a, const qrun *r, cct_err *err);
/* The archive's last run (0 when it has none).  Returns CCT_OK or an error. */
int q_last_run(qarch *a, int *run, cct_err *err);
/* Returns the cached statement i, reset and unbound, with ?1 bound to q's run;
 * NULL (err set) on failure. */
sqlite3_stmt *q_stmt(const qv *q, int i, cct_err *err);
/* The same for the archive alone, ?1 bound to run. */
sqlite3_stmt *q_arch_stmt(qarch *a, int i, int run, cct_err *err);
/* Reads the columns of @root from st into c. */
void q_read_ctx(sqlite3_stmt *st, qctx *c);
/* Opens (depth 0) or joins a read transaction; q_end closes it at depth 0.
 * Every entry point (a view, a center change) runs inside one. */
void q_begin(qarch *a);
void q_end(qarch *a);
/* Loads one context by id; returns CCT_OK or CCT_ENOTFOUND / an error. */
int q_load_ctx(const qv *q, int64_t id, qctx *c, cct_err *err);
/* Loads inclusive, exclusive, exclusive_lex of the context numbered pre (values
 * are keyed by pre) for the view metric columns vcols[0..n): out[3*i + 0..2].
 * Returns CCT_OK or an error. */
int q_values(const qv *q, int64_t pre, const size_t *vcols, size_t n, double *out, cct_err *err);
/* Loads inclusive, exclusive, exclusive_lex of the columns cols[0..ncols) for each context
 * of pres[0..n) (pre numbers, any order, duplicates allowed), with one statement run per
 * column over cct_keys (keys.c): out[stride*i + 3*m + 0..2] for context i and column
 * cols[m] (0 where the context has no value).  With pv, the run's primary column is not
 * read: context i's values are the 3 doubles at (const char *)pv + pv_stride * i (the pv
 * member of the caller's row array, read with the rows).  Returns CCT_OK or an error. */
int q_values_many(const qv *q, const int64_t *pres, size_t n, const size_t *cols, size_t ncols, const double *pv,
                  size_t pv_stride, double *out, size_t stride, cct_err *err);
/* The keys cct_keys(P) serves as its rows (i, key, lo, hi), i = 0..n-1 (keys.c): tuples
 * of width 1 to 3 (0 reads as 1) in v, key = v[i*width], then lo and hi (NULL past the width). */
typedef struct qkeys {
  const int64_t *v;
  size_t n;
  int width;
} qkeys;
/* Registers the table-valued function cct_keys on db.  Returns the SQLite code. */
int q_keys_register(sqlite3 *db);
/* Binds k as parameter param of st, for 'cct_keys(?N)'; k must outlive the statement's run. */
void q_keys_bind(sqlite3_stmt *st, int param, const qkeys *k);
/* Facts of function id (cached) into *f, NULL when unknown.  Returns CCT_OK,
 * or an error (damaged archive, out of memory): never an unknown by mistake. */
int q_function(const qv *q, int64_t id, const fninfo **f, cct_err *err);
/* Path of file (kind 0) or module (kind 1) id (cached) into *path, NULL when
 * unknown (id <= 0 or no such row).  Returns CCT_OK or an error. */
int q_path(const qv *q, int kind, int64_t id, const char **path, cct_err *err);
/* Columns of a view (qv.vcols: the display metric first, then the spec's columns, then,
 * unless the spec says only_display, the other 'sum' columns; at most CCT_VIEW_MAX_METRICS);
 * returns the count and fills vcols. */
size_t q_view_columns(const qv *q, size_t *vcols);
/* The display column of run r for metric name (exact, else unique prefix,
 * case-insensitive; NULL: the default).  Returns CCT_OK or CCT_ENOTFOUND with
 * the run's metrics in the message. */
int q_metric_column(const qrun *r, const char *name, size_t *disp, cct_err *err);
/* Whether path ends with suffix at a '/' boundary (or equals it). */
int q_suffix_match(const char *path, const char *suffix);
/* strdup that returns NULL on NULL. */
char *q_strdup(const char *s);

/* The values of column col (3 per node of the tree) of filtered run q->r (qrun.ft), read and
 * carried through the filters once.  Returns CCT_OK, CCT_EUSAGE for a run that is not
 * filtered, or an error. */
int q_column_values(const qv *q, size_t col, const double **v, cct_err *err);
/* The program total of column col of q's run (its root's inclusive value): a filtered
 * run's metrics other than the primary one are read (once) on the first call; 0 when
 * they cannot be (the view's values, read next, then give the error). */
double q_run_total(const qv *q, size_t col);

/* ---- scopes.c: static-scope totals of a filtered run, or of a window ---- */

/* One static scope of a kind (CCT_TOTAL_*): key (function, file or module id; loops and
 * lines: file id), line (loops and lines, else 0), totals, contexts in the scope. */
typedef struct qscope {
  int64_t key, line;
  double incl, excl;
  int64_t contexts;
} qscope;
typedef struct qscache qscache;
/* The scopes of kind with a value in column col of q's run, computed over its tree by
 * the outermost rule (as scope_total holds them for an archive's run) and kept with the
 * run (the window's trace column: for that window): *out[0..*n), sorted by (key, line).
 * For a filtered run's columns and a window's trace column (q_scopes_in_memory).
 * Returns CCT_OK or an error. */
int q_scopes(const qv *q, int kind, size_t col, const qscope **out, size_t *n, cct_err *err);
/* The totals of one scope (0 when it has no value).  Returns CCT_OK or an error. */
int q_scope_one(const qv *q, int kind, size_t col, int64_t key, int64_t line, double *incl, double *excl, cct_err *err);
/* Frees a run's scope cache (NULL: no-op). */
void q_scopes_free(qscache *c);
/* 1 when column col's static-scope totals are computed in memory (q_scopes), not read
 * from scope_total: a filtered run, or the trace column under a window. */
static inline int q_scopes_in_memory(const qv *q, size_t col) { return q->r->ft || (q->win && col == q->win->col); }
/* ---- occur.c: look-ups over the run's tree image ---- */

typedef struct qindex qindex;
/* A run's empty look-up index (its parts are built on first use); NULL when out of memory. */
qindex *q_index_new(void);
/* Frees a run's look-up index (NULL: no-op). */
void q_index_free(qindex *x);
/* Node i of tree t as a qctx (pointers as pre numbers, as the SQL statements read them). */
void q_tree_ctx(const cct_tree *t, int32_t i, qctx *c);
/* The nodes[0..n) of t into out[0..n), as q_tree_ctx (the fields fetched ahead). */
void q_tree_ctxs(const cct_tree *t, const int32_t *nodes, size_t n, qctx *out);
/* The node of q's run numbered pre into *i.  Returns 0, or -1 when pre is not in the run. */
int q_tree_node(const qv *q, int64_t pre, int32_t *i);
/* The frames of function fn (scopes = 0: function contexts and instruction frames; 1: the
 * loops and lines inside its frames) in q's run: nodes[0..n), ascending.  Returns CCT_OK
 * (n = 0 for an unknown function) or CCT_ENOMEM. */
int q_frames_of(const qv *q, int64_t fn, int scopes, const int32_t **nodes, size_t *n, cct_err *err);
/* The frames whose caller frame (fparent) is node x of q's run: nodes[0..n), ascending.
 * Returns CCT_OK or CCT_ENOMEM. */
int q_frame_children(const qv *q, int32_t x, const int32_t **nodes, size_t *n, cct_err *err);
/* The loops (kind CCT_KIND_LOOP) or lines at (file id, line) in q's run: nodes[0..n),
 * ascending.  Returns CCT_OK or CCT_ENOMEM. */
int q_nodes_at(const qv *q, int64_t file, long long line, int kind, const int32_t **nodes, size_t *n, cct_err *err);

/* ---- center.c ---- */

/* The empty center (the program root) of any run. */
extern const cct_center q_no_center;
/* A new center of run q->r: base's items (NULL: none) changed by op with item
 * ('@N' resolved against the rows facts[0..nfacts)).  The result owns copies;
 * base is not changed.  *out is NULL (CCT_OK) when the item is the top row
 * ('@1' of a centered view: no change).  Returns CCT_OK, CCT_ENOTFOUND, CCT_EUSAGE or an error. */
int q_center_edit(const qv *q, const cct_center *base, int op, const char *item, const lastrow *facts, size_t nfacts,
                  cct_center **out, cct_err *err);
/* c's items resolved again in run q->r (ids fall back to names and paths);
 * items that match nothing there are left out and, when missing is not NULL,
 * listed in *missing (malloc'd, "'a', 'b'"; NULL when none).  Returns CCT_OK or an error. */
int q_center_rerun(const qv *q, const cct_center *c, cct_center **out, char **missing, cct_err *err);
/* Reads the values of q->c's occurrences for the columns cols[0..n) that are not read
 * yet (one q_values_many for them all) into the center's cache.  Every view calls it
 * for its columns before q_center_top or the cache.  Returns CCT_OK or an error. */
int q_center_need(const qv *q, const size_t *cols, size_t n, cct_err *err);
/* Top-row values of the center for view columns vcols (read by q_center_need):
 * inclusive over O*, and exclusive over the counted members (lex = 1: exclusive_lex). */
void q_center_top(const cct_center *c, const size_t *vcols, size_t n, int lex, double *incl, double *excl);
/* inlined.c: into *out, the 'function'-scope exclusive of column col (an index in
 * q->r->cols) of the frames inlined directly into the function frames of q's center
 * (through their loops and lines; frames of the center itself left out): the cost that
 * hpcviewer's classic exclusive of those frames holds and theirs does not (SPEC section
 * 3).  0 without a center.  Returns CCT_OK or an error. */
int q_center_inlined(const qv *q, size_t col, double *out, cct_err *err);
/* Label of the top row: the item text or '<multiple contexts>'. */
const char *q_center_label(const cct_center *c);
/* The label of a loop (loop = 1) or line scope at the file of path and the scope line
 * of cct_scope_line: 'loop at f.c:12' or 'f.c:12'; for one without a line 'loop in
 * FNAME' or 'line in FNAME' (FNAME its function's name, then the file's base name when
 * the name lacks it: '[lib.so]', '(f.c)'; not hpcprof's '<unknown file>' or
 * '~unknown-file~'); for a loop keyed by its address, 'loop at [lib.so]+0x1a2b' without
 * a line, and with one 'loop at f.c:12', or 'loop at f.c:12 (+0x1a2b)' when shared (other
 * loops of the run have that line: q_loop_shared).  'center' takes each back as an
 * item.  New string; NULL out of memory. */
char *q_scope_label(int loop, const char *path, long long line, const char *fname, int shared);
/* Sets *shared to whether the loops of q's run at (file, the source line of scope line
 * line) have another scope line than line (two loops on one line, told apart by their
 * addresses).  Returns CCT_OK or an error. */
int q_loop_shared(const qv *q, int64_t file, long long line, int *shared, cct_err *err);
/* Whether function id has an occurrence in the center (a frame of it). */
int q_center_has_function(const cct_center *c, int64_t fn);

/* ---- views.c, source.c: the view core ---- */

/* Allocates an empty view of the given kind for q with metric columns vcols. */
cct_view *q_view_new(const qv *q, const char *name, const size_t *vcols, size_t n);
/* The views, computed from q alone (nothing is changed); *facts receives the
 * rows' facts (for '@N'), kept in the view. */
int q_topdown(const qv *q, int depth, cct_view **out, cct_err *err);
int q_bottomup(const qv *q, int depth, cct_view **out, cct_err *err);
int q_flat(const qv *q, int kind, int n, cct_view **out, cct_err *err);
/* file: a path suffix, '@N' (a row of last), or NULL for the center's file. */
int q_source(const qv *q, const char *file, const cct_view *last, cct_view **out, cct_err *err);
int q_stats(const qv *q, size_t bins, int order, cct_stats **out, cct_err *err);
/* The facts of the rows of a view (cct_view.priv). */
const lastrow *q_view_facts(const cct_view *v);
/* Leaves out of topdown, bottomup and flat view v the rows whose first nshown
 * metrics are all zero (inclusive and exclusive) with all their subtree, never a
 * top row, and counts them in v->zero_rows; nothing when those metrics' program
 * totals are all zero (the view then says so).  Handles stay 1, 2, ... in order.
 * Returns CCT_OK or CCT_ENOMEM (v unchanged). */
int q_view_drop_zero(cct_view *v, size_t nshown, cct_err *err);
/* ---- filter.c ---- */

/* Run seen through filters f[0..n) (n > 0): a run of a whose tree is the filtered one
 * (qrun.ft), made in memory once and cached in a; its serial in *serial.  Returns
 * CCT_OK or an error (an item that matches nothing). */
int q_filtered(qarch *a, int run, const cct_filter *f, size_t n, const qrun **out, int *serial, cct_err *err);
/* Frees the filtered runs of a. */
void q_filtered_close(qarch *a);

/* ---- vmetric.c: statistics and derived metrics ---- */

/* What a spec's statistics and derived metrics need from the engine. */
typedef struct qvm qvm;
/* The plan of spec (session s: its derived metrics; spec's run): the stored
 * columns to compute, the columns to show (display, spec columns, then unless
 * only_display the other 'sum' metrics with data, four in all).  Returns
 * CCT_OK with *out (free with q_vm_free), or CCT_ENOTFOUND (an unknown metric). */
int q_vm_plan(cct_query *s, const cct_view_spec *spec, qvm **out, cct_err *err);
/* The spec the engine computes for plan p (valid while p lives). */
const cct_view_spec *q_vm_spec(const qvm *p);
/* How many of the finished view's first metrics the reader asked for (the display
 * metric and the spec's columns, not the other metrics csv and json add); 0 for NULL. */
size_t q_vm_shown(const qvm *p);
/* Binds plan p (NULL: none) to q, bound from q_vm_spec: finds each operand among q's
 * columns (an error when a filter left it out) and, when the display metric is
 * virtual, sets q->shown so that the hot path follows it.  Returns CCT_OK or an error. */
int q_vm_bind(qvm *p, qv *q, cct_err *err);
/* The display metric's value of a node whose values per engine column are
 * vals[2 * j] (inclusive) and vals[2 * j + 1] (exclusive); p is bound. */
double q_vm_value(const qvm *p, const double *vals);
/* Turns the engine's view v (computed in the q p is bound to) into the plan's
 * columns, order, threshold and row count.  Returns CCT_OK or an error. */
int q_vm_finish(const qvm *p, cct_view *v, cct_err *err);
void q_vm_free(qvm *p);
/* Whether name is a statistic or a derived metric in run (0: s's run). */
int q_vm_is_virtual(cct_query *s, int run, const char *name);
/* Frees the session's derived metrics. */
void q_vm_defs_free(cct_query *s);
/* ---- window.c ---- */

/* One lane's records: times (ns since the run's first record) and context
 * node indexes (0 = idle), in time order, and when its last record ends. */
typedef struct qlane {
  int64_t lane, profile, node, rank, thread, core, gpucontext, gpustream;
  char *source;
  int64_t *t;
  uint32_t *ctx;
  size_t n, cap;         /* records read, records the lane has */
  int64_t end;          /* the time the last record lasts until (= its own time) */
} qlane;

/* The traces of one run, loaded once. */
typedef struct qtraces {
  int run;
  int64_t t0, span;     /* ns */
  long long records, strays;
  qlane *lanes;
  size_t nlanes;
  qwin win;             /* the last window computed (win.v NULL: none) */
} qtraces;
/* The traces of run r (read and decoded once per archive); *out NULL when it has none. */
int q_traces_get(qarch *a, const qrun *r, qtraces **out, cct_err *err);
/* 1 for the tree nodes inside q's center's outermost occurrences (all without a center), 0 for
 * the root; malloc'd, NULL when out of memory. */
unsigned char *q_center_marks(const qv *q);
/* Seconds of lane l's records inside [from, to): on a marked node, on any. */
void q_lane_time(const qlane *l, const unsigned char *in, int64_t from, int64_t to, double *on, double *any);



/* Binds window w (NULL: none) of q's run into q->win, computing its values
 * once.  Returns CCT_OK, CCT_ENOTFOUND (no traces), CCT_EUSAGE or an error. */
int q_window_bind(qv *q, const cct_window *w, cct_err *err);
/* When col is the windowed trace column of q: its 3 values at context pre into
 * out, returns 1; else 0 (nothing written).  Inline: archive.c reads through it,
 * and the query files call one way (archive.c never calls window.c). */
static inline int q_window_values(const qv *q, size_t col, int64_t pre, double *out) {
  const qwin *w = q->win;
  if (!w || col != w->col) return 0;
  int64_t i = pre - w->base;
  if (i < 0 || i >= w->n) out[0] = out[1] = out[2] = 0;
  else out[0] = w->v[3 * i], out[1] = w->v[3 * i + 1], out[2] = w->v[3 * i + 2];
  return 1;
}
/* The program total of column col (the window's for the trace column). */
double q_root_total(const qv *q, size_t col);
/* 'window 1.5 s - 2.5 s (trace (sec))', malloc'd (NULL when out of memory), for views to name it. */
char *q_window_text(const qv *q);
/* Stats of the trace metric (over q's window, else the whole run): for each lane of a profile in index (profile id ->
 * index in p), p[i].value = the lane's seconds in the window inside the center's outermost
 * occurrences (the root without a center); *program += the lane's seconds on any context.
 * Returns CCT_OK or an error. */
int q_window_stats(const qv *q, const qmap *index, struct cct_stats_profile *p, double *program, cct_err *err);
/* Serial of q's window, 0 when none (a cache of trace-column values is valid for one serial). */
static inline int q_window_serial(const qv *q) { return q->win ? q->win->serial : 0; }
/* The run's 'trace (sec)' column, r->ncols when none.  (Inline, as q_window_values: the
 * files below window.c read through them.) */
static inline size_t q_trace_column(const qrun *r) {
  for (size_t i = 0; i < r->nsum; i++)
    if (r->cols[i].name && !strcmp(r->cols[i].name, CCT_TRACE_METRIC)) return i;
  return r->ncols;
}

/* Builds the computation q for spec on archive a (the session s supplies run 0's meaning). */
int q_spec_bind(cct_query *s, const cct_view_spec *spec, qv *q, cct_err *err);

#endif
