/* shell_trace.c: the shell's commands over a run's traces (SPEC section 5,
 * Time windows): 'window' sets the time window the metric 'trace (sec)' of
 * every view is restricted to, 'timeline' draws per lane when the center was
 * on the sampled stack, at the terminal's width (json: the shares). */
#include "cct_escape.h"
#include "shell_int.h"
#include "cct_picture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 'window': show; 'window A [B]': set; 'window reset': the whole run. */
int cct_shell_cmd_window(cct_shell *p, cct_words *w) {
  cct_err err = CCT_ERR_INIT;
  if (w->argc > 3) return cct_shell_error(p, "unexpected argument '%s' for 'window'; usage: window [A [B] | reset]", w->argv[3]);
  if (w->argc == 2 && !strcmp(w->argv[1], "reset")) return cct_query_set_window(p->q, NULL, NULL, &err), CCT_CMD_OK;
  if (w->argc >= 2) {
    if (cct_query_set_window(p->q, w->argv[1], w->argc == 3 ? w->argv[2] : NULL, &err))
      return cct_shell_error(p, "%s", err.msg);
  }
  cct_traces_info info;
  if (cct_query_traces(p->q, 0, &info, &err)) return cct_shell_error(p, "%s", err.msg);
  if (!info.has) {
    fprintf(p->out, "run %d has no traces\n", cct_query_run(p->q));
    return CCT_CMD_OK;
  }
  const cct_window *win = cct_query_window(p->q);
  double a = win ? win->from : 0, b = win ? win->to : info.span;
  fprintf(p->out, "window %.6g s - %.6g s of %.6g s (%.3g%% - %.3g%%)%s; %lld records in %lld lanes\n", a, b,
          info.span, info.span > 0 ? 100 * a / info.span : 0, info.span > 0 ? 100 * b / info.span : 100,
          win ? "" : ", the whole run", info.records, info.lanes);
  return CCT_CMD_OK;
}

/* A share 0..1 as one character. */
static char shade(double f) {
  return f <= 0 ? ' ' : f < 0.25 ? '.' : f < 0.5 ? ':' : f < 0.75 ? '=' : '#';
}

/* Writes the timeline of n lanes (0: all) to f: mode CCT_MODE_JSON the shares of 100 columns, any other mode the
 * text at p's width.  Returns a CCT_CMD_* code. */
static int timeline_write(cct_shell *p, size_t n, FILE *f, int mode) {
  int width = cct_out_limit(p);
  if (width <= 0) width = 80;
  const int label_w = 18, fig_w = 19; /* 'rank 0 thread 12' then '   1.234 s  45.6% ' */
  int cols = width - label_w - fig_w - 2;
  if (cols < 10) cols = 10;
  cct_timeline *t = NULL;
  cct_err err = CCT_ERR_INIT;
  if (cct_timeline_compute(p->q, n, mode == CCT_MODE_JSON ? 100 : (size_t)cols, CCT_TIMELINE_WINDOW, &t, &err))
    return cct_shell_error(p, "%s", err.msg);
  if (mode == CCT_MODE_JSON) {
    fprintf(f, "{\"view\": \"timeline\", \"run\": %d, \"from\": %.9g, \"to\": %.9g, \"columns\": %zu, \"lanes\": [",
            t->run, t->from, t->to, t->ncols);
    for (size_t i = 0; i < t->nlanes; i++) {
      fprintf(f, "%s{\"lane\": %lld, \"label\": \"", i ? ", " : "", t->lane[i]);
      cct_escape_write(f, t->label[i], CCT_ESC_JSON);
      fprintf(f, "\", \"on\": %.9g, \"busy\": %.9g, \"shares\": [", t->on[i], t->busy[i]);
      for (size_t c = 0; c < t->ncols; c++) fprintf(f, "%s%.4g", c ? ", " : "", t->frac[i * t->ncols + c]);
      fputs("]}", f);
    }
    fputs("]}\n", f);
    cct_timeline_free(t);
    return CCT_CMD_OK;
  }
  fputs("timeline of ", f);
  cct_out_fit(f, t->center, width - 40 > 20 ? width - 40 : 20, 0);
  fprintf(f, ", run %d: %zu of %zu lanes, most on it first\n", t->run, t->nlanes, t->total_lanes);
  char left[32], right[32];
  snprintf(left, sizeof left, "|%.4g s", t->from);
  snprintf(right, sizeof right, "%.4g s|", t->to);
  int gap = (int)t->ncols + 2 - (int)strlen(left) - (int)strlen(right);
  fprintf(f, "%-*s %10s %6s %s%*s%s\n", label_w, "lane", "on it", "", left, gap > 0 ? gap : 1, "", right);
  double span = t->to - t->from;
  for (size_t i = 0; i < t->nlanes; i++) {
    cct_out_fit(f, t->label[i], label_w, 1);
    fprintf(f, " %8.4g s %5.1f%% |", t->on[i], span > 0 ? 100 * t->on[i] / span : 0);
    for (size_t c = 0; c < t->ncols; c++) fputc(shade(t->frac[i * t->ncols + c]), f);
    fputs("|\n", f);
  }
  fputs("' .:=#': on it for 0, <25, <50, <75, >=75% of a column's time\n", f);
  cct_timeline_free(t);
  return CCT_CMD_OK;
}

/* The session's center and window as one string (malloc'd, NULL when out of memory). */
static char *timeline_key(cct_shell *p) {
  size_t n = cct_center_count(p->q), len = 64;
  for (size_t i = 0; i < n; i++) len += strlen(cct_center_item(p->q, i)) + 1;
  char *k = malloc(len);
  if (!k) return NULL;
  const cct_window *w = cct_query_window(p->q);
  size_t at = (size_t)snprintf(k, len, "%.17g %.17g\n", w ? w->from : -1, w ? w->to : -1);
  for (size_t i = 0; i < n; i++) at += (size_t)snprintf(k + at, len - at, "%s\n", cct_center_item(p->q, i));
  return k;
}

/* 'timeline [N]': N lanes (default 16, 0 = all), the most on the center first.  'export' then writes it (the view
 * before it stays the one '@N' names). */
int cct_shell_cmd_timeline(cct_shell *p, cct_words *w) {
  int n = 16;
  if (w->argc > 2) return cct_shell_error(p, "unexpected argument '%s' for 'timeline'; usage: timeline [N]", w->argv[2]);
  if (w->argc == 2) {
    char *end = NULL;
    long v = strtol(w->argv[1], &end, 10);
    if (end == w->argv[1] || *end || v < 0 || v > 100000)
      return cct_shell_error(p, "bad lane count '%s' for 'timeline'; usage: timeline [N]", w->argv[1]);
    n = (int)v;
  }
  int rc = timeline_write(p, (size_t)n, p->out, p->mode);
  if (rc) return rc;
  cct_diff_free(p->shown.d); /* the diff shown before is not what export writes now */
  p->shown.d = NULL;
  free(p->shown.timeline_key);
  p->shown.timeline_key = timeline_key(p);
  p->shown.timeline = p->shown.timeline_key ? (size_t)n + 1 : 0;
  return CCT_CMD_OK;
}

int cct_shell_timeline_export(cct_shell *p, FILE *f, int mode, const char *ext) {
  size_t n = p->shown.timeline - 1;
  char *now = timeline_key(p);
  int same = now && !strcmp(now, p->shown.timeline_key);
  free(now);
  if (!same) return cct_shell_error(p, "the center or the window changed since 'timeline': run it again to export it");
  if (mode >= 0) return timeline_write(p, n, f, mode);
  cct_err err = CCT_ERR_INIT;
  int rc = strcmp(ext, "svg") ? cct_picture_timeline_html(p->q, n, NULL, f, &err)
                              : cct_picture_timeline_svg(p->q, n, NULL, f, &err);
  return rc ? cct_shell_error(p, "%s", err.msg) : CCT_CMD_OK;
}
