/* cct.h: what every cctq library shares: version, error codes and the error
 * record.  Library functions never print and never exit; they return one of
 * the codes below and, when given a cct_err, leave a one-line message in it
 * (lowercase, no trailing period, naming the file or word at fault). */
#ifndef CCT_H
#define CCT_H

#include <stddef.h>

#define CCT_VERSION "0.1.0"
#define CCT_APPLICATION_ID 0x43435451 /* 'CCTQ': PRAGMA application_id of an archive */
#define CCT_SCHEMA_VERSION 5          /* PRAGMA user_version written by this build (2: one function row per identity; 3: context_by_function/_line tables; 4: tree pointers as pre, value keyed by rowid, scope_total.contexts; 5: tree_image) */

/* Error codes, grouped by tens; values are stable. */
enum {
  CCT_OK = 0,
  CCT_EIO = 10,       /* a file could not be opened, read or written */
  CCT_ECORRUPT = 20,  /* input truncated, malformed or inconsistent */
  CCT_EFORMAT = 21,   /* input of a format or version this build does not read */
  CCT_ESCHEMA = 30,   /* not a cctq archive, or a schema version this build cannot use */
  CCT_EEXISTS = 31,   /* the run is already in the archive */
  CCT_EUSAGE = 40,    /* bad argument or command */
  CCT_ENOTFOUND = 41, /* a name, run or item matched nothing */
  CCT_ESQL = 50,      /* SQLite reported an error */
  CCT_ENOMEM = 60     /* out of memory */
};

/* Filters (SPEC section 5): how a filter step transforms the calling-context tree. */
enum {
  CCT_FILTER_KEEP = 0,     /* only the paths through the item's outermost occurrences */
  CCT_FILTER_DROP = 1,     /* the item's subtrees removed */
  CCT_FILTER_HIDE = 2,     /* the item's contexts removed, children moved up, own cost to the parent */
  CCT_FILTER_PRUNE = 3,    /* the item's callees removed, their cost the item's own */
  CCT_FILTER_RECURSION = 4 /* a function's frames inside a frame of the same function merged into it */
};

/* An error record: code plus message.  Initialize with CCT_ERR_INIT. */
typedef struct cct_err {
  int code;       /* CCT_OK or an error code above */
  char msg[1024]; /* message for the user, "" when code == CCT_OK */
} cct_err;
#define CCT_ERR_INIT {0, ""}

/* Records an error in err (if not NULL) unless one is already there, so the
 * first, most precise message wins.  Returns code. */
int cct_err_set(cct_err *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Returns the generic text of an error code ("input is corrupt", ...). */
const char *cct_errstr(int code);

#endif
