/* cct_ingest.h: turning an HPCToolkit database directory into a run of a cctq
 * archive (the cct_ingest library).  The format (classic experiment.xml or v4
 * meta.db/profile.db) is detected from the files.  A new archive is written to
 * a temporary file beside the output and renamed on success; a run appended to
 * an existing archive is one transaction.  Either way a failure leaves nothing
 * behind and an existing archive unchanged. */
#ifndef CCT_INGEST_H
#define CCT_INGEST_H

#include "cct.h"

typedef struct cct_ingest_options {
  const char *db_dir;   /* HPCToolkit database directory */
  const char *out_path; /* archive to create or append to */
  const char *title;    /* run title, NULL for the database's own */
  int replace;          /* 1: replace a run with the same content instead of refusing */
  int progress;         /* 1: print a progress line on stderr while working */
} cct_ingest_options;

/* Summary of a finished ingest, for the final line cctingest prints. */
typedef struct cct_ingest_stats {
  int run;                  /* run number in the archive */
  const char *format;       /* "classic" or "v4" (static string) */
  long long contexts;       /* context rows, root included */
  long long by_kind[5];     /* contexts by kind: root, function, loop, line, instruction */
  long long metrics;        /* metric columns (base metric x statistic) */
  long long profiles;       /* per-thread/rank/stream profiles */
  long long elided;         /* v4 context ids with values but not in meta.db */
  long long trace_records;  /* trace records stored (0: no traces) */
  long long trace_strays;   /* of them, records naming a context not in the tree (stored as idle) */
  double seconds;           /* wall time */
  char warning[512];        /* "" or a problem after the run was stored (e.g. its directory not synced) */
} cct_ingest_stats;

/* Ingests opt->db_dir into opt->out_path.
 * Returns CCT_OK and fills *stats (may be NULL); or CCT_EIO, CCT_ECORRUPT,
 * CCT_EFORMAT, CCT_ESCHEMA, CCT_EEXISTS, CCT_ESQL, CCT_ENOMEM with err set to a
 * one-line message naming the file at fault. */
int cct_ingest(const cct_ingest_options *opt, cct_ingest_stats *stats, cct_err *err);

/* One run of an archive, as listed by cct_archive_list. */
typedef struct cct_run_info {
  int run;                 /* run number */
  const char *title, *ingested_at, *format, *path; /* as stored */
  long long contexts, profiles, metrics; /* sizes */
  long long elided;        /* v4: context ids with values that meta.db does not have */
} cct_run_info;

/* Calls fn for each run of the archive at path, in run order (strings valid
 * during the call only).  Returns CCT_OK, or CCT_EIO / CCT_ESCHEMA / CCT_ESQL. */
int cct_archive_list(const char *path, void (*fn)(void *arg, const cct_run_info *run), void *arg, cct_err *err);

/* Removes run number run from the archive at path, in one transaction.
 * Returns CCT_OK, CCT_ENOTFOUND when there is no such run, or an error. */
int cct_archive_remove(const char *path, int run, cct_err *err);

/* Adds the tree image of every run (schema/base.sql tree_image) to the archive at
 * path, of schema version 4 or 5 (images already there are written again), and
 * makes it version 5, in one transaction.  Returns CCT_OK or an error. */
int cct_archive_reindex(const char *path, cct_err *err);

typedef struct sqlite3 sqlite3;

#endif
