/* writer.c: writes one run into a cctq archive as a reader walks the tree
 * (the archive side of ingest_int.h).  It maps the database's ids to dense
 * archive ids, numbers the tree (pre/last intervals, frames, function and line
 * levels), merges the database's records of one identity into one row (modules
 * and files by path; functions by name, module, file and line, SPEC section 5:
 * hpcprof writes one v4 function record per inlined instance), accumulates the static-scope totals with the outermost rule, and
 * stores per-profile values as zstd frames.  A new archive is built in a
 * temporary file renamed on commit; an append is one transaction. */
#include "cct_util.h"
#include "cct_ingest.h"
#include "cct_schema.h"
#include "cct_sqlite.h"
#include "idmap.h"
#include "ingest_int.h"
#include "rowtab.h"
#include "trace.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "profile_value blobs are written little-endian with memcpy: port cct_writer_profile_values"
#endif

enum { NSCOPES = CCT_TOTAL_COUNT }; /* static scopes, indexed by scope_total.kind (CCT_TOTAL_*) */

/* Inserts made while a reader walks the tree are queued (as rows of
 * rowtab.h) to a second thread that owns the SQLite connection, so parsing and
 * writing use both cores; that thread writes each chunk's rows of one table
 * with one statement step (cct_rows). */
enum { CHUNK_ROWS = 1024, QUEUE_CHUNKS = 16 };
typedef struct chunk {
  size_t n;                  /* rows in use */
  row rows[CHUNK_ROWS];
} chunk;

/* One open context on the writer's stack. */
typedef struct open_ctx {
  int64_t id, parent;        /* database id; parent's pre, -1 for the root */
  int kind, relation;        /* CCT_KIND_*, CCT_REL_* */
  int64_t function;          /* dense function id, 0 = none */
  int64_t file, line;        /* dense file id (0 = none), line (-1 = none) */
  int64_t module, offset;    /* dense module id (0 = none), offset */
  int callsite;              /* line that may have calls below: 1, 2 once a call child came */
  int64_t call_file, call_line; /* frames: location of the call-site line above, 0/-1 = none */
  int64_t pre;               /* pre-order number within the run (the archive's is pre_base + pre) */
  int64_t frame, fparent;    /* archive pre of the nearest frame (self for frames), of the parent row at function level */
  int fdepth, ldepth;        /* function and line levels */
  int64_t lparent;           /* archive pre of the parent row at line level, -1 = none */
  int64_t nframes;           /* frames entered inside this context so far */
  int is_frame;              /* 1 for frames (function contexts, call-entered instructions, root) */
  double *vals;              /* nmetrics x 3 values (CCT_INCLUSIVE, _EXCLUSIVE, _EXCLUSIVE_LEX) */
  unsigned char *set;        /* which of vals were given */
  int64_t slot[NSCOPES];     /* static-scope slot of this context, -1 = none */
  int outer[NSCOPES];        /* 1 when no ancestor is in the same scope */
  int counted[NSCOPES];      /* 1 when its exclusive counts for the scope (O' rule, see cct_writer_enter) */
  int saved_open[NSCOPES];   /* the slot's innermost open depth before this context */
  int frame_depth;           /* stack depth of the nearest frame (self for frames) */
} open_ctx;

struct cct_writer {
  sqlite3 *db;               /* archive being written */
  char *out_path;            /* final path */
  char *db_dir;              /* the input database, as given */
  const char *tree_file;     /* its file that holds the tree (meta.db, experiment.xml) */
  char *tmp_path;            /* temporary file for a new archive, NULL when appending */
  int tmp_fd;                /* its descriptor, holding its lock (tmpfile.c), -1 = none */
  char *src_root;            /* real path of DB_DIR/src (a directory, not a symlink), NULL when none */
  int64_t run;               /* run number */
  const char *format;        /* "classic" or "v4" */
  cct_err err;               /* first error */
  struct timespec t0;        /* start time */
  sqlite3_stmt *ins_ctx, *ins_val, *ins_mod, *ins_file, *ins_fn, *ins_metric, *ins_prof, *ins_pval;
  cct_idmap modules, files, functions, synth; /* reader id -> dense id; synth: (module, offset) */
  cct_idmap identities;      /* (hash of an identity, probe) -> dense id: see intern() */
  int64_t nmodules, nfiles, nfunctions;
  char **module_path, **file_path; /* by dense module / file id */
  char **fn_name;            /* by dense function id */
  int64_t *fn_file, *fn_module, *fn_line; /* by dense function id */
  size_t fn_cap, mod_cap, file_cap;
  cct_idset contexts;        /* context ids entered */
  int nmetrics;              /* metric columns declared */
  int primary, primary_rank; /* the 'sum' metric kept beside each context (-1: none), its cct_metric_rank */
  open_ctx *stack;           /* open contexts, stack[0] = root */
  int depth, stack_cap;      /* open count, allocated entries */
  int64_t next_pre;          /* pre-order counter within the run (0 = root) */
  int64_t pre_base;          /* archive-wide pre of the run's root */
  int root_done;             /* the root has been closed */
  cct_idmap scopes;          /* (scope kind << 48 | key, line) -> slot */
  int *active;               /* per slot: open contexts in the scope */
  int *open_at;              /* per slot: stack depth of its innermost open context, -1 = none */
  double *scope_incl, *scope_excl; /* per slot x metric */
  int64_t *scope_key;        /* per slot: kind, key, line, contexts (4 entries) */
  size_t nslots, slot_cap;
  int64_t *by_fn;            /* context_by_function keys: function, kind, pre (3 entries each) */
  int64_t *by_line;          /* context_by_line keys: file, line, kind, pre (4 entries each) */
  size_t nby_fn, by_fn_cap, nby_line, by_line_cap; /* entries in use (keys, not int64s), capacities (int64s) */
  long long by_kind[5], nprofiles, elided;
  int64_t cur_profile;       /* id of the profile being written, 0 = none */
  int progress;              /* print progress lines */
  /* the SQL thread and its queue of chunks */
  pthread_t thread;
  int threaded;              /* 1 while the SQL thread runs */
  int tree_finished;         /* finish_tree has been queued */
  pthread_mutex_t mu;
  pthread_cond_t not_empty, not_full;
  chunk *queue[QUEUE_CHUNKS]; /* ring of full chunks, NULL = stop */
  size_t head, count;
  chunk *cur;                /* chunk being filled by the reader */
  chunk *spare;              /* a recycled chunk */
  int sql_rc;                /* first error of the SQL thread (under mu) */
  char sql_msg[512];
  double last_progress;      /* seconds at the last progress line */
  cct_rowtab batch;          /* the rows cct_rows serves to the statement being stepped */
  cct_traces *traces;        /* the database's traces (trace.h), NULL: none */
  int trace_m;               /* metric index of 'trace (sec)', -1: none */
  sqlite3_stmt *ins_tchunk, *ins_tlane, *ins_trun;
  row **gather;              /* SQL thread: rows of one statement, gathered from a chunk */
};

static double elapsed(const cct_writer *w);

/* With CCTINGEST_TRACE set, prints the time at which a phase ends (for profiling). */
static void trace(const cct_writer *w, const char *phase) {
  static int on = -1;
  if (on < 0) on = getenv("CCTINGEST_TRACE") != NULL;
  if (!on) return;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  fprintf(stderr, "cctingest: %7.3f s wall %7.3f s cpu  %s\n", elapsed(w),
          (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6, phase);
}

static double elapsed(const cct_writer *w) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)(t.tv_sec - w->t0.tv_sec) + (double)(t.tv_nsec - w->t0.tv_nsec) * 1e-9;
}

cct_err *cct_writer_err(cct_writer *w) { return &w->err; }

static int oom(cct_writer *w) { return cct_err_set(&w->err, CCT_ENOMEM, "out of memory"); }

static int queue_finish_tree(cct_writer *w); /* once the tree is complete (below) */

static int sql_fail(cct_writer *w, const char *what) {
  return cct_err_set(&w->err, CCT_ESQL, "cannot write '%s' (%s): %s", w->out_path, what, sqlite3_errmsg(w->db));
}

static void row_discard(row *r) {
  for (int i = 0; i < r->nargs; i++) free(r->a[i].type >= ARG_TEXT ? r->a[i].p : NULL);
}

/* Executes statement st for n rows, then frees what they own: a statement
 * reading cct_rows is stepped once over the whole batch, any other once per
 * row with the values bound.  Returns SQLITE_DONE or the SQLite error code. */
static int rows_exec(cct_writer *w, sqlite3_stmt *st, row **rows, size_t n) {
  int rc = SQLITE_DONE;
  if (!sqlite3_bind_parameter_count(st)) {
    w->batch = (cct_rowtab){rows, n};
    rc = sqlite3_step(st);
    sqlite3_reset(st);
    w->batch = (cct_rowtab){NULL, 0};
  } else {
    for (size_t k = 0; k < n && rc == SQLITE_DONE; k++) {
      row *r = rows[k];
      for (int i = 0; i < r->nargs; i++) {
        row_arg *a = &r->a[i];
        switch (a->type) {
        case ARG_INT: sqlite3_bind_int64(st, i + 1, a->i); break;
        case ARG_DOUBLE: sqlite3_bind_double(st, i + 1, a->d); break;
        case ARG_TEXT: sqlite3_bind_text(st, i + 1, a->p, -1, SQLITE_STATIC); break;
        case ARG_BLOB: sqlite3_bind_blob(st, i + 1, a->p, a->n, SQLITE_STATIC); break;
        default: sqlite3_bind_null(st, i + 1); break;
        }
      }
      rc = sqlite3_step(st);
      sqlite3_reset(st);
      sqlite3_clear_bindings(st);
    }
  }
  for (size_t k = 0; k < n; k++) row_discard(rows[k]);
  return rc;
}

/* Executes the rows of a chunk between function rows: first rows i.. that
 * share rows[i]'s statement (each table's rows keep their order), then the
 * next statement's.  Returns SQLITE_DONE or the error of the first failing
 * statement, naming its table in *what. */
static int chunk_exec(cct_writer *w, row *rows, size_t n, const char **what) {
  int rc = SQLITE_DONE;
  for (size_t i = 0; i < n; i++) {
    sqlite3_stmt *st = rows[i].st;
    if (!st) continue;
    size_t k = 0;
    for (size_t j = i; j < n; j++)
      if (rows[j].st == st) {
        w->gather[k++] = &rows[j];
        rows[j].st = NULL; /* done */
      }
    if (rc == SQLITE_DONE) {
      rc = rows_exec(w, st, w->gather, k);
      if (rc != SQLITE_DONE) *what = rows[i].what;
    } else {
      for (size_t j = 0; j < k; j++) row_discard(w->gather[j]);
    }
  }
  return rc;
}

/* The SQL thread: executes queued chunks in order until it pops NULL.  After
 * an error it records the message and only frees the remaining rows. */
static void *sql_thread(void *arg) {
  cct_writer *w = arg;
  for (;;) {
    pthread_mutex_lock(&w->mu);
    while (!w->count) pthread_cond_wait(&w->not_empty, &w->mu);
    chunk *c = w->queue[w->head];
    w->head = (w->head + 1) % QUEUE_CHUNKS;
    w->count--;
    int failed = w->sql_rc;
    pthread_cond_signal(&w->not_full);
    pthread_mutex_unlock(&w->mu);
    if (!c) return NULL;
    for (size_t i = 0; i < c->n;) {
      size_t j = i;
      while (j < c->n && !c->rows[j].fn) j++; /* rows i..j-1 are inserts, row j (if any) a function */
      if (failed) {
        for (size_t k = i; k < j; k++) row_discard(&c->rows[k]);
      } else if (j > i) {
        const char *what = "";
        if (chunk_exec(w, c->rows + i, j - i, &what) != SQLITE_DONE) {
          pthread_mutex_lock(&w->mu);
          w->sql_rc = CCT_ESQL;
          snprintf(w->sql_msg, sizeof w->sql_msg, "cannot write '%s' (%s): %s", w->out_path, what, sqlite3_errmsg(w->db));
          pthread_mutex_unlock(&w->mu);
          failed = 1;
        }
      }
      if (j == c->n) break;
      cct_err err = CCT_ERR_INIT;
      if (!failed && c->rows[j].fn(w, &err) != CCT_OK) {
        pthread_mutex_lock(&w->mu);
        w->sql_rc = err.code;
        snprintf(w->sql_msg, sizeof w->sql_msg, "%s", err.msg);
        pthread_mutex_unlock(&w->mu);
        failed = 1;
      }
      i = j + 1;
    }
    c->n = 0;
    pthread_mutex_lock(&w->mu);
    if (!w->spare) w->spare = c, c = NULL;
    pthread_mutex_unlock(&w->mu);
    free(c);
  }
}

/* Hands a chunk (or NULL, the stop mark) to the SQL thread, waiting while the queue is full. */
static void queue_push(cct_writer *w, chunk *c) {
  pthread_mutex_lock(&w->mu);
  while (w->count == QUEUE_CHUNKS) pthread_cond_wait(&w->not_full, &w->mu);
  w->queue[(w->head + w->count) % QUEUE_CHUNKS] = c;
  w->count++;
  pthread_cond_signal(&w->not_empty);
  pthread_mutex_unlock(&w->mu);
}

/* Starts the SQL thread.  Returns CCT_OK or CCT_ENOMEM. */
static int sql_thread_start(cct_writer *w) {
  if (pthread_create(&w->thread, NULL, sql_thread, w)) return cct_err_set(&w->err, CCT_ENOMEM, "cannot start a thread");
  w->threaded = 1;
  return CCT_OK;
}

/* Flushes the queue and stops the SQL thread; its error, if any, becomes the
 * writer's.  Returns the writer's error code. */
static int sql_thread_stop(cct_writer *w) {
  if (!w->threaded) return w->err.code;
  if (w->cur && w->cur->n) queue_push(w, w->cur), w->cur = NULL;
  queue_push(w, NULL);
  pthread_join(w->thread, NULL);
  w->threaded = 0;
  if (w->sql_rc) cct_err_set(&w->err, w->sql_rc, "%s", w->sql_msg);
  if (w->cur) {
    for (size_t i = 0; i < w->cur->n; i++) row_discard(&w->cur->rows[i]);
    free(w->cur);
    w->cur = NULL;
  }
  return w->err.code;
}

/* Starts a row for statement st (what names the table in messages; st NULL
 * for a row that runs a function instead), or returns NULL when out of memory.
 * Set its arguments with row_int & co., then submit it with row_end.  Unset
 * arguments are NULL. */
static row *row_begin(cct_writer *w, sqlite3_stmt *st, const char *what) {
  if (!w->cur) {
    pthread_mutex_lock(&w->mu);
    w->cur = w->spare;
    w->spare = NULL;
    pthread_mutex_unlock(&w->mu);
    if (!w->cur && !(w->cur = malloc(sizeof *w->cur))) return NULL;
    w->cur->n = 0;
  }
  row *r = &w->cur->rows[w->cur->n];
  r->fn = NULL;
  r->st = st;
  r->what = what;
  int nparams = st ? sqlite3_bind_parameter_count(st) : 0;
  r->nargs = !st ? 0 : nparams ? nparams : ROW_MAX_ARGS; /* no parameters: it reads cct_rows */
  memset(r->a, 0, sizeof r->a[0] * (size_t)r->nargs);
  return r;
}

static void row_int(row *r, int i, int64_t v) { r->a[i - 1] = (row_arg){ARG_INT, 0, v, 0, NULL}; }
static void row_opt(row *r, int i, int64_t v, int present) {
  if (present) row_int(r, i, v);
}
/* Parameters i .. i + n - 1 are v[0 .. n). */
static void row_ints(row *r, int i, int n, const int64_t *v) {
  for (int k = 0; k < n; k++) row_int(r, i + k, v[k]);
}
/* Parameters i .. i + 5 are a profile's node, rank, thread, core, GPU context and stream
 * (NULL where it has none). */
static void row_profile_id(row *r, int i, const cct_profile_id *id) {
  int64_t f[6] = {id->node, id->rank, id->thread, id->core, id->gpucontext, id->gpustream};
  for (int k = 0; k < 6; k++) row_opt(r, i + k, f[k], f[k] >= 0);
}
static void row_double(row *r, int i, double v) { r->a[i - 1] = (row_arg){ARG_DOUBLE, 0, 0, v, NULL}; }
/* Text is copied; a blob's memory (malloc'd) passes to the row. */
static void row_text(row *r, int i, const char *t) {
  if (t) r->a[i - 1] = (row_arg){ARG_TEXT, 0, 0, 0, strdup(t)};
}
static void row_blob(row *r, int i, void *p, size_t n) { r->a[i - 1] = (row_arg){ARG_BLOB, (int)n, 0, 0, p}; }
static void row_take_text(row *r, int i, char *t) { r->a[i - 1] = (row_arg){ARG_TEXT, 0, 0, 0, t}; }

/* Submits the row begun last: queued to the SQL thread while it runs, else
 * executed now.  Returns CCT_OK, or the writer's error (also an earlier error
 * of the SQL thread). */
static int row_end(cct_writer *w) {
  row *r = &w->cur->rows[w->cur->n];
  for (int i = 0; i < r->nargs; i++)
    if (r->a[i].type == ARG_TEXT && !r->a[i].p) return row_discard(r), oom(w);
  if (!w->threaded) {
    if (r->fn) return r->fn(w, &w->err);
    int rc = rows_exec(w, r->st, &r, 1);
    return rc == SQLITE_DONE ? CCT_OK : sql_fail(w, r->what);
  }
  if (++w->cur->n == CHUNK_ROWS) {
    queue_push(w, w->cur);
    w->cur = NULL;
    pthread_mutex_lock(&w->mu);
    int rc = w->sql_rc;
    pthread_mutex_unlock(&w->mu);
    if (rc) return cct_err_set(&w->err, rc, "%s", w->sql_msg);
  }
  return CCT_OK;
}

/* Splits a C++ qualified name 'ns::C::f(int)' into class 'ns::C' and
 * namespace 'ns' (a single qualifier is both, as the name cannot tell). */
static void parse_scope(const char *name, char **cls, char **ns) {
  *cls = *ns = NULL;
  const char *last = NULL, *prev = NULL;
  int angle = 0;
  for (const char *p = name; *p; p++) {
    if (*p == '<') angle++;
    else if (*p == '>' && angle) angle--;
    else if (*p == '(' && !angle && p != name) break;
    else if (*p == ' ' && !angle && !last) name = p + 1; /* skip a return type */
    else if (p[0] == ':' && p[1] == ':' && !angle) {
      prev = last;
      last = p;
      p++;
    }
  }
  if (!last || last == name) return;
  *cls = strndup(name, (size_t)(last - name));
  *ns = prev ? strndup(name, (size_t)(prev - name)) : strdup(*cls);
}

int cct_writer_open(const char *out_path, const char *db_dir, const char *format, const char *title,
                    const char *digest, long long input_bytes, int replace, cct_writer **pw, cct_err *err) {
  cct_writer *w = calloc(1, sizeof *w);
  *pw = NULL;
  if (!w) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  clock_gettime(CLOCK_MONOTONIC, &w->t0);
  pthread_mutex_init(&w->mu, NULL);
  pthread_cond_init(&w->not_empty, NULL);
  pthread_cond_init(&w->not_full, NULL);
  w->format = format;
  w->out_path = strdup(out_path);
  w->db_dir = strdup(db_dir);
  w->tree_file = !strcmp(format, "v4") ? "meta.db" : "experiment.xml";
  if (!w->out_path || !w->db_dir) {
    cct_writer_abort(w);
    return cct_err_set(err, CCT_ENOMEM, "out of memory");
  }
  w->tmp_fd = -1;
  w->primary = -1;
  w->trace_m = -1;
  char real[PATH_MAX];
  struct stat sb;
  if (realpath(db_dir, real) && strlen(real) + 5 < sizeof real) {
    memcpy(real + strlen(real), "/src", sizeof "/src");
    if (lstat(real, &sb) == 0 && S_ISDIR(sb.st_mode)) w->src_root = strdup(real);
  }
  /* The output is absent, an empty regular file, or an archive: never a
   * device, FIFO or symlink, which the rename of a new archive would replace. */
  int exists = lstat(out_path, &sb) == 0;
  if (exists && !S_ISREG(sb.st_mode)) {
    cct_writer_abort(w);
    return cct_err_set(err, CCT_EUSAGE, "'%s' exists and is not a regular file (%s); give a new path or an archive",
                       out_path, S_ISLNK(sb.st_mode) ? "a symlink" : S_ISDIR(sb.st_mode) ? "a directory" : "a device or FIFO");
  }
  exists = exists && sb.st_size > 0;
  cct_tmp_remove_stale(out_path);
  int rc = CCT_OK;
  if (!exists) {
    /* New archive: build it in a temporary file beside the output. */
    rc = cct_tmp_create(out_path, &w->tmp_path, &w->tmp_fd, err);
    if (rc) return cct_writer_abort(w), rc;
  }
  cct_err e = CCT_ERR_INIT;
  rc = cct_schema_open(w->tmp_path ? w->tmp_path : out_path,
                       CCT_OPEN_WRITE | (input_bytes > (64 << 20) ? CCT_OPEN_LARGE : 0), &w->db, &e);
  if (!rc && w->tmp_path)
    rc = cct_schema_run_named(w->db, cct_sql_ingest, "tune_new", 0, &e);
  else if (!rc)
    rc = cct_schema_run_named(w->db, cct_sql_ingest, "tune_append", 0, &e);
  if (!rc) rc = cct_schema_run_named(w->db, cct_sql_ingest, "begin", 0, &e);
  if (rc) {
    /* SQL errors here (disk full while creating the schema) name the output, not the temporary */
    if (rc == CCT_ESQL) cct_err_set(err, rc, "cannot write '%s': %s", out_path, e.msg);
    else cct_err_set(err, rc, "%s", e.msg);
    cct_writer_abort(w);
    return rc;
  }
  sqlite3_stmt *st = NULL;
  rc = cct_schema_prepare_named(w->db, cct_sql_ingest, "find_digest", &st, err);
  if (!rc) {
    sqlite3_bind_text(st, 1, digest, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW) {
      long long old = sqlite3_column_int64(st, 0);
      if (!replace)
        rc = cct_err_set(err, CCT_EEXISTS, "'%s' is already run %lld of '%s'; use --replace to replace it", db_dir,
                         old, out_path);
      else
        rc = cct_schema_run_named(w->db, cct_sql_ingest, "delete_run", old, err);
    }
    sqlite3_finalize(st);
  }
  if (!rc) rc = cct_schema_prepare_named(w->db, cct_sql_ingest, "next_pre", &st, err);
  if (!rc) {
    w->pre_base = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    rc = cct_schema_prepare_named(w->db, cct_sql_ingest, "next_run", &st, err);
  }
  if (!rc) {
    w->run = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 1;
    sqlite3_finalize(st);
    rc = cct_schema_prepare_named(w->db, cct_sql_ingest, "insert_run", &st, err);
  }
  if (!rc) {
    char now[32], abs[4096];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", &tm);
    const char *path = realpath(db_dir, abs) ? abs : db_dir;
    const char *base = strrchr(path, '/');
    sqlite3_bind_int64(st, 1, w->run);
    sqlite3_bind_text(st, 2, path, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, format, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, title ? title : base && base[1] ? base + 1 : path, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, now, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 6, "cctingest " CCT_VERSION, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 7, digest, -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE) rc = cct_err_set(err, CCT_ESQL, "run: %s", sqlite3_errmsg(w->db));
    sqlite3_finalize(st);
  }
  struct { sqlite3_stmt **st; const char *name; } stmts[] = {
      {&w->ins_ctx, "insert_context"}, {&w->ins_val, "insert_value"},     {&w->ins_mod, "insert_module"},
      {&w->ins_file, "insert_file"},   {&w->ins_fn, "insert_function"},   {&w->ins_metric, "insert_metric"},
      {&w->ins_prof, "insert_profile"}, {&w->ins_pval, "insert_profile_value"},
      {&w->ins_tchunk, "insert_trace_chunk"}, {&w->ins_tlane, "insert_trace_lane"}, {&w->ins_trun, "insert_trace_run"}};
  if (!rc && (!(w->gather = malloc(CHUNK_ROWS * sizeof *w->gather)) || cct_rowtab_register(w->db, &w->batch) != SQLITE_OK))
    rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
  for (size_t i = 0; !rc && i < sizeof stmts / sizeof *stmts; i++)
    rc = cct_schema_prepare_named(w->db, cct_sql_ingest, stmts[i].name, stmts[i].st, err);
  if (rc == CCT_ESQL && !strstr(err->msg, out_path)) {
    /* a damaged archive fails here ("database disk image is malformed"): name it */
    char msg[sizeof err->msg];
    memcpy(msg, err->msg, sizeof msg);
    err->code = CCT_OK; /* cct_err_set keeps a first error */
    cct_err_set(err, rc, "cannot write '%s': %s", out_path, msg);
  }
  if (rc) {
    cct_writer_abort(w);
    return rc;
  }
  if (!rc) rc = sql_thread_start(w);
  if (rc) {
    cct_err_set(err, rc, "%s", w->err.msg);
    cct_writer_abort(w);
    return rc;
  }
  w->progress = isatty(2);
  *pw = w;
  return CCT_OK;
}

/* FNV-1a over n bytes, continuing from h. */
static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}

/* Identity kinds interned in w->identities. */
enum { ID_MODULE = 1, ID_FILE, ID_FUNCTION };

/* Whether dense id of kind has the identity (name, module, file, line). */
static int same_identity(const cct_writer *w, int kind, int64_t id, const char *name, int64_t module, int64_t file,
                         int64_t line) {
  if (kind == ID_MODULE) return !strcmp(w->module_path[id], name);
  if (kind == ID_FILE) return !strcmp(w->file_path[id], name);
  return !strcmp(w->fn_name[id], name) && w->fn_module[id] == module && w->fn_file[id] == file && w->fn_line[id] == line;
}

/* Looks up the dense id of an identity (kind, name, module, file, line).
 * Returns it (> 0), 0 when the identity is new (then *slot receives where to
 * store its dense id), or -1 when out of memory.  Hash collisions are resolved
 * by probing (hash, 1), (hash, 2), ... */
static int64_t intern(cct_writer *w, int kind, const char *name, int64_t module, int64_t file, int64_t line,
                      int64_t **slot) {
  int64_t ints[4] = {kind, module, file, line};
  uint64_t h = fnv(fnv(0xcbf29ce484222325ull, ints, sizeof ints), name, strlen(name));
  for (int64_t k = 0;; k++) {
    int added = 0;
    int64_t *v = cct_idmap_put(&w->identities, (int64_t)h, k, 0, &added);
    if (!v) return -1;
    if (added) {
      *slot = v;
      return 0;
    }
    if (same_identity(w, kind, *v, name, module, file, line)) return *v;
  }
}

int cct_writer_module(cct_writer *w, int64_t id, const char *path) {
  int added = 0;
  int64_t *v = cct_idmap_put(&w->modules, id, 0, 0, &added);
  if (!v) return oom(w);
  if (!added) return cct_err_set(&w->err, CCT_ECORRUPT, "module id %lld declared twice", (long long)id);
  int64_t *slot = NULL, same = intern(w, ID_MODULE, path, 0, 0, 0, &slot);
  if (same < 0) return oom(w);
  if (same) { /* a second record of a known module: one row */
    *cct_idmap_get(&w->modules, id, 0) = same;
    return CCT_OK;
  }
  *slot = w->nmodules + 1;
  *cct_idmap_get(&w->modules, id, 0) = w->nmodules + 1;
  w->nmodules++;
  if (CCT_GROW_ZERO(w->module_path, (size_t)w->nmodules + 1, w->mod_cap) ||
      !(w->module_path[w->nmodules] = strdup(path)))
    return oom(w);
  row *r = row_begin(w, w->ins_mod, "module");
  if (!r) return oom(w);
  row_int(r, 1, w->run);
  row_int(r, 2, w->nmodules);
  row_text(r, 3, path);
  return row_end(w);
}

/* 1 when rel is relative and names no '..' component. */
static int no_dotdot(const char *rel) {
  if (rel[0] == '/' || rel[0] == '\0') return 0;
  for (const char *s = rel; *s;) {
    size_t len = strcspn(s, "/");
    if (len == 2 && s[0] == '.' && s[1] == '.') return 0;
    s += len;
    if (*s == '/') s++;
  }
  return 1;
}

/* Opens the source copy rel (relative to the database directory) when it is a
 * regular file inside DB_DIR/src: rel starts with 'src/' (after './'), has no
 * '..', and resolves inside DB_DIR/src (a symlink may point within the tree,
 * never out of it).  The resolved path is then opened one component at a time
 * without following symlinks, so a link swapped in meanwhile is not followed.
 * Returns the descriptor or -1. */
static int open_source(const cct_writer *w, const char *rel) {
  while (rel[0] == '.' && rel[1] == '/') rel += 2;
  if (!w->src_root || strncmp(rel, "src/", 4) || !no_dotdot(rel)) return -1;
  size_t nroot = strlen(w->src_root);
  char joined[PATH_MAX], real[PATH_MAX];
  if (snprintf(joined, sizeof joined, "%s/%s", w->src_root, rel + 4) >= (int)sizeof joined || !realpath(joined, real) ||
      strncmp(real, w->src_root, nroot) || real[nroot] != '/')
    return -1;
  int fd = open(w->src_root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  for (char *c = real + nroot + 1; fd >= 0 && *c;) {
    char *slash = strchr(c, '/');
    if (slash) *slash = 0;
    int next = openat(fd, c, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (slash ? O_DIRECTORY : O_NONBLOCK));
    close(fd);
    fd = next;
    c = slash ? slash + 1 : c + strlen(c);
  }
  struct stat sb;
  if (fd >= 0 && (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))) {
    close(fd);
    fd = -1;
  }
  return fd;
}

/* Reads and compresses the source copy rel (see open_source).  Returns a
 * malloc'd zstd frame (size in *zn, text size in *n), or NULL when there is
 * no such copy or it cannot be read. */
static void *compress_source(const cct_writer *w, const char *rel, size_t *n, size_t *zn) {
  int fd = open_source(w, rel);
  FILE *f = fd < 0 ? NULL : fdopen(fd, "rb");
  if (!f) {
    if (fd >= 0) close(fd);
    return NULL;
  }
  char *text = NULL, *z = NULL;
  struct stat sb;
  if (fstat(fileno(f), &sb) == 0 && (text = malloc((size_t)sb.st_size + 1)) &&
      fread(text, 1, (size_t)sb.st_size, f) == (size_t)sb.st_size) {
    *n = (size_t)sb.st_size;
    size_t cap = ZSTD_compressBound(*n);
    if ((z = malloc(cap))) {
      *zn = ZSTD_compress(z, cap, text, *n, 9);
      if (ZSTD_isError(*zn)) {
        free(z);
        z = NULL;
      }
    }
  }
  free(text);
  fclose(f);
  return z;
}

/* Declares file id at path with z (zn bytes, a zstd frame of n bytes of text,
 * which the row takes; NULL: no copy). */
static int add_file(cct_writer *w, int64_t id, const char *path, void *z, size_t n, size_t zn);

int cct_writer_file(cct_writer *w, int64_t id, const char *path, const char *src_rel) {
  size_t n = 0, zn = 0;
  void *z = src_rel ? compress_source(w, src_rel, &n, &zn) : NULL;
  return add_file(w, id, path, z, n, zn);
}

int cct_writer_file_copy(cct_writer *w, int64_t id, const char *path, long long size, const void *z, size_t zn) {
  void *copy = z && size >= 0 ? malloc(zn ? zn : 1) : NULL;
  if (z && size >= 0 && !copy) return oom(w);
  if (copy) memcpy(copy, z, zn);
  return add_file(w, id, path, copy, copy ? (size_t)size : 0, zn);
}

static int add_file(cct_writer *w, int64_t id, const char *path, void *z, size_t n, size_t zn) {
  int added = 0;
  int64_t *v = cct_idmap_put(&w->files, id, 0, 0, &added);
  if (!v) return oom(w);
  if (!added) return free(z), cct_err_set(&w->err, CCT_ECORRUPT, "file id %lld declared twice", (long long)id);
  int64_t *slot = NULL, same = intern(w, ID_FILE, path, 0, 0, 0, &slot);
  if (same < 0) return free(z), oom(w);
  if (same) { /* a second record of a known path: one row (the first one's copy of the text) */
    *cct_idmap_get(&w->files, id, 0) = same;
    free(z);
    return CCT_OK;
  }
  *slot = w->nfiles + 1;
  *cct_idmap_get(&w->files, id, 0) = w->nfiles + 1;
  w->nfiles++;
  if (CCT_GROW_ZERO(w->file_path, (size_t)w->nfiles + 1, w->file_cap) || !(w->file_path[w->nfiles] = strdup(path)))
    return free(z), oom(w);
  row *r = row_begin(w, w->ins_file, "file");
  if (!r) return free(z), oom(w);
  row_int(r, 1, w->run);
  row_int(r, 2, w->nfiles);
  row_text(r, 3, path);
  if (z) {
    row_int(r, 4, (int64_t)n);
    row_blob(r, 5, z, zn);
  }
  return row_end(w);
}

/* Adds a function with dense references; returns its dense id or 0 on error. */
static int64_t add_function(cct_writer *w, const char *name, int64_t module, int64_t file, int64_t line) {
  int64_t id = ++w->nfunctions;
  if ((size_t)id >= w->fn_cap) {
    size_t cap = w->fn_cap ? w->fn_cap * 2 : 256;
    int64_t *f = cct_reallocarray(w->fn_file, cap, sizeof *f);
    if (f) w->fn_file = f;
    int64_t *m = cct_reallocarray(w->fn_module, cap, sizeof *m);
    if (m) w->fn_module = m;
    int64_t *l = cct_reallocarray(w->fn_line, cap, sizeof *l);
    if (l) w->fn_line = l;
    char **nm = cct_reallocarray(w->fn_name, cap, sizeof *nm);
    if (nm) w->fn_name = nm;
    if (!f || !m || !l || !nm) return oom(w), 0;
    w->fn_cap = cap;
  }
  w->fn_file[id] = file;
  w->fn_module[id] = module;
  w->fn_line[id] = line;
  if (!(w->fn_name[id] = strdup(name))) return oom(w), 0;
  char *cls = NULL, *ns = NULL;
  parse_scope(name, &cls, &ns);
  row *r = row_begin(w, w->ins_fn, "function");
  if (!r) return free(cls), free(ns), oom(w), 0;
  row_int(r, 1, w->run);
  row_int(r, 2, id);
  row_text(r, 3, name);
  row_opt(r, 4, module, module > 0);
  row_opt(r, 5, file, file > 0);
  row_opt(r, 6, line, line >= 0);
  if (cls) row_take_text(r, 7, cls);
  if (ns) row_take_text(r, 8, ns);
  return row_end(w) ? 0 : id;
}

/* Maps a reader's reference through map; CCT_NONE maps to 0.  Returns -1 when unknown. */
static int64_t map_ref(const cct_idmap *map, int64_t id) {
  if (id == CCT_NONE) return 0;
  int64_t *v = cct_idmap_get(map, id, 0);
  return v ? *v : -1;
}

int cct_writer_function(cct_writer *w, int64_t id, const char *name, int64_t module, int64_t file, int64_t line) {
  int64_t m = map_ref(&w->modules, module), f = map_ref(&w->files, file);
  if (m < 0 || f < 0)
    return cct_err_set(&w->err, CCT_ECORRUPT, "function %lld refers to unknown %s %lld", (long long)id,
                       m < 0 ? "module" : "file", (long long)(m < 0 ? module : file));
  int added = 0;
  int64_t *v = cct_idmap_put(&w->functions, id, 0, 0, &added);
  if (!v) return oom(w);
  if (!added) return cct_err_set(&w->err, CCT_ECORRUPT, "function id %lld declared twice", (long long)id);
  int64_t l = line == CCT_NONE ? -1 : line, *slot = NULL, dense = intern(w, ID_FUNCTION, name, m, f, l, &slot);
  if (dense < 0) return oom(w);
  if (!dense) { /* a new identity (else another record of a known function: one row) */
    int64_t next = w->nfunctions + 1;
    *slot = next; /* before add_function, which may grow w->identities no more */
    if (!(dense = add_function(w, name, m, f, l))) return w->err.code;
    if (dense != next) return cct_err_set(&w->err, CCT_EUSAGE, "function numbering out of step");
  }
  *cct_idmap_get(&w->functions, id, 0) = dense;
  return CCT_OK;
}

int cct_writer_metric(cct_writer *w, const char *name, const char *stat, const char *description, int has_lex,
                      cct_err *err) {
  if (w->depth || w->next_pre) return cct_err_set(err, CCT_EUSAGE, "metric '%s' declared after the tree", name), -1;
  int m = w->nmetrics++;
  int rank = cct_metric_rank(name);
  if (!strcmp(stat, "sum") && (w->primary < 0 || rank < w->primary_rank)) w->primary = m, w->primary_rank = rank;
  char unit[64] = "";
  const char *open = strrchr(name, '('), *close = open ? strchr(open, ')') : NULL;
  if (open && close && close - open - 1 < (long)sizeof unit) snprintf(unit, sizeof unit, "%.*s", (int)(close - open - 1), open + 1);
  row *r = row_begin(w, w->ins_metric, "metric");
  if (r) {
    row_int(r, 1, w->run);
    row_int(r, 2, m + 1);
    row_text(r, 3, name);
    row_text(r, 4, stat);
    if (*unit) row_text(r, 5, unit);
    row_text(r, 6, description);
    row_int(r, 7, has_lex);
  }
  if (!r ? oom(w) : row_end(w)) {
    cct_err_set(err, w->err.code, "%s", w->err.msg);
    return -1;
  }
  return m;
}

/* Returns the slot of static scope (kind, key, line), creating it, and counts one more
 * context in it; -2 when out of memory. */
static int64_t scope_slot(cct_writer *w, int kind, int64_t key, int64_t line) {
  int added = 0;
  int64_t *v = cct_idmap_put(&w->scopes, ((int64_t)kind << 48) | key, line, (int64_t)w->nslots, &added);
  if (!v) return -2;
  if (added) {
    size_t n = w->nslots++, nm = (size_t)(w->nmetrics ? w->nmetrics : 1), cap = w->slot_cap;
    if (n >= cap) {
      size_t ncap = cap ? cap * 2 : 256;
      int *a = cct_reallocarray(w->active, ncap, sizeof *a);
      if (a) w->active = a;
      int *oa = cct_reallocarray(w->open_at, ncap, sizeof *oa);
      if (oa) w->open_at = oa;
      double *i = cct_reallocarray(w->scope_incl, ncap, nm * sizeof *i);
      if (i) w->scope_incl = i;
      double *e = cct_reallocarray(w->scope_excl, ncap, nm * sizeof *e);
      if (e) w->scope_excl = e;
      int64_t *k = cct_reallocarray(w->scope_key, ncap, 4 * sizeof *k);
      if (k) w->scope_key = k;
      if (!a || !oa || !i || !e || !k) return -2;
      w->slot_cap = ncap;
    }
    w->active[n] = 0;
    w->open_at[n] = -1;
    memset(w->scope_incl + n * nm, 0, nm * sizeof(double));
    memset(w->scope_excl + n * nm, 0, nm * sizeof(double));
    w->scope_key[4 * n] = kind;
    w->scope_key[4 * n + 1] = key;
    w->scope_key[4 * n + 2] = line;
    w->scope_key[4 * n + 3] = 0;
  }
  w->scope_key[4 * *v + 3]++; /* one call per context in the scope */
  return *v;
}

static int is_frame(const cct_context *c) {
  return c->kind == CCT_KIND_ROOT || c->kind == CCT_KIND_FUNCTION ||
         (c->kind == CCT_KIND_INSTRUCTION && c->relation == CCT_REL_CALL);
}

/* Dense function of an instruction frame: the synthetic 'MODULE+0xOFFSET'. */
static int64_t synthetic_function(cct_writer *w, int64_t module, int64_t offset) {
  int added = 0;
  int64_t *v = cct_idmap_put(&w->synth, module, offset, 0, &added);
  if (!v) return oom(w), 0;
  if (!added) return *v;
  const char *path = module > 0 ? w->module_path[module] : "<unknown module>";
  const char *base = strrchr(path, '/');
  char name[512];
  snprintf(name, sizeof name, "%s+0x%llx", base ? base + 1 : path, (unsigned long long)offset);
  int64_t id = add_function(w, name, module, 0, -1);
  if (id) *cct_idmap_get(&w->synth, module, offset) = id;
  return id;
}

int cct_writer_enter(cct_writer *w, const cct_context *c) {
  if (w->err.code) return w->err.code;
  if (w->root_done || (w->depth == 0 && w->next_pre > 0))
    return cct_err_set(&w->err, CCT_ECORRUPT, "context %lld lies outside the tree", (long long)c->id);
  if (c->kind < CCT_KIND_ROOT || c->kind > CCT_KIND_INSTRUCTION || (c->kind == CCT_KIND_ROOT) != (w->depth == 0))
    return cct_err_set(&w->err, CCT_ECORRUPT, "context %lld has kind %d at depth %d", (long long)c->id, c->kind, w->depth);
  if (c->id < 0 || c->id > UINT32_MAX)
    return cct_err_set(&w->err, CCT_ECORRUPT, "context id %lld is out of range", (long long)c->id);
  if (w->pre_base + w->next_pre >= CCT_VALUE_KEY) /* value.key = metric * 2^40 + pre */
    return cct_err_set(&w->err, CCT_EUSAGE, "'%s' holds 2^40 contexts, as many as an archive can: use a new archive",
                       w->out_path);
  if (w->traces && w->trace_m < 0 && !w->depth) { /* the root: the traced time is the last metric */
    cct_err e = CCT_ERR_INIT;
    if ((w->trace_m = cct_writer_metric(w, CCT_TRACE_METRIC, "sum", "time on the sampled call stack, from the traces", 1, &e)) < 0)
      return cct_err_set(&w->err, e.code, "%s", e.msg);
  }
  int added = cct_idset_add(&w->contexts, (uint32_t)c->id);
  if (added < 0) return oom(w);
  if (!added) return cct_err_set(&w->err, CCT_ECORRUPT, "context id %lld appears twice", (long long)c->id);
  if (w->depth == w->stack_cap) {
    int ncap = w->stack_cap ? w->stack_cap * 2 : 64;
    open_ctx *s = cct_reallocarray(w->stack, (size_t)ncap, sizeof *s);
    if (!s) return oom(w);
    memset(s + w->stack_cap, 0, (size_t)(ncap - w->stack_cap) * sizeof *s);
    w->stack = s;
    w->stack_cap = ncap;
  }
  open_ctx *p = w->depth ? &w->stack[w->depth - 1] : NULL, *o = &w->stack[w->depth];
  size_t nv = (size_t)w->nmetrics * 3;
  if (!o->vals && nv) {
    o->vals = malloc(nv * sizeof *o->vals);
    o->set = malloc(nv);
    if (!o->vals || !o->set) return oom(w);
  }
  if (nv) {
    memset(o->vals, 0, nv * sizeof *o->vals);
    memset(o->set, 0, nv);
  }
  int64_t fn = map_ref(&w->functions, c->function), file = map_ref(&w->files, c->file),
          mod = map_ref(&w->modules, c->module);
  if (fn < 0 || file < 0 || mod < 0)
    return cct_err_set(&w->err, CCT_ECORRUPT, "context %lld refers to unknown %s %lld", (long long)c->id,
                       fn < 0 ? "function" : file < 0 ? "file" : "module",
                       (long long)(fn < 0 ? c->function : file < 0 ? c->file : c->module));
  if (w->trace_m >= 0) { /* its point value, to which its children add as they exit */
    double v = cct_traces_enter(w->traces, c->trace_id ? c->trace_id : c->id, w->next_pre);
    for (int k = 0; k < 3; k++) o->vals[3 * w->trace_m + k] = v, o->set[3 * w->trace_m + k] = 1;
  }
  int frame = is_frame(c);
  o->id = c->id;
  o->is_frame = frame;
  o->nframes = 0;
  o->parent = p ? w->pre_base + p->pre : -1;
  o->kind = c->kind;
  o->relation = c->relation;
  o->module = mod;
  /* an instruction's, and a loop's where the database stores its address (cct_scope_line) */
  o->offset = c->kind == CCT_KIND_INSTRUCTION || (c->kind == CCT_KIND_LOOP && mod > 0) ? c->offset : 0;
  o->line = c->line == CCT_NONE ? -1 : c->line;
  o->callsite = c->callsite && c->kind == CCT_KIND_LINE;
  if (frame && c->kind == CCT_KIND_INSTRUCTION && !(fn = synthetic_function(w, mod, c->offset))) return w->err.code;
  o->function = frame ? fn : p->function;
  if (!file && !frame && p) file = p->file; /* classic lines inherit their scope's file */
  if (!file && frame && fn) file = w->fn_file[fn];
  o->file = file;
  o->call_file = 0;
  o->call_line = -1;
  if (frame && p && p->kind == CCT_KIND_LINE) {
    o->call_file = p->file;
    o->call_line = p->line;
  }
  o->pre = w->next_pre++;
  o->frame = frame ? w->pre_base + o->pre : p->frame;
  o->fdepth = frame ? (p ? p->fdepth + 1 : 0) : p->fdepth;
  o->fparent = frame ? (p ? p->frame : -1) : p->frame;
  if (!p) {
    o->ldepth = 0;
    o->lparent = -1;
  } else if (p->callsite && c->relation != CCT_REL_LEXICAL) {
    p->callsite = 2;
    o->ldepth = p->ldepth;
    o->lparent = p->lparent;
  } else {
    o->ldepth = p->ldepth + 1;
    o->lparent = w->pre_base + p->pre;
  }
  for (int s = 0; s < NSCOPES; s++) o->slot[s] = -1;
  if (frame && p) {
    o->slot[CCT_TOTAL_FUNCTION] = scope_slot(w, CCT_TOTAL_FUNCTION, o->function, 0);
    int64_t ffile = w->fn_file[o->function], fmod = w->fn_module[o->function];
    if (ffile > 0) o->slot[CCT_TOTAL_FILE] = scope_slot(w, CCT_TOTAL_FILE, ffile, 0);
    if (fmod > 0) o->slot[CCT_TOTAL_MODULE] = scope_slot(w, CCT_TOTAL_MODULE, fmod, 0);
  } else if (c->kind == CCT_KIND_LOOP && file) {
    o->slot[CCT_TOTAL_LOOP] =
        scope_slot(w, CCT_TOTAL_LOOP, file, cct_scope_line(c->kind, o->line, o->function, o->module, o->offset));
  } else if (c->kind == CCT_KIND_LINE && file) {
    o->slot[CCT_TOTAL_LINE] =
        scope_slot(w, CCT_TOTAL_LINE, file, cct_scope_line(c->kind, o->line, o->function, o->module, o->offset));
  }
  /* Exclusive values follow the O' rule of SPEC section 4: every frame counts for
   * its function, file and module; a loop or line counts for its scope unless a
   * context of the same scope encloses it within its frame (a loop nested in a
   * loop with the same header is already in that loop's function-scope exclusive). */
  o->frame_depth = frame || !p ? w->depth : p->frame_depth;
  for (int s = 0; s < NSCOPES; s++) {
    int64_t slot = o->slot[s];
    if (slot < -1) return oom(w);
    if (slot < 0) continue;
    o->outer[s] = w->active[slot]++ == 0;
    o->saved_open[s] = w->open_at[slot];
    o->counted[s] = (s != CCT_TOTAL_LOOP && s != CCT_TOTAL_LINE) || w->open_at[slot] < o->frame_depth;
    w->open_at[slot] = w->depth;
  }
  w->by_kind[c->kind]++;
  w->depth++;
  return CCT_OK;
}

int cct_writer_value(cct_writer *w, int m, int which, double v) {
  if (!w->depth || m < 0 || m >= w->nmetrics || which < 0 || which > 2)
    return cct_err_set(&w->err, CCT_EUSAGE, "value for metric %d outside a context", m);
  open_ctx *o = &w->stack[w->depth - 1];
  o->vals[3 * m + which] = v;
  o->set[3 * m + which] = 1;
  return CCT_OK;
}

/* The traced time of o is complete (its children have exited): its lex_aware
 * is its function scope but for a loop (which holds no nested loops), and it
 * adds to its parent's inclusive, and to its function scope when lexical (to
 * lex_aware too unless a loop), as hpcprof propagates (formats.md 3.4). */
static void trace_propagate(cct_writer *w, open_ctx *o) {
  double *v = o->vals + 3 * w->trace_m;
  if (o->kind != CCT_KIND_LOOP) v[CCT_EXCLUSIVE_LEX] = v[CCT_EXCLUSIVE];
  if (!w->depth) return;
  double *pv = w->stack[w->depth - 1].vals + 3 * w->trace_m;
  pv[CCT_INCLUSIVE] += v[CCT_INCLUSIVE];
  if (o->relation != CCT_REL_LEXICAL || o->is_frame) return;
  pv[CCT_EXCLUSIVE] += v[CCT_EXCLUSIVE];
  if (o->kind != CCT_KIND_LOOP) pv[CCT_EXCLUSIVE_LEX] += v[CCT_EXCLUSIVE];
}

int cct_writer_exit(cct_writer *w) {
  if (w->err.code) return w->err.code;
  if (!w->depth) return cct_err_set(&w->err, CCT_EUSAGE, "exit without an open context");
  open_ctx *o = &w->stack[--w->depth];
  row *r = row_begin(w, w->ins_ctx, "context");
  if (!r) return oom(w);
  row_int(r, 1, w->run);
  row_int(r, 2, o->id);
  row_opt(r, 3, o->parent, o->parent >= 0 || w->depth);
  row_int(r, 4, w->depth);
  row_int(r, 5, o->kind);
  row_int(r, 6, o->relation);
  row_opt(r, 7, o->function, o->function > 0);
  row_opt(r, 8, o->file, o->file > 0);
  row_opt(r, 9, o->line, o->line >= 0);
  row_opt(r, 10, o->module, o->module > 0);
  row_opt(r, 11, o->offset, o->kind == CCT_KIND_INSTRUCTION || (o->kind == CCT_KIND_LOOP && o->module > 0));
  row_int(r, 12, o->callsite == 2); /* a <C> whose callee frame is missing (FLASH) is a plain line */
  row_opt(r, 13, o->call_file, o->call_file > 0);
  row_opt(r, 14, o->call_line, o->call_line >= 0);
  row_ints(r, 15, 4, (int64_t[]){w->pre_base + o->pre, w->pre_base + w->next_pre - 1, o->frame, o->fdepth});
  row_opt(r, 19, o->fparent, w->depth > 0);
  row_int(r, 20, o->ldepth);
  row_opt(r, 21, o->lparent, w->depth > 0);
  row_int(r, 22, o->nframes);
  for (int m = 0; m < w->nmetrics; m++) { /* a scope the database does not give equals the other */
    double *v = o->vals + 3 * m;
    unsigned char *set = o->set + 3 * m;
    if (!set[CCT_EXCLUSIVE]) v[CCT_EXCLUSIVE] = v[CCT_EXCLUSIVE_LEX];
    if (!set[CCT_EXCLUSIVE_LEX]) v[CCT_EXCLUSIVE_LEX] = v[CCT_EXCLUSIVE];
  }
  if (w->trace_m >= 0) trace_propagate(w, o);
  for (int k = 0; k < 3; k++) row_double(r, 23 + k, w->primary < 0 ? 0 : o->vals[3 * w->primary + k]); /* beside the context */
  if (w->depth) w->stack[w->depth - 1].nframes += o->nframes + o->is_frame;
  if (o->function > 0 && (o->is_frame || o->kind == CCT_KIND_LOOP || o->kind == CCT_KIND_LINE) && o->kind != CCT_KIND_ROOT) {
    if (CCT_GROW(w->by_fn, 3 * (w->nby_fn + 1), w->by_fn_cap)) return oom(w);
    int64_t *k = w->by_fn + 3 * w->nby_fn++;
    k[0] = o->function, k[1] = o->kind, k[2] = w->pre_base + o->pre;
  }
  if ((o->kind == CCT_KIND_LOOP || o->kind == CCT_KIND_LINE) && o->file > 0) {
    if (CCT_GROW(w->by_line, 4 * (w->nby_line + 1), w->by_line_cap)) return oom(w);
    int64_t *k = w->by_line + 4 * w->nby_line++;
    k[0] = o->file, k[1] = o->line, k[2] = o->kind, k[3] = w->pre_base + o->pre;
  }
  if (row_end(w)) return w->err.code;
  for (int m = 0; m < w->nmetrics; m++) {
    double *v = o->vals + 3 * m;
    if (v[0] == 0 && v[1] == 0 && v[2] == 0) continue;
    row *vr = row_begin(w, w->ins_val, "value");
    if (!vr) return oom(w);
    row_int(vr, 1, (int64_t)(m + 1) * CCT_VALUE_KEY + w->pre_base + o->pre);
    row_double(vr, 2, v[0]);
    row_double(vr, 3, v[1]);
    row_double(vr, 4, v[2]);
    if (row_end(w)) return w->err.code;
  }
  size_t nm = (size_t)w->nmetrics;
  for (int s = 0; s < NSCOPES; s++) {
    int64_t slot = o->slot[s];
    if (slot < 0) continue;
    for (size_t m = 0; m < nm; m++) {
      if (o->outer[s]) w->scope_incl[(size_t)slot * nm + m] += o->vals[3 * m + CCT_INCLUSIVE];
      if (o->counted[s]) w->scope_excl[(size_t)slot * nm + m] += o->vals[3 * m + CCT_EXCLUSIVE];
    }
    w->active[slot]--;
    w->open_at[slot] = o->saved_open[s];
  }
  if (!w->depth) w->root_done = 1;
  return CCT_OK;
}

void cct_writer_note_elided(cct_writer *w, long long n) { w->elided += n; }

int cct_writer_has_context(cct_writer *w, int64_t id) {
  return id >= 0 && id <= UINT32_MAX && cct_idset_has(&w->contexts, (uint32_t)id);
}

int cct_writer_profile(cct_writer *w, const cct_profile_id *id) {
  if (w->err.code) return w->err.code;
  if (!w->root_done) return cct_err_set(&w->err, CCT_EUSAGE, "profile before the tree is complete");
  if (queue_finish_tree(w)) return w->err.code;
  row *r = row_begin(w, w->ins_prof, "profile");
  if (!r) return oom(w);
  w->cur_profile = ++w->nprofiles;
  if (w->traces) cct_traces_bind(w->traces, id, w->cur_profile);
  row_ints(r, 1, 2, (int64_t[]){w->run, w->cur_profile});
  row_profile_id(r, 3, id);
  row_text(r, 9, id->source);
  return row_end(w);
}

int cct_writer_profile_values(cct_writer *w, int m, size_t n, const uint32_t *ctx, const double *incl,
                              const double *excl) {
  if (w->err.code) return w->err.code;
  if (!w->cur_profile || m < 0 || m >= w->nmetrics)
    return cct_err_set(&w->err, CCT_EUSAGE, "profile values for metric %d without a profile", m);
  if (!n) return CCT_OK;
  size_t raw = 4 + n * (4 + 8 + 8), cap = ZSTD_compressBound(raw);
  unsigned char *buf = malloc(raw), *z = malloc(cap);
  if (!buf || !z) {
    free(buf);
    free(z);
    return oom(w);
  }
  uint32_t n32 = (uint32_t)n;
  memcpy(buf, &n32, 4);
  memcpy(buf + 4, ctx, n * 4);
  memcpy(buf + 4 + n * 4, incl, n * 8);
  memcpy(buf + 4 + n * 12, excl, n * 8);
  size_t zn = ZSTD_compress(z, cap, buf, raw, 3);
  free(buf);
  if (ZSTD_isError(zn)) {
    free(z);
    return cct_err_set(&w->err, CCT_ENOMEM, "zstd: %s", ZSTD_getErrorName(zn));
  }
  row *r = row_begin(w, w->ins_pval, "profile values");
  if (!r) return free(z), oom(w);
  row_ints(r, 1, 3, (int64_t[]){w->run, w->cur_profile, m + 1});
  row_blob(r, 4, z, zn);
  return row_end(w);
}

void cct_writer_traces(cct_writer *w, cct_traces *t) {
  cct_traces_free(w->traces);
  w->traces = t;
}

/* cct_traces_store's sink (trace.h): the trace tables of the run. */
static int trace_chunk(void *arg, int64_t lane, int64_t seq, int64_t first, int64_t end, uint32_t n, void *z, size_t zn) {
  cct_writer *w = arg;
  row *r = row_begin(w, w->ins_tchunk, "trace records");
  if (!r) return free(z), oom(w);
  row_ints(r, 1, 6, (int64_t[]){w->run, lane, seq, first, end, n});
  row_blob(r, 7, z, zn);
  return row_end(w);
}

static int trace_lane(void *arg, int64_t lane, int64_t profile, const cct_profile_id *id, long long records,
                      long long strays, int64_t first, int64_t last, int64_t busy) {
  cct_writer *w = arg;
  row *r = row_begin(w, w->ins_tlane, "trace lanes");
  if (!r) return oom(w);
  row_ints(r, 1, 2, (int64_t[]){w->run, lane});
  row_opt(r, 3, profile, profile > 0);
  row_profile_id(r, 4, id);
  row_text(r, 10, id->source ? id->source : "");
  row_ints(r, 11, 5, (int64_t[]){records, strays, first, last, busy});
  return row_end(w);
}

static int trace_run(void *arg, int64_t t0, int64_t span, long long records, long long strays, long long lanes) {
  cct_writer *w = arg;
  row *r = row_begin(w, w->ins_trun, "trace span");
  if (!r) return oom(w);
  row_ints(r, 1, 6, (int64_t[]){w->run, t0, span, records, strays, lanes});
  return row_end(w);
}

static const char *trace_message(void *arg) { return ((cct_writer *)arg)->err.msg; }

void cct_writer_progress(cct_writer *w, long long done, long long total) {
  if (!w->progress) return;
  double t = elapsed(w);
  if (t < 1.0 || t - w->last_progress < 0.25) return;
  w->last_progress = t;
  fprintf(stderr, "\rcctingest: %lld/%lld MiB read, %lld contexts, %lld profiles, %.0f s ", done >> 20, total >> 20,
          (long long)w->next_pre, w->nprofiles, t);
  fflush(stderr);
}

/* Writes the static-scope totals accumulated during the walk. */
static int write_scope_totals(cct_writer *w, cct_err *err) {
  sqlite3_stmt *st = NULL;
  if (cct_schema_prepare_named(w->db, cct_sql_ingest, "insert_scope_total", &st, err)) return err->code;
  size_t nm = (size_t)w->nmetrics, n = 0;
  int rc = CCT_OK;
  row *rows = malloc(CHUNK_ROWS * sizeof *rows);
  if (!rows) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
  for (size_t s = 0; s <= w->nslots && !rc; s++)
    for (size_t m = 0; m < nm && !rc; m++) {
      int last = s == w->nslots;
      double in = last ? 0 : w->scope_incl[s * nm + m], ex = last ? 0 : w->scope_excl[s * nm + m];
      if (!last && (in != 0 || ex != 0)) {
        row *r = &rows[n++];
        *r = (row){NULL, st, "scope totals", 8, {{0}}};
        row_int(r, 1, w->run);
        row_int(r, 2, w->scope_key[4 * s]);
        row_int(r, 3, w->scope_key[4 * s + 1]);
        row_int(r, 4, w->scope_key[4 * s + 2]);
        row_int(r, 5, (int64_t)m + 1);
        row_double(r, 6, in);
        row_double(r, 7, ex);
        row_int(r, 8, w->scope_key[4 * s + 3]);
      }
      if (n == CHUNK_ROWS || (last && n)) {
        for (size_t k = 0; k < n; k++) w->gather[k] = &rows[k];
        if (rows_exec(w, st, w->gather, n) != SQLITE_DONE)
          rc = cct_err_set(err, CCT_ESQL, "cannot write '%s' (scope totals): %s", w->out_path, sqlite3_errmsg(w->db));
        n = 0;
      }
    }
  free(rows);
  sqlite3_finalize(st);
  return rc;
}

static int cmp_key3(const void *a, const void *b) {
  const int64_t *x = a, *y = b;
  for (int i = 0; i < 3; i++)
    if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
  return 0;
}

static int cmp_key4(const void *a, const void *b) {
  const int64_t *x = a, *y = b;
  for (int i = 0; i < 4; i++)
    if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
  return 0;
}

/* Inserts n sorted keys of k integers (k + 1 <= ROW_MAX_ARGS) with statement
 * name of ingest.sql, the run before each key, in batches.  Returns CCT_OK or
 * an error in err. */
static int write_keys(cct_writer *w, const char *name, const int64_t *keys, size_t n, int k, cct_err *err) {
  sqlite3_stmt *st = NULL;
  if (cct_schema_prepare_named(w->db, cct_sql_ingest, name, &st, err)) return err->code;
  row *rows = malloc(CHUNK_ROWS * sizeof *rows);
  int rc = rows ? CCT_OK : cct_err_set(err, CCT_ENOMEM, "out of memory");
  for (size_t i = 0; i < n && !rc; i += CHUNK_ROWS) {
    size_t m = n - i < CHUNK_ROWS ? n - i : CHUNK_ROWS;
    for (size_t j = 0; j < m; j++) {
      row *r = &rows[j];
      r->fn = NULL, r->st = st, r->what = name, r->nargs = k + 1;
      row_int(r, 1, w->run);
      for (int c = 0; c < k; c++) row_int(r, c + 2, keys[(i + j) * (size_t)k + (size_t)c]);
      w->gather[j] = r;
    }
    if (rows_exec(w, st, w->gather, m) != SQLITE_DONE)
      rc = cct_err_set(err, CCT_ESQL, "cannot write '%s' (%s): %s", w->out_path, name, sqlite3_errmsg(w->db));
  }
  free(rows);
  sqlite3_finalize(st);
  return rc;
}

/* Once the tree is complete: writes the static-scope totals and the center
 * look-up tables (keys sorted by the reader thread in queue_finish_tree),
 * builds the indexes and the tree image (ingest/tree_image.c).  Queued to the SQL thread, so it overlaps the reading of
 * the profiles.  Returns CCT_OK or an error in err. */
static int finish_tree(cct_writer *w, cct_err *err) {
  trace(w, "tree");
  int rc = write_scope_totals(w, err);
  trace(w, "scope totals");
  if (!rc) rc = write_keys(w, "insert_by_function", w->by_fn, w->nby_fn, 3, err);
  if (!rc) rc = write_keys(w, "insert_by_line", w->by_line, w->nby_line, 4, err);
  trace(w, "center tables");
  if (!rc) rc = cct_schema_create_indexes(w->db, err);
  trace(w, "indexes");
  if (!rc) { /* its check finds a tree the input made inconsistent: an error naming that file */
    cct_err e = CCT_ERR_INIT;
    rc = cct_tree_image_write(w->db, w->run, w->next_pre, &e);
    if (rc == CCT_ECORRUPT) cct_err_set(err, rc, "'%s/%s': %s", w->db_dir, w->tree_file, e.msg);
    else if (rc) cct_err_set(err, rc, "%s", e.msg);
  }
  trace(w, "tree image");
  return rc;
}

/* Queues finish_tree once, when the tree is complete. */
static int queue_finish_tree(cct_writer *w) {
  if (w->tree_finished) return CCT_OK;
  w->tree_finished = 1;
  if (w->nby_fn) qsort(w->by_fn, w->nby_fn, 3 * sizeof *w->by_fn, cmp_key3);
  if (w->nby_line) qsort(w->by_line, w->nby_line, 4 * sizeof *w->by_line, cmp_key4);
  row *r = row_begin(w, NULL, "finish");
  if (!r) return oom(w);
  r->fn = finish_tree;
  return row_end(w);
}

int cct_writer_commit(cct_writer *w, cct_ingest_stats *stats, cct_err *err) {
  int rc = w->err.code;
  if (!rc && (!w->root_done || w->depth)) rc = cct_err_set(&w->err, CCT_ECORRUPT, "the context tree is incomplete");
  if (!rc) rc = queue_finish_tree(w);
  if (!rc && w->traces) {
    cct_trace_sink sink = {w, trace_chunk, trace_lane, trace_run, trace_message};
    rc = cct_traces_store(w->traces, &sink, &w->err);
  }
  rc = sql_thread_stop(w);
  trace(w, "profiles");
  double seconds = elapsed(w);
  if (!rc) {
    sqlite3_stmt *st = NULL;
    rc = cct_schema_prepare_named(w->db, cct_sql_ingest, "finish_run", &st, &w->err);
    row *r = rc ? NULL : row_begin(w, st, "run");
    if (r) {
      row_int(r, 1, w->run);
      row_int(r, 2, w->next_pre);
      row_int(r, 3, w->nprofiles);
      row_int(r, 4, w->elided);
      row_double(r, 5, seconds);
      row_int(r, 6, w->pre_base);
      row_opt(r, 7, w->primary + 1, w->primary >= 0);
      rc = row_end(w);
    } else if (!rc) {
      rc = oom(w);
    }
    sqlite3_finalize(st);
  }
  /* Every write happens before COMMIT (ANALYZE too): once an append has
   * committed, nothing that can fail is left (a disk-full error after COMMIT
   * would report a failure for a run that is in the archive). */
  if (!rc && cct_schema_run_named(w->db, cct_sql_ingest, "analyze", 0, NULL)) rc = sql_fail(w, "statistics");
  if (!rc && cct_schema_run_named(w->db, cct_sql_ingest, "commit", 0, NULL)) rc = sql_fail(w, "commit");
  trace(w, "commit and analyze");
  if (!rc && w->tmp_path && cct_schema_run_named(w->db, cct_sql_ingest, "wal", 0, NULL)) rc = sql_fail(w, "journal");
  if (!rc && w->progress) fputs("\r\033[K", stderr);
  if (!rc && stats) {
    stats->run = (int)w->run;
    stats->format = w->format;
    stats->contexts = w->next_pre;
    memcpy(stats->by_kind, w->by_kind, sizeof stats->by_kind);
    stats->metrics = w->nmetrics;
    stats->profiles = w->nprofiles;
    stats->elided = w->elided;
    cct_traces_counts(w->traces, &stats->trace_records, &stats->trace_strays);
    stats->seconds = seconds;
    stats->warning[0] = 0;
  }
  if (!rc && w->tmp_path) {
    sqlite3_stmt *s;
    while ((s = sqlite3_next_stmt(w->db, NULL))) sqlite3_finalize(s);
    if (sqlite3_close(w->db) != SQLITE_OK) rc = cct_err_set(&w->err, CCT_EIO, "cannot close '%s'", w->tmp_path);
    w->db = NULL;
    if (!rc) rc = cct_tmp_publish(w->tmp_path, w->tmp_fd, w->out_path, stats ? stats->warning : NULL,
                                  stats ? sizeof stats->warning : 0, &w->err);
    if (!rc) {
      free(w->tmp_path);
      w->tmp_path = NULL;
    }
  }
  if (rc) cct_err_set(err, rc, "%s", w->err.msg);
  cct_writer_abort(w);
  return rc;
}

void cct_writer_abort(cct_writer *w) {
  if (!w) return;
  sql_thread_stop(w);
  free(w->cur); /* a chunk used for direct execution: no queued rows */
  free(w->spare);
  pthread_cond_destroy(&w->not_empty);
  pthread_cond_destroy(&w->not_full);
  pthread_mutex_destroy(&w->mu);
  if (w->db) {
    sqlite3_stmt *s;
    while ((s = sqlite3_next_stmt(w->db, NULL))) sqlite3_finalize(s);
    if (!sqlite3_get_autocommit(w->db)) cct_schema_run_named(w->db, cct_sql_ingest, "rollback", 0, NULL);
    sqlite3_close(w->db);
  }
  if (w->tmp_path) {
    unlink(w->tmp_path);
    char side[4200];
    snprintf(side, sizeof side, "%s-wal", w->tmp_path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", w->tmp_path);
    unlink(side);
  }
  if (w->tmp_fd >= 0) close(w->tmp_fd); /* after sqlite3_close: closing drops this process's locks on the file */
  for (int i = 0; i < w->stack_cap; i++) {
    free(w->stack[i].vals);
    free(w->stack[i].set);
  }
  for (int64_t i = 1; i <= w->nmodules && w->module_path; i++) free(w->module_path[i]);
  free(w->module_path);
  for (int64_t i = 1; i <= w->nfiles && w->file_path; i++) free(w->file_path[i]);
  free(w->file_path);
  for (int64_t i = 1; i <= w->nfunctions && w->fn_name; i++) free(w->fn_name[i]);
  free(w->fn_name);
  free(w->fn_line);
  free(w->stack);
  free(w->fn_file);
  free(w->fn_module);
  free(w->active);
  free(w->open_at);
  free(w->scope_incl);
  free(w->scope_excl);
  free(w->scope_key);
  free(w->by_fn);
  free(w->by_line);
  cct_idmap_release(&w->modules);
  cct_idmap_release(&w->files);
  cct_idmap_release(&w->functions);
  cct_idmap_release(&w->synth);
  cct_idmap_release(&w->identities);
  cct_idset_release(&w->contexts);
  cct_idmap_release(&w->scopes);
  cct_traces_free(w->traces);
  free(w->gather);
  free(w->tmp_path);
  free(w->src_root);
  free(w->out_path);
  free(w->db_dir);
  free(w);
}
