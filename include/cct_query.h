/* cct_query.h: context-centric views of a cctq archive (the cct_query
 * library); the library never prints.
 *
 * Two layers.  The view core: cct_view_compute computes the view a
 * cct_view_spec describes (run, center, metric, granularity, threshold, depth,
 * ...) from the archive, in its own read transaction, and changes nothing; a
 * cct_center is a resolved center (items and their occurrences in one run), an
 * immutable value made with cct_center_edit / cct_center_rerun.  Several views
 * of one archive, with different settings, can live side by side.
 * The session on top: a cct_query also holds current settings (run, center,
 * metric, granularity, threshold, filters), which cct_view_spec_init puts in
 * a spec, and the rows of the view its client showed (cct_query_remember), so
 * that '@N' in cct_center_apply and cct_query_filter_add names a row the
 * user saw.
 *
 * Ownership: every cct_view returned must be freed with cct_view_free, every
 * cct_center with cct_center_free; strings inside them belong to them.
 * Strings returned by cct_query_* getters belong to the session and stay
 * valid until the setting changes. */
#ifndef CCT_QUERY_H
#define CCT_QUERY_H

#include "cct.h"
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

typedef struct cct_query cct_query;
typedef struct cct_center cct_center;

enum { CCT_GRAN_FUNCTION = 0, CCT_GRAN_LINE = 1 };
enum { CCT_CENTER_SET = 0, CCT_CENTER_ADD = 1, CCT_CENTER_REMOVE = 2 };

/* What a row stands for. */
enum {
  CCT_ROW_ROOT = 0,        /* the program root (no center) or '<program root>' caller */
  CCT_ROW_FUNCTION = 1,    /* a function (call or inlined), or a MODULE+0xOFFSET frame */
  CCT_ROW_LOOP = 2,        /* a loop, by header file:line */
  CCT_ROW_LINE = 3,        /* a source line */
  CCT_ROW_INSTRUCTION = 4, /* a lexical instruction (module+offset) */
  CCT_ROW_CENTER = 5,      /* the top row of a centered view ('<multiple contexts>' or an item) */
  CCT_ROW_FILE = 6,        /* flat files */
  CCT_ROW_MODULE = 7       /* flat modules */
};

/* Flat view scopes. */
enum { CCT_FLAT_FUNCTIONS = 0, CCT_FLAT_LOOPS, CCT_FLAT_LINES, CCT_FLAT_FILES, CCT_FLAT_MODULES, CCT_FLAT_TREE };

/* One row of a view, in pre-order. */
typedef struct cct_row {
  int handle;          /* 1, 2, ... in pre-order; the top row of topdown/bottomup (the
                          center, or '<program>' without one) is handle 1; '@handle'
                          names the row in center items and 'source @N' */
  int depth;           /* 0 for the top row */
  int level;           /* the levels of the view's depth the row uses: its depth, less the
                          hot-path rows above it in a topdown (a hot row's level is 0); topdown
                          D holds the rows whose parent's level is below D, so for D >= 1 its
                          rows are those of level <= D of topdown D + k */
  int hot;             /* topdown with a hot path: 1 for the top row and the rows of its hot path */
  int kind;            /* CCT_ROW_* */
  const char *name;    /* label: function name, 'loop at f.c:12', 'f.c:12', ... */
  int inlined;         /* 1 for an inlined function row */
  const char *file;    /* source file path, NULL if unknown */
  long long line;      /* source line, -1 if unknown */
  const char *module;  /* load module path, NULL if unknown */
  const char *callsite; /* 'foo.c:12' call site of a function row (line granularity), NULL if none */
  int center;          /* 1 when the row is (a member of) the center */
  int parent;          /* index in cct_view.rows of the parent row, -1 for a top-level row
                          (cct_view_path gives the names from the top row down) */
  double *inclusive;   /* per view metric (see cct_view.metrics) */
  double *exclusive;   /* per view metric */
  long long occurrences; /* flat functions, loops and lines: the contexts the row adds up (a
                          function's frames, as 'center NAME' counts them); -1 elsewhere */
  /* Source view only: */
  const char *text;    /* the source line's text, NULL without a stored copy */
  int mark;            /* '>' for the center's own lines (the lines and loops inside its
                          occurrences' frames; for a loop or line center, the lines inside
                          it) and the call sites leading to it, else 0 */
  double *share;       /* with a center: per view metric, the line's inclusive cost inside
                          the center's outermost occurrences (beside the whole-program
                          'inclusive'); NaN for a call site leading into the center that
                          holds none of it (outside the center: printed '-'); NULL
                          without a center */
} cct_row;

/* A window [from, to) of a run's traces, in seconds since its first record. */
typedef struct cct_window {
  double from, to;
} cct_window;

/* A computed view. */
typedef struct cct_view {
  const char *view;        /* "topdown", "bottomup", "flat", "source" */
  int run;                 /* run the values come from */
  const char **center;     /* center items as typed; ncenter == 0 for no center */
  size_t ncenter;
  int granularity;         /* CCT_GRAN_* */
  const char **metrics;    /* metric names of the value columns ('CPUTIME (sec)'): the display
                              metric first, then the run's other 'sum' metrics, at most 4 */
  size_t nmetrics;
  size_t nshown;           /* metrics[0 .. nshown): the display metric and the spec's columns the
                              run has (what tree and table show); the rest are only_display 0's */
  double *total;           /* per metric: the program total (root inclusive) */
  double *base;            /* per metric: the base of percentages and of the threshold: the
                              program total, or with CCT_PERCENT_CENTER and a center the
                              center's inclusive value (the top row of topdown/bottomup) */
  int percent;             /* CCT_PERCENT_* that base is (PROGRAM when there is no center) */
  double hotpath;          /* topdown: the hot-path fraction it was computed with (0: none) */
  size_t zero_rows;        /* rows left out by cct_view_spec.drop_zero: every value of the display
                              metric and of the spec's columns is zero in them and their subtree
                              (the other metrics csv and json add do not count) */
  cct_row *rows;
  size_t nrows;
  const char *note;        /* a line for the user (e.g. 'no stored copy of the source'), or NULL */
  double inlined;          /* topdown/bottomup of a center of functions: the display metric's
                              exclusive cost in the frames inlined directly into the center's
                              frames, when it exceeds the top row's exclusive (the function's
                              code is mostly inlined; hpcviewer's classic exclusive counts it);
                              else 0.  The note says so too. */
  const char **filters;    /* the filters the values went through, in order, as text ('hide MPI_*'),
                              and the window last when there is one */
  size_t nfilters;
  const cct_window *window; /* the window 'trace (sec)' was restricted to, NULL: the whole run */
  void *priv;              /* library data: what each row stands for (see cct_center_edit) */
} cct_view;

/* Kinds of profiles: CPU threads (and ranks) and GPU streams (v4 GPUCONTEXT/GPUSTREAM
 * identities; classic threads numbered 500 and up), kept apart in the figures. */
enum { CCT_PROFILE_CPU = 0, CCT_PROFILE_GPU = 1 };

/* Orders of cct_stats.profiles; CCT_STATS_RANK_SUMS also adds up the
 * profiles of each rank (and kind) into one entry, in rank order, and the
 * figures are then over ranks. */
enum { CCT_STATS_BY_VALUE = 0, CCT_STATS_BY_RANK = 1, CCT_STATS_BY_THREAD = 2, CCT_STATS_RANK_SUMS = 3 };

/* The distribution of a set of profile values. */
typedef struct cct_stats_dist {
  size_t count;            /* profiles */
  double sum, min, max, mean, stddev, imbalance; /* imbalance = max / mean (0 when mean is 0) */
  size_t *histogram;       /* profiles per bin (cct_stats.bins), equal widths from min to max */
} cct_stats_dist;

/* Distribution of the center's inclusive value over profiles. */
typedef struct cct_stats {
  const char *metric;      /* metric name */
  size_t count;            /* profiles (0: the run has no per-profile data) */
  double sum, min, max, mean, stddev, imbalance; /* over all profiles, whatever their kind */
  struct cct_stats_profile {
    int profile;           /* profile id */
    int kind;              /* CCT_PROFILE_* */
    long long node, rank, thread, gpucontext, gpustream; /* -1 when not applicable */
    double value;          /* center's inclusive value in this profile */
    int nprofiles;         /* profiles added up in this entry: 1, or a rank's (CCT_STATS_RANK_SUMS;
                              profile is then its first, thread -1) */
  } *profiles;             /* all profiles, in the order asked for (by value: descending) */
  size_t bins;             /* histogram bins */
  size_t *histogram;       /* over all profiles: profiles per bin, equal widths from min to max */
  cct_stats_dist kinds[2]; /* per CCT_PROFILE_* kind (count 0 when the run has none of it) */
  double program_sum;      /* the program's inclusive added up over the profiles */
  double program_total;    /* the program's inclusive in the summary values */
  const char *note;        /* for the user: no per-profile data, or profiles covering only part
                              of the program total; NULL when the figures are whole */
} cct_stats;

/* ---- the view core ---- */

/* One filter (SPEC section 5): kind CCT_FILTER_* (cct.h) and an item in the
 * center syntax (NULL for 'recursion' of every function).  Filters apply in
 * order to the run's tree; centers are then resolved in the tree they leave. */
typedef struct cct_filter {
  int kind;
  const char *item;
} cct_filter;

/* "keep", "drop", "hide", "prune", "recursion" for CCT_FILTER_*, NULL for others;
 * cct_filter_kind is the inverse (-1 for an unknown word). */
const char *cct_filter_name(int kind);
int cct_filter_kind(const char *word);

/* The filter as typed after 'filter' ("hide MPI_*", "recursion"), malloc'd;
 * NULL when out of memory. */
char *cct_filter_text(const cct_filter *f);

/* Which view a spec asks for. */
enum {
  CCT_VIEW_NONE = -1,
  CCT_VIEW_TOPDOWN = 0,
  CCT_VIEW_BOTTOMUP = 1,
  CCT_VIEW_FLAT = 2,
  CCT_VIEW_SOURCE = 3,
  CCT_VIEW_STATS = 4 /* cct_stats_compute (not cct_view_compute) */
};

/* Everything a view depends on, as a value (zero-initialize, then set what
 * matters; cct_view_spec_init fills it from a session's settings). */
typedef struct cct_view_spec {
  int view;                 /* CCT_VIEW_* */
  int run;                  /* the run; 0: the session's current run */
  const cct_center *center; /* NULL: no center (the program root); else a center of this run */
  const char *metric;       /* display metric, exact name or unique prefix; NULL: the run's default */
  int granularity;          /* CCT_GRAN_* */
  double threshold;         /* rows below this fraction (0..1) of the percent base are hidden */
  int percent;              /* CCT_PERCENT_*: the base of percentages and of the threshold */
  int sort;                 /* CCT_SORT_*: flat rows and topdown/bottomup siblings (default inclusive) */
  int depth;                /* topdown, bottomup: levels below the top row */
  double hotpath;           /* topdown: the hot path, as hpcviewer's button finds it (the
                               heaviest child while it holds at least this fraction, 0..1, of
                               its parent's inclusive) uses no level of the depth: see
                               cct_row.level; 0: off (cct_view_spec_init: the session's, 0.5) */
  int flat_kind, flat_n;    /* flat: CCT_FLAT_*, rows at most (0 = all) */
  const char *file;         /* source: a path suffix, '@N' (a row of last), NULL: the center's file */
  const cct_view *last;     /* source: the view '@N' refers to (NULL: none) */
  const cct_filter *filters; /* applied in order to the run's tree (the center must have been
                              resolved with the same filters); nfilters 0: none */
  size_t nfilters;
  const char *const *columns; /* metrics computed right after the display metric (names as
                                 'metric' takes; names the run lacks are skipped), ncolumns of them */
  size_t ncolumns;
  int only_display;           /* 0: then the run's other 'sum' metrics, 4 metrics in all; 1: the
                                 display metric and columns only (a view reads no value its reader
                                 will not show) */
  const struct cct_window *window; /* the run's metric 'trace (sec)' over this window only (NULL: the
                                      whole run); see cct_query_set_window */
  int drop_zero;              /* topdown, bottomup, flat: 1 leaves out the rows whose display metric
                                 and columns are all zero, with their subtree, and counts them in
                                 cct_view.zero_rows (never a top row; not when those metrics' totals
                                 are all zero); 0 keeps them (what the shell shows sets 1) */
} cct_view_spec;

/* Computes the view spec describes (SPEC section 5) from the archive of q, in
 * one read transaction of its own.  Nothing in q changes (only caches): the
 * session's settings and '@N' rows are neither used nor touched, except that
 * run 0 means the session's current run.  Returns CCT_OK with *out set (free
 * with cct_view_free), or an error with *out NULL: CCT_EUSAGE (bad spec, a
 * center of another run, bottomup without a center), CCT_ENOTFOUND (no such
 * run, metric, file or row), CCT_ECORRUPT (damaged archive), CCT_ENOMEM, ... */
int cct_view_compute(cct_query *q, const cct_view_spec *spec, cct_view **out, cct_err *err);

/* The distribution of the inclusive value of spec's center over profiles
 * (spec's run, center and metric; bins histogram bins, 0 = 10 or one per
 * profile when fewer (rank sums: per rank); profiles in
 * order CCT_STATS_BY_*).  Same contract as cct_view_compute. */
int cct_stats_compute(cct_query *q, const cct_view_spec *spec, size_t bins, int order, cct_stats **out,
                      cct_err *err);

/* Fills spec with the session's settings (run, center, metric, granularity,
 * threshold, percent base, filters) for view; the other fields zero (sort by
 * inclusive value; the display metric and the run's other 'sum' metrics).  spec points into q: valid
 * until the settings change. */
void cct_view_spec_init(const cct_query *q, int view, cct_view_spec *spec);

/* A new center of run (0: the session's run): base's items (base NULL: none)
 * changed by op (CCT_CENTER_SET, _ADD, _REMOVE) with item (the syntax of
 * cct_center_apply).  '@N' names row N of last (a view of that run; NULL:
 * none).  base is not changed.  *out is NULL with CCT_OK when item is the top
 * row of last (no change).  Returns CCT_OK, CCT_ENOTFOUND (the item matches
 * nothing: message with close names), CCT_EUSAGE (bad syntax) or an error. */
int cct_center_edit(cct_query *q, int run, const cct_center *base, int op, const char *item, const cct_view *last,
                    cct_center **out, cct_err *err);

/* c's items resolved again in another run (ids fall back to names and paths,
 * as cct_query_set_run does); items that match nothing there are left out and,
 * when missing is not NULL, named in *missing ("'a', 'b'", malloc'd; NULL
 * when none).  Returns CCT_OK or an error. */
int cct_center_rerun(cct_query *q, const cct_center *c, int run, cct_center **out, char **missing, cct_err *err);

/* Frees a center (one owner's hold on it: see cct_center_share).  NULL is a no-op. */
void cct_center_free(cct_center *c);

/* c for one more owner, who frees it with cct_center_free when done: a center
 * is immutable, so a client that keeps the center a view was computed with
 * (the shell's shown value) shares it instead of resolving it again.  NULL
 * gives NULL. */
cct_center *cct_center_share(const cct_center *c);

/* A center's run, item count, i-th item as typed, and its occurrence count. */
int cct_center_run(const cct_center *c);
size_t cct_center_size(const cct_center *c);
const char *cct_center_text(const cct_center *c, size_t i);
long long cct_center_occ(const cct_center *c, size_t i);

/* ---- the session ---- */

/* Makes '@N' in cct_center_apply and cct_query_filter_add name the rows of v
 * (a view of the session's current run from cct_view_compute: the view the
 * client shows, or the base view of a diff).  Returns CCT_OK, CCT_EUSAGE (a
 * view of another run) or CCT_ENOMEM. */
int cct_query_remember(cct_query *q, const cct_view *v, cct_err *err);

/* The session's current center (never NULL; owned by the session, valid
 * until the center or the run changes). */
const cct_center *cct_query_center(const cct_query *q);

/* Opens the archive at path read-only and selects its last run.
 * Returns CCT_OK, or CCT_EIO / CCT_ESCHEMA with a message. */
int cct_query_open(const char *path, cct_query **pq, cct_err *err);

/* A session on an open connection whose main database is an archive (the
 * connection of a SQLite host that loaded the extension): selects the last run
 * and reads through db, inside the caller's transaction when one is open.  The
 * session borrows db: it changes none of its settings, never closes it, and
 * must be closed before db is.  Returns CCT_OK, or CCT_ESCHEMA with a message. */
int cct_query_open_db(sqlite3 *db, cct_query **pq, cct_err *err);

/* Closes the session (and its connection, unless borrowed).  NULL is a no-op. */
void cct_query_close(cct_query *q);

/* The session's SQLite handle (for 'sql' and completion); owned by the session unless borrowed. */
sqlite3 *cct_query_db(cct_query *q);

/* Current run; cct_query_set_run selects another (the center is re-resolved,
 * the metric kept by name when the run has it).  Returns CCT_OK or CCT_ENOTFOUND. */
int cct_query_run(const cct_query *q);
int cct_query_set_run(cct_query *q, int run, cct_err *err);

/* Display metric by name (case-insensitive, unique prefix accepted): a stored
 * metric, a statistic ('CPUTIME (usec):Mean', ':StdDev', ':CfVar', ':Min',
 * ':Max': hpcprof's, finalized as hpcviewer does) or a derived metric
 * (cct_query_define).  Returns CCT_OK or CCT_ENOTFOUND (message lists the metrics). */
int cct_query_set_metric(cct_query *q, const char *name, cct_err *err);
const char *cct_query_metric(const cct_query *q);

/* Defines (or redefines) the derived metric name = expr for the session
 * (SPEC section 5): expr is metric names (the longest name of the run the text
 * starts with, so 'CPUTIME (usec) / 1e6' needs no quotes; 'quoted' names;
 * else a word resolved as cct_query_set_metric does), numbers, + - * /,
 * parentheses, min(a, b), max(a, b).  A row's inclusive and exclusive are each
 * computed from its operands' inclusive and exclusive; division by zero gives
 * an empty value (NaN), not inf.  Every name must resolve in the current run.
 * Returns CCT_OK, CCT_EUSAGE (syntax: the message gives the character) or
 * CCT_ENOTFOUND (an unknown metric). */
int cct_query_define(cct_query *q, const char *name, const char *expr, cct_err *err);
/* The number of derived metrics; with i below it, their i-th name and expression text. */
size_t cct_query_defines(const cct_query *q, size_t i, const char **name, const char **expr);
/* The metric name resolves to in the current run, as views label it (a
 * stored, statistic or derived metric; unique prefixes of stored ones):
 * *canon malloc'd.  Returns CCT_OK or CCT_ENOTFOUND. */
int cct_query_find_metric(cct_query *q, const char *name, char **canon, cct_err *err);

/* Granularity CCT_GRAN_FUNCTION or CCT_GRAN_LINE. */
void cct_query_set_granularity(cct_query *q, int gran);
int cct_query_granularity(const cct_query *q);

/* Threshold: rows whose inclusive value is below fraction (0..1) of the
 * percent base (cct_view.base: the program total, or the center's inclusive)
 * are hidden (0 shows everything). */
void cct_query_set_threshold(cct_query *q, double fraction);
double cct_query_threshold(const cct_query *q);

/* Hot path of topdown views (cct_view_spec.hotpath): a fraction 0..1 (0: off;
 * 0.5, hpcviewer's default, when the session opens). */
void cct_query_set_hotpath(cct_query *q, double fraction);
double cct_query_hotpath(const cct_query *q);

/* Percent base of the views: CCT_PERCENT_PROGRAM (shares of the program total,
 * the default) or CCT_PERCENT_CENTER (shares of the center's inclusive value;
 * the program's when there is no center).  The threshold follows the same base. */
enum { CCT_PERCENT_PROGRAM = 0, CCT_PERCENT_CENTER = 1 };

/* Orders of flat rows and of topdown/bottomup siblings (cct_view_spec.sort;
 * the session's views use the first): the display metric's inclusive or
 * exclusive value descending, the occurrence count descending (flat functions,
 * loops and lines only), the label ascending; ties by label. */
enum { CCT_SORT_INCLUSIVE = 0, CCT_SORT_EXCLUSIVE = 1, CCT_SORT_OCCURRENCES = 2, CCT_SORT_NAME = 3 };
void cct_query_set_percent(cct_query *q, int base);
int cct_query_percent(const cct_query *q);

/* Changes the center with one item (SPEC section 4 syntax: NAME, 'NAME with
 * spaces', glob PAT, re REGEX, FILE:LINE, loop FILE:LINE, file PATH, module
 * PATH, class NAME, namespace NAME, #ID, @N).  op is CCT_CENTER_SET (replace),
 * _ADD or _REMOVE.  An item that matches nothing leaves the center unchanged
 * and returns CCT_ENOTFOUND with a message naming the item and close names.
 * Returns CCT_OK, CCT_ENOTFOUND or CCT_EUSAGE (bad syntax). */
int cct_center_apply(cct_query *q, int op, const char *item, cct_err *err);

/* Filters of the session (SPEC section 5).  cct_query_filter_add appends one
 * (item: center syntax, '@N' a row of the last view; NULL only for
 * CCT_FILTER_RECURSION: every function), computing the filtered tree at once
 * (the first time for a run and filter list: a copy of the run written like
 * an ingest, seconds for a million contexts), and resolves the center again in
 * it; cct_query_filter_remove removes filter i (1-based; 0: all).  Items of the
 * center that match nothing in the new tree are left out and named in *note
 * (malloc'd, NULL when none; note may be NULL).  An item that matches nothing
 * is CCT_ENOTFOUND and changes nothing.  Returns CCT_OK or an error. */
int cct_query_filter_add(cct_query *q, int kind, const char *item, char **note, cct_err *err);
int cct_query_filter_remove(cct_query *q, size_t i, char **note, cct_err *err);
/* The session's filters (owned by the session, valid until they change). */
size_t cct_query_filters(const cct_query *q, const cct_filter **list);

/* Empties the center (views start from the program root again). */
void cct_center_reset(cct_query *q);

/* Makes c (a center of the current run, from cct_center_edit; NULL: no
 * center) the session's center, which then owns it, and hands the previous
 * one back in *old (the caller's to free; NULL when there was none), so a
 * client can keep a history of centers (the TUI's undo) without copying or
 * resolving anything.  Returns CCT_OK, or CCT_EUSAGE (nothing changed) when c
 * belongs to another run. */
int cct_query_swap_center(cct_query *q, cct_center *c, cct_center **old, cct_err *err);

/* Center members: count, the i-th item as typed, and its occurrence count. */
size_t cct_center_count(const cct_query *q);
const char *cct_center_item(const cct_query *q, size_t i);
long long cct_center_occurrences(const cct_query *q, size_t i);

/* Writes the names of the rows from the top-level row down to row i of v into
 * names[0..v->rows[i].depth] (names holds at least depth + 1 entries): a row's
 * path, which the view does not store per row (that would take memory of the
 * square of the depth).  Returns the entries written (depth + 1). */
size_t cct_view_path(const cct_view *v, size_t i, const char **names);

/* Frees a view / stats.  NULL is a no-op. */
void cct_view_free(cct_view *v);
void cct_stats_free(cct_stats *s);

/* Checks every invariant of SPEC section 5 for the current center of q (see
 * query/invariants.c): writes a description of the first violation to err.
 * Returns CCT_OK, or CCT_ECORRUPT when an invariant fails. */
int cct_check_invariants(cct_query *q, cct_err *err);

/* Completion: calls fn for each function name, file path or metric name of
 * the current run that starts with prefix (kind 'f', 'F' or 'm').  Stops
 * when fn returns non-zero.  Returns CCT_OK or CCT_ESQL. */
int cct_query_complete(cct_query *q, int kind, const char *prefix, int (*fn)(void *arg, const char *name),
                       void *arg);

/* Listings and the user's own SQL (query/listing.c), so that clients run no
 * SQL of their own on the session's connection.  cct_query_listing prepares
 * the listing which (CCT_LIST_RUNS: run, current, title, format, contexts,
 * profiles, ingested_at, path, note; CCT_LIST_METRICS: metric, current, name,
 * total (program total), unit, description of the current run, metrics with a
 * non-zero total first) with its parameters bound; the caller steps
 * and finalizes it.  Returns CCT_OK or CCT_ESQL (*pst NULL). */
enum { CCT_LIST_RUNS = 0, CCT_LIST_METRICS = 1 };
int cct_query_listing(cct_query *q, int which, sqlite3_stmt **pst, cct_err *err);

/* Number of runs in the archive, -1 when the archive cannot be read. */
int cct_query_run_count(cct_query *q);

/* Finds a run by number or, failing that, by title.  Returns CCT_OK with *run
 * set, or CCT_ENOTFOUND (no such run, or several runs with that title: the
 * message lists them) or CCT_ESQL, *run 0. */
int cct_query_find_run(cct_query *q, const char *word, int *run, cct_err *err);

/* Prepares the first statement of sql[0..len) for the user's 'sql' command.
 * Returns CCT_OK with *pst set (the caller steps and finalizes it), CCT_ESQL
 * with SQLite's message and *offset the byte offset of the error (-1 when
 * unknown), or CCT_EUSAGE when sql holds no statement ("need a STATEMENT") or
 * a statement that writes ("not read-only"). */
int cct_query_prepare_sql(cct_query *q, const char *sql, int len, sqlite3_stmt **pst, int *offset, cct_err *err);

/* ---- traces: time windows and the timeline (SPEC section 5, Time windows) ---- */

/* What a run's traces hold: has 0 when it has none. */
typedef struct cct_traces_info {
  int has;
  double span;        /* seconds from the first record to the last */
  long long t0;       /* the first record's time, ns since the epoch */
  long long records, strays, lanes;
} cct_traces_info;

/* The traces of run (0: the current one) into *info.  Returns CCT_OK or an error. */
int cct_query_traces(cct_query *q, int run, cct_traces_info *info, cct_err *err);

/* Sets the session's window (views made with cct_view_spec_init take it): from
 * and to are seconds since the run's first record ('1.5', '1.5s', '250ms') or
 * percents of its span ('10%'); to NULL: the end of the run; from NULL: no
 * window (the whole run).  Changing runs resets it.  Returns CCT_OK,
 * CCT_ENOTFOUND (the run has no traces) or CCT_EUSAGE (bad time). */
int cct_query_set_window(cct_query *q, const char *from, const char *to, cct_err *err);

/* Parses a window of the current run as cct_query_set_window does, into *out,
 * without setting it.  Same returns. */
int cct_query_parse_window(cct_query *q, const char *from, const char *to, cct_window *out, cct_err *err);

/* The session's window, NULL when none. */
const cct_window *cct_query_window(const cct_query *q);

/* 'window 1.5 s - 2.5 s (trace (sec) only)', as views name a window among their
 * filters; malloc'd, NULL when out of memory. */
char *cct_window_text(const cct_window *w);

/* A timeline: per lane (traced profile), per column of equal time, the share
 * of the column's time that the center was on the sampled stack (the records
 * whose context is inside an outermost occurrence; no center: any context),
 * and what each lane sampled at the middle of each column (for 'center #ID'). */
typedef struct cct_timeline {
  int run;
  double from, to;    /* seconds since the run's first record: the time the columns cover */
  double span;        /* the run's span (seconds) */
  int windowed;       /* the session has a window: win_from .. win_to (else 0 .. span) */
  double win_from, win_to;
  size_t nlanes, ncols, total_lanes;
  char **label;       /* per lane: 'rank 0 thread 1', or its trace file */
  long long *lane;    /* per lane: its number (trace_lane.lane) */
  double *on, *busy;  /* per lane: seconds on the center, on any context, in the window */
  double *frac;       /* nlanes x ncols shares 0..1 on the center, row-major */
  double *busyfrac;   /* nlanes x ncols shares 0..1 on any context (not idle) */
  char *center;       /* the center's label */
  /* The frames sampled: at[lane * ncols + col] is the innermost frame (function
   * context) on the stack the lane sampled at the middle of the column, -1 when
   * idle there; frame k is the context '#frame_id[k]' of function frame_name[k],
   * called from frame frame_caller[k] (-1: from the program root). */
  int *at;
  size_t nframes;
  long long *frame_id;
  int *frame_caller;
  char **frame_name;
} cct_timeline;

/* Which time a timeline's columns cover. */
enum {
  CCT_TIMELINE_WINDOW = 0, /* the session's window (the whole run without one) */
  CCT_TIMELINE_RUN = 1     /* the whole run (the window is where on and busy are counted) */
};

/* The timeline of the session's run, center and window: the lanes most on the
 * center in the window first (at most nlanes, 0: all), ncols columns over the
 * time 'over' says (CCT_TIMELINE_*).  Returns CCT_OK with *out (free with
 * cct_timeline_free), CCT_ENOTFOUND for a run without traces, or an error. */
int cct_timeline_compute(cct_query *q, size_t nlanes, size_t ncols, int over, cct_timeline **out, cct_err *err);
void cct_timeline_free(cct_timeline *t);

#endif
