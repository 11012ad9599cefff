/* schema.c: opens, creates and verifies cctq archives (the cct_schema library).
 * The SQL itself lives in schema/ as .sql files, embedded at build time. */
#include "cct_schema.h"
#include "cct_sqlite.h"
#include "cct_util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int cct_err_set(cct_err *err, int code, const char *fmt, ...) {
  if (err && err->code == CCT_OK) {
    va_list ap;
    va_start(ap, fmt);
    err->code = code;
    cct_c_numeric loc = cct_c_numeric_begin(); /* "1.5", whatever the host's LC_NUMERIC */
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    cct_c_numeric_end(loc);
    va_end(ap);
  }
  return code;
}

const char *cct_errstr(int code) {
  switch (code) {
  case CCT_OK: return "ok";
  case CCT_EIO: return "input/output error";
  case CCT_ECORRUPT: return "input is corrupt";
  case CCT_EFORMAT: return "unsupported input format";
  case CCT_ESCHEMA: return "not a usable cctq archive";
  case CCT_EEXISTS: return "run already in archive";
  case CCT_EUSAGE: return "usage error";
  case CCT_ENOTFOUND: return "not found";
  case CCT_ESQL: return "SQL error";
  case CCT_ENOMEM: return "out of memory";
  default: return "unknown error";
  }
}

int cct_schema_exec(sqlite3 *db, const char *sql, cct_err *err) {
  char *msg = NULL;
  if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
    cct_err_set(err, CCT_ESQL, "%s", msg ? msg : sqlite3_errmsg(db));
    sqlite3_free(msg);
    return CCT_ESQL;
  }
  return CCT_OK;
}

int cct_schema_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **pst, cct_err *err) {
  if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, pst, NULL) == SQLITE_OK)
    return CCT_OK;
  const char *eol = strchr(sql, '\n');
  int n = eol ? (int)(eol - sql) : (int)strlen(sql);
  *pst = NULL;
  return cct_err_set(err, CCT_ESQL, "%s in '%.*s'", sqlite3_errmsg(db), n > 80 ? 80 : n, sql);
}

/* Returns the integer result of a one-value PRAGMA, or -1. */
static long pragma_int(sqlite3 *db, const char *pragma) {
  sqlite3_stmt *st = NULL;
  long v = -1;
  if (sqlite3_prepare_v2(db, pragma, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return v;
}

/* Opens path with SQLite (uri: path is a file: URI).  Returns the SQLite code; *pdb is set either way. */
static int open_db(const char *path, int oflags, sqlite3 **pdb) {
  *pdb = NULL;
  int rc = sqlite3_open_v2(path, pdb, oflags | SQLITE_OPEN_NOMUTEX, NULL); /* one thread at a time per connection */
  if (*pdb) {
    sqlite3_busy_timeout(*pdb, 5000);
    sqlite3_extended_result_codes(*pdb, 1);
  }
  return rc;
}

/* A read-only archive in a directory where the WAL index (-shm) cannot be
 * created: reopens it as an immutable file (no locks, no WAL), which is what
 * it is for everyone there.  Returns the SQLite code. */
static int open_immutable(const char *path, sqlite3 **pdb) {
  char uri[4200] = "file:";
  size_t n = 5;
  for (const char *c = path; *c && n + 16 < sizeof uri; c++) {
    if (*c == '%' || *c == '?' || *c == '#') n += (size_t)snprintf(uri + n, sizeof uri - n, "%%%02X", (unsigned char)*c);
    else uri[n++] = *c;
  }
  snprintf(uri + n, sizeof uri - n, "?immutable=1");
  return open_db(uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, pdb);
}

/* The verdict on an archive's PRAGMA application_id and user_version: CCT_OK or CCT_ESCHEMA. */
static int check_ids(const char *path, long app, long ver, cct_err *err) {
  if (app != CCT_APPLICATION_ID)
    return cct_err_set(err, CCT_ESCHEMA, "'%s' is not a cctq archive (application_id %ld); make one with cctingest", path, app);
  if (ver > CCT_SCHEMA_VERSION)
    return cct_err_set(err, CCT_ESCHEMA, "'%s' has schema version %ld, this build reads up to %d; upgrade cctq", path, ver,
                       CCT_SCHEMA_VERSION);
  if (ver == 4) /* version 5 only added the tree images */
    return cct_err_set(err, CCT_ESCHEMA, "'%s' has schema version 4 of an older cctq (this build reads %d): add the tree images with 'cctingest --reindex %s', or re-ingest the database with cctingest into a new archive",
                       path, CCT_SCHEMA_VERSION, path);
  if (ver < CCT_SCHEMA_VERSION)
    return cct_err_set(err, CCT_ESCHEMA, "'%s' has schema version %ld of an older cctq (this build reads %d): re-ingest the database with cctingest into a new archive",
                       path, ver, CCT_SCHEMA_VERSION);
  return CCT_OK;
}

int cct_schema_check(sqlite3 *db, const char *name, cct_err *err) {
  long app = pragma_int(db, "PRAGMA main.application_id");
  if (app < 0) return cct_err_set(err, CCT_ESCHEMA, "'%s' is not a cctq archive: %s", name, sqlite3_errmsg(db));
  int rc = check_ids(name, app, pragma_int(db, "PRAGMA main.user_version"), err);
  return rc ? rc : cct_schema_run_named(db, cct_sql_query, "cells", 0, err);
}

int cct_schema_open(const char *path, int flags, sqlite3 **pdb, cct_err *err) {
  sqlite3 *db = NULL;
  /* A reader opens the file for writing too where it may (and refuses every write
   * with query_only below): the last connection to close then removes the WAL files,
   * which a read-only connection leaves beside the archive.  A file or a file system
   * it may not write is opened read-only by SQLite itself. */
  int oflags = flags & CCT_OPEN_WRITE ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READWRITE;
  *pdb = NULL;
  if ((flags & CCT_OPEN_IMMUTABLE ? open_immutable(path, &db) : open_db(path, oflags, &db)) != SQLITE_OK) {
    int unreadable = !(flags & CCT_OPEN_WRITE) && access(path, R_OK) != 0;
    cct_err_set(err, CCT_EIO, "cannot open '%s': %s", path,
                unreadable ? strerror(errno) : db ? sqlite3_errmsg(db) : "out of memory");
    sqlite3_close(db);
    return CCT_EIO;
  }
  long app = pragma_int(db, "PRAGMA application_id");
  int code = sqlite3_errcode(db) & 0xff;
  if (app < 0 && !(flags & CCT_OPEN_WRITE) && (code == SQLITE_READONLY || code == SQLITE_CANTOPEN)) {
    sqlite3_close(db);
    if (open_immutable(path, &db) == SQLITE_OK) app = pragma_int(db, "PRAGMA application_id");
    code = sqlite3_errcode(db) & 0xff;
  }
  long ver = pragma_int(db, "PRAGMA user_version");
  long ntables = pragma_int(db, "SELECT count(*) FROM sqlite_schema");
  int rc = CCT_OK;
  if (app < 0 && (code == SQLITE_READONLY || code == SQLITE_CANTOPEN || code == SQLITE_PERM || code == SQLITE_IOERR ||
                  code == SQLITE_BUSY || code == SQLITE_NOMEM)) {
    rc = cct_err_set(err, CCT_EIO, "cannot read '%s': %s", path, sqlite3_errmsg(db));
  } else if (app < 0 || ntables < 0) {
    rc = cct_err_set(err, CCT_ESCHEMA, "'%s' is not a cctq archive: %s", path, sqlite3_errmsg(db));
  } else if (app == 0 && ntables == 0 && (flags & CCT_OPEN_WRITE)) {
    char init[160];
    snprintf(init, sizeof init, "PRAGMA page_size=%d; PRAGMA journal_mode=WAL; PRAGMA application_id=%d; PRAGMA user_version=%d;",
             flags & CCT_OPEN_LARGE ? 65536 : 4096, CCT_APPLICATION_ID, CCT_SCHEMA_VERSION);
    rc = cct_schema_exec(db, init, err);
    if (!rc) rc = cct_schema_exec(db, cct_sql_base, err);
    if (!rc) rc = cct_schema_exec(db, cct_sql_views, err);
    if (!rc) rc = cct_schema_exec(db, cct_sql_trace, err);
  } else {
    rc = check_ids(path, app, (flags & CCT_OPEN_REINDEX) && ver == 4 ? CCT_SCHEMA_VERSION : ver, err);
    if (!rc && (flags & CCT_OPEN_WRITE)) rc = cct_schema_exec(db, cct_sql_trace, err); /* archives made before traces */
  }
  if (!rc) rc = cct_schema_run_named(db, cct_sql_query, "cells", 0, err);
  if (!rc && !(flags & CCT_OPEN_WRITE)) rc = cct_schema_exec(db, "PRAGMA query_only = 1", err);
  if (rc) {
    sqlite3_close(db);
    return rc;
  }
  *pdb = db;
  return CCT_OK;
}

int cct_schema_create_indexes(sqlite3 *db, cct_err *err) { return cct_schema_exec(db, cct_sql_indexes, err); }

const char *cct_schema_named(const char *script, const char *name, int *len) {
  size_t n = strlen(name);
  for (const char *p = strstr(script, "-- @"); p; p = strstr(p + 4, "-- @")) {
    if (strncmp(p + 4, name, n) || (p[4 + n] != ' ' && p[4 + n] != '\n')) continue;
    const char *body = strchr(p, '\n');
    if (!body) return NULL;
    const char *end = strstr(body, "\n-- @");
    *len = end ? (int)(end - body) : (int)strlen(body);
    return body;
  }
  return NULL;
}

int cct_schema_prepare_named(sqlite3 *db, const char *script, const char *name, sqlite3_stmt **pst, cct_err *err) {
  int len = 0;
  const char *sql = cct_schema_named(script, name, &len);
  *pst = NULL;
  if (!sql) return cct_err_set(err, CCT_ESQL, "no statement named '%s'", name);
  if (sqlite3_prepare_v3(db, sql, len, SQLITE_PREPARE_PERSISTENT, pst, NULL) != SQLITE_OK)
    return cct_err_set(err, CCT_ESQL, "%s in statement '%s'", sqlite3_errmsg(db), name);
  return CCT_OK;
}

int cct_step(sqlite3_stmt *st, cct_err *err) {
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) return CCT_STEP_ROW;
  if (rc == SQLITE_DONE) return CCT_STEP_DONE;
  sqlite3 *db = sqlite3_db_handle(st);
  const char *file = sqlite3_db_filename(db, "main");
  const char *why = sqlite3_errmsg(db);
  int code = rc & 0xff;
  int cct = code == SQLITE_CORRUPT || code == SQLITE_NOTADB ? CCT_ECORRUPT
            : code == SQLITE_NOMEM                          ? CCT_ENOMEM
            : code == SQLITE_IOERR                          ? CCT_EIO
                                                            : CCT_ESQL;
  if (cct == CCT_ENOMEM) cct_err_set(err, cct, "out of memory");
  else cct_err_set(err, cct, "'%s': %s", file && *file ? file : "the archive", why ? why : sqlite3_errstr(rc));
  sqlite3_reset(st); /* after the message is copied: resetting may rewrite it */
  return cct;
}

int cct_schema_run_named(sqlite3 *db, const char *script, const char *name, long long arg, cct_err *err) {
  int len = 0;
  const char *sql = cct_schema_named(script, name, &len);
  if (!sql) return cct_err_set(err, CCT_ESQL, "no statement named '%s'", name);
  const char *end = sql + len;
  while (sql < end) {
    sqlite3_stmt *st = NULL;
    const char *tail = NULL;
    if (sqlite3_prepare_v2(db, sql, (int)(end - sql), &st, &tail) != SQLITE_OK)
      return cct_err_set(err, CCT_ESQL, "%s in statement '%s'", sqlite3_errmsg(db), name);
    if (!st) break; /* only comments or white space left */
    if (sqlite3_bind_parameter_count(st) >= 1) sqlite3_bind_int64(st, 1, arg);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
      return cct_err_set(err, CCT_ESQL, "%s in statement '%s'", sqlite3_errmsg(db), name);
    sql = tail;
  }
  return CCT_OK;
}
