/* cct_diff.h: one view of two runs side by side, or of two time windows of
 * one run (cct_diff_spec.window: SPEC section 5, Time windows), part of the
 * cct_query library.  cct_view_diff computes the view a cct_view_spec
 * describes (topdown, bottomup or flat: its run, center, display metric,
 * columns, granularity, threshold, sort, filters and window; the session's
 * settings are not read) in its run (the base) and the same view in another
 * run of the archive, and merges the two by path of names: a row's path is the names from the top row
 * down to it, so rows match across runs whose context ids differ and across
 * the classic and v4 formats.  Rows found in one run only are 'added' (only in
 * the other run) or 'removed' (only in the base run).
 *
 * Matching rules (SPEC section 6): the top rows of topdown / bottomup (the
 * center) always match; siblings match by name, hpcprof's ' [module]'
 * decoration ignored when one side lacks it or the modules differ only in
 * version ('PMPI_Send' of a prof2 run is 'PMPI_Send [libmpi.so.12.1.1]' of a v4
 * one; 'f [liba.so]' is never 'f [libb.so]'), and when several siblings share a
 * name, by function identity where both rows have it (module but for its
 * version, file and line), then call site, then file, then line, then order.  The placeholder roots of the two
 * formats ('<program root>' in classic databases, 'main thread' in v4 ones)
 * match each other.  Metrics match by name, else by base name without the
 * unit ('CPUTIME (usec)' and 'CPUTIME (sec)'); the other run's values are
 * converted to the base run's unit when both are time units (s, ms, us, ns).
 *
 * The user's session is not changed: both views are computed by the view core
 * (cct_view_compute), the other run's with the center re-resolved there item
 * by item (cct_center_rerun, as cct_query_set_run does).  '@N' keeps naming
 * the rows of the view shown before the diff; every row present in the base
 * run carries its handle in the base view (computed without a threshold).
 *
 * Ownership: a cct_diff owns everything it points to; free it with
 * cct_diff_free. */
#ifndef CCT_DIFF_H
#define CCT_DIFF_H

#include "cct_query.h"

/* Row status. */
enum { CCT_DIFF_BOTH = 0, CCT_DIFF_ADDED = 1, CCT_DIFF_REMOVED = 2 };

/* Flags. */
enum {
  CCT_DIFF_SORT_CHANGE = 1 /* siblings by |change| of the display metric's inclusive value, not by
                              the view's sort key */
};

/* The view to compute in both runs, and how to compare. */
typedef struct cct_diff_spec {
  cct_view_spec view; /* the base view (view CCT_VIEW_TOPDOWN, _BOTTOMUP or _FLAT; run 0: the
                         session's run): the view shown, as it was computed.  The diff computes
                         it without threshold, row limit or zero-row elision and with the csv
                         metrics (only_display 0), then applies its threshold (in either run),
                         flat_n (after the merge) and sort (the larger of the two runs' keys;
                         name ascending) to the merged rows */
  int flags;          /* CCT_DIFF_* flags */
  const cct_window *window; /* NULL: compare with other_run; else two windows of the base run:
                               view.window (the whole run when NULL) and this one, by the metric
                               'trace (sec)' (the one windows restrict) */
} cct_diff_spec;

/* One merged row, in pre-order. */
typedef struct cct_diff_row {
  int status;             /* CCT_DIFF_BOTH, _ADDED, _REMOVED */
  int depth;              /* 0 for top-level rows */
  int handle;             /* the base row's handle ('@N'), 0 when added */
  int other_handle;       /* the other run's row handle, 0 when removed */
  const cct_row *row;     /* the base row, or the other run's row when added: name, kind, file,
                             line, module, callsite, center, path */
  const cct_row *other;   /* the other run's row, NULL when removed */
  double *inclusive;      /* per metric: base values, NaN when added */
  double *exclusive;
  double *other_inclusive; /* per metric: other run's values in the base unit, NaN when removed or
                              when the other run has no such metric */
  double *other_exclusive;
  double *change;          /* other_inclusive - inclusive (an absent row counts 0) */
  double *exclusive_change; /* other_exclusive - exclusive */
  double *relative;        /* change / |inclusive|: +0.25 is 25 % more in the other run; NaN when
                              the base row is absent (added) or 0 */
} cct_diff_row;

/* A merged view. */
typedef struct cct_diff {
  const char *view;         /* "topdown", "bottomup", "flat" */
  int depth;                /* topdown / bottomup depth */
  int flat_kind, flat_n;    /* flat */
  int sort_change;          /* 1: siblings sorted by |change| */
  int sort;                 /* else the view's CCT_SORT_* key, the larger of the two runs' values */
  size_t nshown;            /* metrics[0 .. nshown): the display metric and the view's columns
                               (what tree and table show), as cct_view.nshown */
  int run, other_run;       /* base run (the spec's) and the other run (the same for windows) */
  const cct_window *windows; /* a diff of two windows: [0] the base's (the whole run when the
                               session has none), [1] the other's; NULL for two runs */
  const char *title, *other_title; /* run titles (NULL when none) */
  const char **center;      /* center items as typed (base run) */
  size_t ncenter;
  int granularity;          /* CCT_GRAN_* */
  const char **metrics;     /* base run's metric names (display metric first), as in cct_view */
  const char **other_metrics; /* the matching metric of the other run, NULL when none */
  const char *const *units, *const *other_units; /* units from the 'metrics' view, NULL when unknown */
  double *scale;            /* other run's values are multiplied by this (unit conversion) */
  size_t nmetrics;
  double *total;            /* per metric: base program total */
  double *other_total;      /* per metric: other run's program total, in the base unit */
  cct_diff_row *rows;
  size_t nrows;
  const char *note;         /* a line for the user (items not found in the other run, unit
                               conversion), or NULL */
  const cct_view *base_view; /* the base run's view (no threshold) whose handles the rows carry:
                               cct_query_remember makes '@N' name its rows */
  void *priv;               /* library data (the two views) */
} cct_diff;

/* Computes spec->view in its run and in other_run (with spec->window: in its
 * run over that window), merged as described above.  Only the spec is read,
 * never the session's settings; the threshold hides a row only when it is
 * below the threshold in both runs (each run's fraction of its own program
 * total).  A center item that matches
 * nothing in other_run is left out there (named in d->note); when none
 * matches, every row is 'removed'.
 * Returns CCT_OK with *out set, or CCT_ENOTFOUND (no such run, no matching
 * display metric), CCT_EUSAGE (bad spec, bottomup without a center), CCT_EIO /
 * CCT_ESQL / CCT_ENOMEM, or the error of a view (*out NULL). */
int cct_view_diff(cct_query *q, const cct_diff_spec *spec, int other_run, cct_diff **out, cct_err *err);

/* Frees a diff.  NULL is a no-op. */
void cct_diff_free(cct_diff *d);

#endif
