/* cct_picture.h: pictures of context-centric views (part of the cct_query
 * library).  A picture is drawn from the views a cct_view_spec describes (its
 * run, center, display metric, granularity, threshold, filters, window,
 * depth), computed by cct_view_compute, or from a computed cct_stats, so its
 * numbers are the views' numbers whatever the session's settings are.  The
 * session is not changed ('@N' rows included).  The library writes only to
 * the FILE* it is given. */
#ifndef CCT_PICTURE_H
#define CCT_PICTURE_H

#include "cct_query.h"

#include <stdio.h>

/* Frame colors. */
enum {
  CCT_PICTURE_COLOR_MODULE = 0, /* stable hash of the load module path into a warm palette */
  CCT_PICTURE_COLOR_KIND = 1    /* function, inlined function, loop, line, instruction */
};

/* Drawing options; a NULL options pointer or zero fields mean the defaults. */
typedef struct cct_picture_opts {
  int width;        /* picture width in pixels (default 1200, at least 300) */
  int color_by;     /* CCT_PICTURE_COLOR_* (default module) */
  double min_width; /* frames narrower than this many pixels are left out, with their subtrees (default 0.1) */
} cct_picture_opts;

/* Writes a self-contained SVG sandwich for spec's center to out: the center as
 * the middle row (full width), its callee tree (spec as a CCT_VIEW_TOPDOWN,
 * spec->depth levels; spec->view is not used) as a flame graph above and its
 * caller tree (as a CCT_VIEW_BOTTOMUP) as an icicle below; frame widths are proportional to
 * the inclusive value of the display metric (metric 0 of the views).  With no
 * center: the top-down flame graph of the whole program (no lower half).
 * Every frame is a <g class="frame"> with data-part (center|root|callee|
 * caller), data-handle (the view row's handle), data-parent (the parent row's
 * handle, 0 for the middle row), data-depth, data-kind, data-name,
 * data-inclusive, data-exclusive, holding a <title> tooltip and a <rect>.
 * opts NULL: the defaults.  Returns CCT_OK, CCT_EUSAGE (depth < 0), CCT_EIO
 * (write failed) or the error of a view. */
int cct_picture_svg(cct_query *q, const cct_view_spec *spec, const cct_picture_opts *opts, FILE *out, cct_err *err);

/* Writes a self-contained interactive HTML page (inline CSS and script, no
 * external assets) with the same picture.  The page embeds the program's
 * calling-context tree at function granularity (at most 20,000 frames, the
 * heaviest first) and re-centers in the browser with the rules of the
 * library: clicking a frame makes its function (by name) the center, the
 * callee half is the merge of the children of the outermost occurrences and
 * the caller half the merge of their caller chains.  A reset button returns
 * to spec's center; a search box highlights frames whose name matches.  The
 * embedded tree has spec's run, metric, filters and window.  Returns as
 * cct_picture_svg. */
int cct_picture_html(cct_query *q, const cct_view_spec *spec, const cct_picture_opts *opts, FILE *out, cct_err *err);

/* Writes an SVG of s, the distribution of center's inclusive value (display
 * metric) over profiles (from cct_stats_compute; center labels it, NULL: the
 * program): a bar chart of the profiles in the order s has them, which is
 * order (CCT_STATS_BY_*, named on the axis), with the mean, and a histogram,
 * with labeled axes.  Each bar is a <rect class="bar"> with data-profile and
 * data-value; each bin a <rect class="bin"> with data-count.  Returns CCT_OK
 * or CCT_EIO. */
int cct_picture_stats_svg(const cct_stats *s, const cct_center *center, int order, FILE *out, cct_err *err);

/* Writes an SVG of the timeline (cct_timeline_compute with columns of one
 * pixel over the whole run, nlanes lanes, 0: all): per lane (a traced profile,
 * the most time on the center in the window first) a strip whose height is the
 * share of each moment the center was on the sampled call stack (and, behind
 * it, the share the profile was busy at all), its seconds on the center, the
 * time axis in seconds and the session's window shaded.  Each lane is a
 * <g class="lane"> with data-lane, data-label, data-on, data-busy; the window a
 * <rect class="window"> with data-from, data-to.  Opts: width only.  Returns
 * CCT_OK, CCT_ENOTFOUND (the run has no traces), CCT_EIO or an error. */
int cct_picture_timeline_svg(cct_query *q, size_t nlanes, const cct_picture_opts *opts, FILE *out, cct_err *err);

/* The same picture as a self-contained HTML page that gives the cctq commands
 * of its gestures (it cannot change the session): dragging over the time axis
 * shows 'window A B', a click on a lane shows the call stack the lane sampled
 * at that time (innermost frame first) and 'center #ID' of its innermost frame
 * (a click on another frame: that frame's), copied to the clipboard.  Each
 * lane's data-at lists per column the frame sampled at the column's middle
 * (index into the list #frames, -1 idle).  Returns as cct_picture_timeline_svg. */
int cct_picture_timeline_html(cct_query *q, size_t nlanes, const cct_picture_opts *opts, FILE *out, cct_err *err);

#endif
