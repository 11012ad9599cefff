/* shell_trace.c: the shell's commands over a run's traces (SPEC section 5,
 * Time windows): 'window' sets the time window the metric 'trace (sec)' of
 * every view is restricted to, 'timeline' draws per lane when the center was
 * on the sampled stack, at the terminal's width (json: the shares). */
#include "cct_escape.h"
#include "shell_int.h"

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

/* 'timeline [N]': N lanes (default 16, 0 = all), the most on the center first. */
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
  int width = cct_out_limit(p);
  if (width <= 0) width = 80;
  const int label_w = 18, fig_w = 19; /* 'rank 0 thread 12' then '   1.234 s  45.6% ' */
  int cols = width - label_w - fig_w - 2;
  if (cols < 10) cols = 10;
  cct_timeline *t = NULL;
  cct_err err = CCT_ERR_INIT;
  if (cct_timeline_compute(p->q, (size_t)n, p->mode == CCT_MODE_JSON ? 100 : (size_t)cols, &t, &err))
    return cct_shell_error(p, "%s", err.msg);
  if (p->mode == CCT_MODE_JSON) {
    fprintf(p->out, "{\"view\": \"timeline\", \"run\": %d, \"from\": %.9g, \"to\": %.9g, \"columns\": %zu, \"lanes\": [",
            t->run, t->from, t->to, t->ncols);
    for (size_t i = 0; i < t->nlanes; i++) {
      fprintf(p->out, "%s{\"lane\": %lld, \"label\": \"", i ? ", " : "", t->lane[i]);
      cct_escape_write(p->out, t->label[i], CCT_ESC_JSON);
      fprintf(p->out, "\", \"on\": %.9g, \"busy\": %.9g, \"shares\": [", t->on[i], t->busy[i]);
      for (size_t c = 0; c < t->ncols; c++) fprintf(p->out, "%s%.4g", c ? ", " : "", t->frac[i * t->ncols + c]);
      fputs("]}", p->out);
    }
    fputs("]}\n", p->out);
    cct_timeline_free(t);
    return CCT_CMD_OK;
  }
  fputs("timeline of ", p->out);
  cct_out_fit(p->out, t->center, width - 40 > 20 ? width - 40 : 20, 0);
  fprintf(p->out, ", run %d: %zu of %zu lanes, most on it first\n", t->run, t->nlanes, t->total_lanes);
  char left[32], right[32];
  snprintf(left, sizeof left, "|%.4g s", t->from);
  snprintf(right, sizeof right, "%.4g s|", t->to);
  int gap = (int)t->ncols + 2 - (int)strlen(left) - (int)strlen(right);
  fprintf(p->out, "%-*s %10s %6s %s%*s%s\n", label_w, "lane", "on it", "", left, gap > 0 ? gap : 1, "", right);
  double span = t->to - t->from;
  for (size_t i = 0; i < t->nlanes; i++) {
    cct_out_fit(p->out, t->label[i], label_w, 1);
    fprintf(p->out, " %8.4g s %5.1f%% |", t->on[i], span > 0 ? 100 * t->on[i] / span : 0);
    for (size_t c = 0; c < t->ncols; c++) fputc(shade(t->frac[i * t->ncols + c]), p->out);
    fputs("|\n", p->out);
  }
  fputs("' .:=#': on it for 0, <25, <50, <75, >=75% of a column's time\n", p->out);
  cct_timeline_free(t);
  return CCT_CMD_OK;
}
