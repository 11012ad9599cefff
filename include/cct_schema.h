/* cct_schema.h: opening, creating and checking cctq archives, and the SQL text
 * embedded from schema/.  An archive is a SQLite file with PRAGMA
 * application_id = CCT_APPLICATION_ID and user_version = CCT_SCHEMA_VERSION.
 * The sqlite3 handle returned belongs to the caller (close with sqlite3_close). */
#ifndef CCT_SCHEMA_H
#define CCT_SCHEMA_H

#include "cct.h"
#include <sqlite3.h>

/* SQL text of the schema/ files (NUL-terminated, embedded at build time): the archive's
 * tables, indexes and public views, and the statements of the writer (ingest.sql), of the
 * query library (query.sql) and of its listings on the public views (listing.sql), and the
 * trace tables (trace.sql) and their reads (trace_query.sql). */
extern const char cct_sql_base[], cct_sql_indexes[], cct_sql_views[], cct_sql_ingest[],
    cct_sql_query[], cct_sql_listing[], cct_sql_trace[], cct_sql_trace_query[];

enum {
  CCT_OPEN_READONLY = 0, /* open an existing archive for queries */
  CCT_OPEN_WRITE = 1,    /* open an existing archive, or create it, for ingest */
  CCT_OPEN_LARGE = 2,    /* with CCT_OPEN_WRITE: a new archive gets 64 KiB pages (large inputs) */
  CCT_OPEN_IMMUTABLE = 4, /* with CCT_OPEN_READONLY: a file nobody changes (no locks, no WAL index) */
  CCT_OPEN_REINDEX = 8    /* with CCT_OPEN_WRITE: also an archive of schema version 4 (cctingest --reindex) */
};

/* Opens the archive at path.  CCT_OPEN_READONLY requires an existing archive of a
 * schema version this build reads; CCT_OPEN_WRITE also accepts a missing or
 * empty file, which it initializes with base.sql and views.sql (no indexes: call
 * cct_schema_create_indexes after loading).  The file is put in WAL mode so
 * readers can go on while a run is appended.  CCT_OPEN_READONLY also opens an
 * archive in a read-only directory (where the WAL index cannot be created) as
 * an immutable file.
 * Returns CCT_OK with *pdb set, or CCT_EIO / CCT_ESCHEMA with *pdb NULL. */
int cct_schema_open(const char *path, int flags, sqlite3 **pdb, cct_err *err);

/* Checks that the main database of an open connection (the caller's, e.g. a
 * SQLite host's) is a cctq archive of a schema version this build reads;
 * name labels it in messages.  Turns on SQLite's cell size checks (query.sql
 * @cells) and changes nothing else.  Returns CCT_OK, CCT_ESCHEMA or CCT_ESQL. */
int cct_schema_check(sqlite3 *db, const char *name, cct_err *err);

/* Creates the secondary indexes of indexes.sql if missing.  Returns CCT_OK or CCT_ESQL. */
int cct_schema_create_indexes(sqlite3 *db, cct_err *err);

/* Runs a script of several statements.  Returns CCT_OK or CCT_ESQL with the
 * SQLite message in err. */
int cct_schema_exec(sqlite3 *db, const char *sql, cct_err *err);

/* Prepares one statement, reporting failures through err with the text of the
 * statement's first line.  Returns CCT_OK or CCT_ESQL (*pst NULL). */
int cct_schema_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **pst, cct_err *err);

/* Named statements: in a script, the text from a line '-- @NAME' to the next
 * '-- @' line (or the end) is the block NAME.  Returns a pointer to the block
 * and sets *len, or NULL when the script has no such block. */
const char *cct_schema_named(const char *script, const char *name, int *len);

/* Prepares the first statement of block NAME of script.
 * Returns CCT_OK, or CCT_ESQL (*pst NULL) naming the block. */
int cct_schema_prepare_named(sqlite3 *db, const char *script, const char *name, sqlite3_stmt **pst, cct_err *err);

/* What cct_step returns besides an error code (CCT_STEP_DONE is CCT_OK). */
enum { CCT_STEP_DONE = 0, CCT_STEP_ROW = 1 };

/* Steps st once, telling a row, the end and an error apart.  Returns
 * CCT_STEP_ROW when a row is ready, CCT_STEP_DONE when the statement has run to
 * its end, else an error code with one line in err naming the database file and
 * SQLite's reason ("'a.sqlite': database disk image is malformed"): CCT_ECORRUPT
 * for a damaged file (SQLITE_CORRUPT, SQLITE_NOTADB), CCT_ENOMEM, CCT_EIO, or
 * CCT_ESQL for anything else.  Every step loop goes through it, so that an
 * error is never taken for the end of the data:
 *   while ((rc = cct_step(st, err)) == CCT_STEP_ROW) { ... }
 *   if (rc) ... the error ... */
int cct_step(sqlite3_stmt *st, cct_err *err);

/* Runs every statement of block NAME with ?1 bound to arg.  Returns CCT_OK or CCT_ESQL. */
int cct_schema_run_named(sqlite3 *db, const char *script, const char *name, long long arg, cct_err *err);

#endif
