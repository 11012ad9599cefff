/* ingest_int.h: private interface between the format readers (classic.c,
 * v4.c) and the archive writer (writer.c).  A reader declares modules, files,
 * functions and metrics, then walks the tree in pre-order calling
 * cct_writer_enter / cct_writer_value / cct_writer_exit, then streams the
 * profiles one at a time.  The writer owns all numbering (pre/last, frames,
 * levels), the static-scope totals and the SQLite statements.
 *
 * Ids passed by readers are the database's own: the writer maps module, file
 * and function ids to dense archive ids, and keeps context ids as given. */
#ifndef CCT_INGEST_INT_H
#define CCT_INGEST_INT_H

#include "cct.h"
#include "cct_ingest.h"
#include <stdint.h>
#include <stdio.h>

#include "cct_kinds.h" /* CCT_KIND_*, CCT_REL_*, CCT_INCLUSIVE/EXCLUSIVE/EXCLUSIVE_LEX */

typedef struct cct_writer cct_writer;

#define CCT_NONE INT64_MIN /* "no such reference" for module/file/function/line ids */

/* One node of the tree, as a reader describes it on entry. */
typedef struct cct_context {
  int64_t id;       /* database's own context id (unique within the run) */
  int kind;         /* CCT_KIND_* */
  int relation;     /* CCT_REL_* to the parent */
  int64_t function; /* reader's function id for function contexts, else CCT_NONE */
  int64_t file;     /* reader's file id, CCT_NONE when unknown */
  int64_t line;     /* source line (loop header), CCT_NONE when unknown */
  int64_t module;   /* reader's module id for instruction contexts, else CCT_NONE */
  int64_t offset;   /* offset in module for instruction contexts */
  int callsite;     /* 1: a line context whose children are calls (classic C) */
  int64_t trace_id; /* the id trace records name it by (classic S@it; -1: none), 0: its id */
} cct_context;

/* Identity of one profile (thread, rank, GPU stream); -1 = not applicable. */
typedef struct cct_profile_id {
  int64_t node, rank, thread, core, gpucontext, gpustream;
  const char *source; /* file name or "profile.db#N" */
} cct_profile_id;

/* Starts a run in the archive at out_path (see cct_ingest_options).  format is
 * "classic", "classic+mdb", "prof2" or "v4"; digest identifies the input's content; input_bytes (the
 * size of the main input files) picks the page size of a new archive.
 * Returns CCT_OK with *pw set, or an error (CCT_EEXISTS for a known digest). */
int cct_writer_open(const char *out_path, const char *db_dir, const char *format, const char *title,
                    const char *digest, long long input_bytes, int replace, cct_writer **pw, cct_err *err);

/* Declarations, before the tree.  Ids are the reader's; each may be declared
 * once.  src_rel (may be NULL) is where the database says a copy of the file's
 * text is, relative to its directory; the writer stores that copy
 * (zstd-compressed) only when it is a regular file inside DB_DIR/src, named
 * without '..' and reached through no symlink leaving DB_DIR/src (one rule
 * for every format).  Return CCT_OK or an error. */
int cct_writer_module(cct_writer *w, int64_t id, const char *path);
int cct_writer_file(cct_writer *w, int64_t id, const char *path, const char *src_rel);
int cct_writer_function(cct_writer *w, int64_t id, const char *name, int64_t module, int64_t file, int64_t line);
/* cct_writer_file with the text's copy given as a zstd frame z (zn bytes) of
 * size bytes of text, as an archive stores it (z NULL: no copy). */
int cct_writer_file_copy(cct_writer *w, int64_t id, const char *path, long long size, const void *z, size_t zn);

/* Declares a metric column: base name, statistic ('sum', 'mean', ...) and
 * description (may be NULL); has_lex says the database gives the lex_aware
 * exclusive.  Returns the writer's metric index (0, 1, ...) used below, or a
 * negative value with err set. */
int cct_writer_metric(cct_writer *w, const char *name, const char *stat, const char *description, int has_lex,
                      cct_err *err);

/* Enters a context (pre-order); the first one entered is the root.
 * Returns CCT_OK, or CCT_ECORRUPT for a duplicate id or unknown reference. */
int cct_writer_enter(cct_writer *w, const cct_context *c);

/* Sets one value (CCT_INCLUSIVE, CCT_EXCLUSIVE or CCT_EXCLUSIVE_LEX) of metric
 * index m for the innermost open context.  An EXCLUSIVE never set defaults to
 * EXCLUSIVE_LEX and vice versa.  Returns CCT_OK or CCT_EUSAGE. */
int cct_writer_value(cct_writer *w, int m, int which, double v);

/* Leaves the innermost open context.  Returns CCT_OK or an error. */
int cct_writer_exit(cct_writer *w);

/* Returns 1 when context id has been entered, else 0 (for profile values). */
int cct_writer_has_context(cct_writer *w, int64_t id);

/* Counts context ids that have values but are not in the tree (v4). */
void cct_writer_note_elided(cct_writer *w, long long n);

/* Adds one profile and its values for metric index m: n contexts (ascending
 * ids, each one in the tree) with inclusive and exclusive values.  Call
 * cct_writer_profile once per profile, then cct_writer_profile_values once per
 * metric.  Returns CCT_OK or an error. */
int cct_writer_profile(cct_writer *w, const cct_profile_id *id);
int cct_writer_profile_values(cct_writer *w, int m, size_t n, const uint32_t *ctx, const double *incl,
                              const double *excl);

/* Traces (trace.h).  cct_writer_traces hands the writer the scanned traces
 * (NULL: none) before the tree; it owns them from then on: it adds the metric
 * 'trace (sec)' (each context's traced time as its point value, inclusive and
 * exclusive scopes propagated as hpcprof does, formats.md section 3.4), binds
 * profiles to their traces and stores the records at commit (trace.sql's
 * tables, through cct_traces_store's sink). */
typedef struct cct_traces cct_traces;
void cct_writer_traces(cct_writer *w, cct_traces *t);

/* Progress: bytes of input consumed so far (for the progress line). */
void cct_writer_progress(cct_writer *w, long long bytes_done, long long bytes_total);

/* Finishes the run: static-scope totals, indexes, commit, rename.
 * Fills stats (may be NULL).  Frees w whatever happens.  Returns CCT_OK or an
 * error: CCT_EEXISTS only when a new archive's output appeared meanwhile
 * (cct_tmp_publish; nothing is written, the run can be appended to it). */
int cct_writer_commit(cct_writer *w, cct_ingest_stats *stats, cct_err *err);

/* Abandons the run: rolls back, removes a temporary file, frees w.  NULL is a no-op. */
void cct_writer_abort(cct_writer *w);

/* The error recorded by the writer, for readers that got a non-zero code. */
cct_err *cct_writer_err(cct_writer *w);

/* Readers: each returns CCT_OK or an error with err set, naming the file. */
/* Builds the tree image of run (nodes contexts) from its context rows in db and
 * stores it in tree_image (ingest/tree_image.c).  Returns CCT_OK or an error. */
int cct_tree_image_write(sqlite3 *db, int64_t run, int64_t nodes, cct_err *err);

int cct_read_classic(const char *db_dir, cct_writer *w, cct_err *err);
int cct_read_v4(const char *db_dir, cct_writer *w, cct_err *err);
int cct_read_prof2(const char *db_dir, cct_writer *w, cct_err *err);

/* Opens path for reading when it is a regular file (never waits on a FIFO,
 * never reads a device).  Returns the descriptor (or stream), or -1 (NULL)
 * with err set to one line naming the file and the problem. */
int cct_open_regular(const char *path, cct_err *err);
FILE *cct_fopen_regular(const char *path, cct_err *err);

/* Removes the temporaries beside out_path that ingests killed before their
 * rename left (OUT.tmpPID and its -wal, -shm, -journal: process PID gone and
 * the file's lock free); the temporary of a running ingest is kept. */
void cct_tmp_remove_stale(const char *out_path);

/* Creates the temporary file a new archive OUT is built in, OUT.tmpPID,
 * locked for the life of this process.  Sets *tmp
 * (malloc'd path) and *fd (close it after the archive's SQLite connection).
 * Returns CCT_OK or CCT_EIO/CCT_ENOMEM with err naming OUT. */
int cct_tmp_create(const char *out_path, char **tmp, int *fd, cct_err *err);

/* Publishes the finished temporary tmp (descriptor fd, its SQLite connection
 * closed) as out_path: fsync, rename without replacing an entry that appeared
 * at out_path meanwhile (an empty regular file excepted), fsync of the
 * directory.  Returns CCT_OK once renamed (a failed directory sync then only
 * fills warning, when not NULL); CCT_EEXISTS when out_path appeared (another
 * ingest published its archive first: append to it instead), or CCT_EIO, with
 * err set and the temporary still in place. */
int cct_tmp_publish(const char *tmp, int fd, const char *out_path, char *warning, size_t wn, cct_err *err);

/* Mixes n bytes at p into the content digest *h that identifies a database
 * (cctingest refuses a database whose digest an archive already has). */
void cct_digest_update(uint64_t *h, const void *p, size_t n);
/* Mixes a whole file into *h and adds its size to *bytes.  Returns CCT_OK, or
 * CCT_EIO with err naming the file. */
int cct_digest_file(const char *path, uint64_t *h, long long *bytes, cct_err *err);

#endif
