/* cct_sqlite.h: how the libraries reach SQLite (private).  Every library file
 * that calls sqlite3_* includes this header before its first call.  In the
 * normal build it is <sqlite3.h> (the calls link against libsqlite3).  When
 * the sources are compiled into the SQLite extension (CCT_SQLITE_EXTENSION,
 * see query/ext/cctq_ext.c) it is <sqlite3ext.h>, which turns every sqlite3_*
 * call into a call through the host's sqlite3_api table: the extension then
 * uses the host's SQLite, the one that owns the host's connection, and links
 * no SQLite of its own. */
#ifndef CCT_SQLITE_H
#define CCT_SQLITE_H

#ifdef CCT_SQLITE_EXTENSION
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3 /* the table, defined and set by cctq_ext.c */
#else
#include <sqlite3.h>
#endif

#endif
