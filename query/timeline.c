/* timeline.c: the session's side of a run's traces (window.c below it): what
 * the traces hold, the session's window (parsed from seconds or percents), and
 * the timeline (per lane and column, the share of time the center was on the
 * sampled stack). */
#include "cct_util.h"
#include "query_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the session's window and the run's traces, public ---- */

int cct_query_traces(cct_query *s, int run, cct_traces_info *info, cct_err *err) {
  memset(info, 0, sizeof *info);
  const qrun *r = NULL;
  int rc = q_run_get(&s->a, run ? run : s->r->run, &r, err);
  qtraces *t = NULL;
  q_begin(&s->a);
  if (!rc) rc = q_traces_get(&s->a, r, &t, err);
  q_end(&s->a);
  if (rc || !t) return rc;
  info->has = 1;
  info->span = (double)t->span * 1e-9;
  info->t0 = t->t0;
  info->records = t->records;
  info->strays = t->strays;
  info->lanes = (long long)t->nlanes;
  return CCT_OK;
}

/* Parses a window edge: seconds ('1.5', '1.5s', '250ms') or a percent of span ('10%'). */
static int parse_edge(const char *s, double span, double *out) {
  char *end = NULL;
  double v = strtod(s, &end);
  if (end == s || !isfinite(v) || v < 0) return -1;
  if (!strcmp(end, "%")) v = v / 100 * span;
  else if (!strcmp(end, "ms")) v /= 1e3;
  else if (*end && strcmp(end, "s")) return -1;
  *out = v;
  return 0;
}

int cct_query_set_window(cct_query *s, const char *from, const char *to, cct_err *err) {
  if (!from) {
    s->windowed = 0;
    return CCT_OK;
  }
  cct_traces_info info;
  int rc = cct_query_traces(s, 0, &info, err);
  if (rc) return rc;
  if (!info.has) return cct_err_set(err, CCT_ENOTFOUND, "run %d has no traces: no window", s->r->run);
  cct_window w;
  if (parse_edge(from, info.span, &w.from))
    return cct_err_set(err, CCT_EUSAGE, "'%s' is not a time: give seconds (1.5, 1.5s, 250ms) or a percent of the run (10%%)", from);
  if (!to) w.to = info.span;
  else if (parse_edge(to, info.span, &w.to))
    return cct_err_set(err, CCT_EUSAGE, "'%s' is not a time: give seconds (1.5, 1.5s, 250ms) or a percent of the run (10%%)", to);
  if (w.to <= w.from)
    return cct_err_set(err, CCT_EUSAGE, "the window ends (%g s) before it starts (%g s)", w.to, w.from);
  s->window = w;
  s->windowed = 1;
  return CCT_OK;
}

const cct_window *cct_query_window(const cct_query *s) { return s->windowed ? &s->window : NULL; }

/* ---- the timeline ---- */

void cct_timeline_free(cct_timeline *t) {
  if (!t) return;
  for (size_t i = 0; i < t->nlanes; i++) free(t->label[i]);
  free(t->label);
  free(t->lane);
  free(t->on);
  free(t->busy);
  free(t->frac);
  free(t->center);
  free(t);
}

static void lane_label(const qlane *l, char *buf, size_t n) {
  size_t k = 0;
  buf[0] = 0;
  const struct { const char *name; int64_t v; } f[] = {{"rank", l->rank}, {"thread", l->thread}, {"core", l->core},
                                                       {"gpu ctx", l->gpucontext}, {"stream", l->gpustream}};
  for (size_t i = 0; i < sizeof f / sizeof *f && k < n; i++)
    if (f[i].v >= 0) k += (size_t)snprintf(buf + k, n - k, "%s%s %lld", k ? " " : "", f[i].name, (long long)f[i].v);
  if (!buf[0]) snprintf(buf, n, "%s", l->source ? l->source : "?");
}

typedef struct lane_order {
  size_t i;
  double on, busy;
} lane_order;

static int by_on(const void *a, const void *b) {
  const lane_order *x = a, *y = b;
  if (x->on != y->on) return x->on < y->on ? 1 : -1;
  if (x->busy != y->busy) return x->busy < y->busy ? 1 : -1;
  return x->i < y->i ? -1 : x->i > y->i;
}

int cct_timeline_compute(cct_query *s, size_t nlanes, size_t ncols, cct_timeline **out, cct_err *err) {
  *out = NULL;
  cct_view_spec spec;
  cct_view_spec_init(s, CCT_VIEW_TOPDOWN, &spec);
  if (ncols < 1 || ncols > 4096) return cct_err_set(err, CCT_EUSAGE, "a timeline is 1 to 4096 columns wide");
  qv q;
  q_begin(&s->a);
  int rc = q_spec_bind(s, &spec, &q, err);
  qtraces *t = NULL;
  if (!rc && q.tree) rc = cct_err_set(err, CCT_EUSAGE, "a timeline under filters is not supported yet: 'filter reset'");
  if (!rc) rc = q_traces_get(q.a, q.r, &t, err);
  if (!rc && !t) rc = cct_err_set(err, CCT_ENOTFOUND, "run %d has no traces: no timeline", q.r->run);
  unsigned char *in = rc ? NULL : q_center_marks(&q); /* nodes in the center's subtrees */
  cct_timeline *tl = rc ? NULL : calloc(1, sizeof *tl);
  lane_order *ord = rc ? NULL : calloc(t->nlanes, sizeof *ord);
  if (!rc && (!in || !tl || !ord)) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
  if (!rc) {
    const cct_window *w = s->windowed ? &s->window : NULL;
    int64_t from = w ? (int64_t)llround(w->from * 1e9) : 0, to = w ? (int64_t)llround(w->to * 1e9) : t->span;
    if (to <= from) to = from + 1;
    tl->run = q.r->run;
    tl->from = (double)from * 1e-9;
    tl->to = (double)to * 1e-9;
    tl->ncols = ncols;
    tl->total_lanes = t->nlanes;
    tl->center = q_strdup(q.c->nitems ? q_center_label(q.c) : "<program root>");
    double *frac = calloc(t->nlanes * ncols, sizeof *frac), *busyc = calloc(t->nlanes * ncols, sizeof *busyc);
    if (!frac || !busyc || !tl->center) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
    double colw = (double)(to - from) / (double)ncols;
    for (size_t k = 0; !rc && k < t->nlanes; k++) {
      const qlane *l = &t->lanes[k];
      ord[k].i = k;
      for (size_t i = 0; i < l->n; i++) {
        int64_t a = l->t[i], b = i + 1 < l->n ? l->t[i + 1] : l->end;
        if (a < from) a = from;
        if (b > to) b = to;
        if (b <= a || !l->ctx[i]) continue;
        int on = in[l->ctx[i]];
        ord[k].busy += (double)(b - a);
        if (on) ord[k].on += (double)(b - a);
        /* spread [a, b) over the columns it covers */
        for (double x = (double)(a - from); x < (double)(b - from);) {
          size_t c = (size_t)(x / colw);
          if (c >= ncols) c = ncols - 1;
          double cend = (double)(c + 1) * colw, y = cend < (double)(b - from) ? cend : (double)(b - from);
          if (c == ncols - 1) y = (double)(b - from);
          busyc[k * ncols + c] += y - x;
          if (on) frac[k * ncols + c] += y - x;
          if (y <= x) break;
          x = y;
        }
      }
    }
    if (!rc) {
      qsort(ord, t->nlanes, sizeof *ord, by_on);
      tl->nlanes = nlanes && nlanes < t->nlanes ? nlanes : t->nlanes;
      tl->label = calloc(tl->nlanes + 1, sizeof *tl->label);
      tl->lane = calloc(tl->nlanes + 1, sizeof *tl->lane);
      tl->on = calloc(tl->nlanes + 1, sizeof *tl->on);
      tl->busy = calloc(tl->nlanes + 1, sizeof *tl->busy);
      tl->frac = calloc(tl->nlanes * ncols + 1, sizeof *tl->frac);
      if (!tl->label || !tl->lane || !tl->on || !tl->busy || !tl->frac) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
      for (size_t r = 0; !rc && r < tl->nlanes; r++) {
        size_t k = ord[r].i;
        char buf[128];
        lane_label(&t->lanes[k], buf, sizeof buf);
        if (!(tl->label[r] = q_strdup(buf))) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
        tl->lane[r] = t->lanes[k].lane;
        tl->on[r] = ord[r].on * 1e-9;
        tl->busy[r] = ord[r].busy * 1e-9;
        for (size_t c = 0; c < ncols; c++) /* share of the column's time on the center: idle time counts as off */
          tl->frac[r * ncols + c] = frac[k * ncols + c] / colw;
      }
    }
    free(frac);
    free(busyc);
  }
  q_end(&s->a);
  free(in);
  free(ord);
  if (rc) {
    cct_timeline_free(tl);
    return rc;
  }
  *out = tl;
  return CCT_OK;
}
