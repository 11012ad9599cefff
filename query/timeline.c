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

int cct_query_parse_window(cct_query *s, const char *from, const char *to, cct_window *out, cct_err *err) {
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
  *out = w;
  return CCT_OK;
}

int cct_query_set_window(cct_query *s, const char *from, const char *to, cct_err *err) {
  if (!from) {
    s->windowed = 0;
    return CCT_OK;
  }
  cct_window w;
  int rc = cct_query_parse_window(s, from, to, &w, err);
  if (rc) return rc;
  s->window = w;
  s->windowed = 1;
  return CCT_OK;
}

const cct_window *cct_query_window(const cct_query *s) { return s->windowed ? &s->window : NULL; }

/* ---- the timeline ---- */

void cct_timeline_free(cct_timeline *t) {
  if (!t) return;
  for (size_t i = 0; t->label && i < t->nlanes; i++) free(t->label[i]);
  for (size_t i = 0; i < t->nframes; i++) free(t->frame_name[i]);
  free(t->label);
  free(t->lane);
  free(t->on);
  free(t->busy);
  free(t->frac);
  free(t->busyfrac);
  free(t->center);
  free(t->at);
  free(t->frame_id);
  free(t->frame_caller);
  free(t->frame_name);
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

/* Spreads the records of lane l inside [from, to) over ncols columns of equal
 * time: on[c] and busy[c] get the column's shares (0..1) on a marked node and
 * on any node (idle records count for neither). */
static void lane_columns(const qlane *l, const unsigned char *in, int64_t from, int64_t to, size_t ncols, double *on,
                         double *busy) {
  double colw = (double)(to - from) / (double)ncols;
  for (size_t i = 0; i < l->n; i++) {
    int64_t a = l->t[i], b = i + 1 < l->n ? l->t[i + 1] : l->end;
    if (a < from) a = from;
    if (b > to) b = to;
    if (b <= a || !l->ctx[i]) continue;
    int mark = in[l->ctx[i]];
    double xa = (double)(a - from), xb = (double)(b - from); /* [a, b) over the columns it covers */
    size_t c0 = (size_t)(xa / colw), c1 = (size_t)(xb / colw);
    if (c0 >= ncols) c0 = ncols - 1;
    if (c1 >= ncols) c1 = ncols - 1; /* the last column ends at to */
    for (size_t c = c0; c <= c1; c++) {
      double lo = c == c0 ? xa : (double)c * colw, hi = c == c1 ? xb : (double)(c + 1) * colw;
      if (hi <= lo) continue;
      busy[c] += (hi - lo) / colw;
      if (mark) on[c] += (hi - lo) / colw;
    }
  }
}

/* The node lane l sampled at time x (ns): the record covering it, 0 (idle) before the first record, at or after the
 * lane's end. */
static uint32_t lane_node_at(const qlane *l, int64_t x) {
  if (!l->n || x < l->t[0] || x >= l->end) return 0;
  size_t lo = 0, hi = l->n; /* the last record at or before x */
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (l->t[mid] <= x) lo = mid;
    else hi = mid;
  }
  return l->ctx[lo];
}

/* The frames of the stacks a timeline draws: node -> frame index + 1 (0: not yet). */
typedef struct frame_table {
  int32_t *index;
  size_t cap_id, cap_caller, cap_name;
} frame_table;

/* Index in tl's frames of frame node f (> 0), adding it and the frames that called it.  Returns the index, or -1
 * with err set. */
static int frame_index(const qv *q, cct_timeline *tl, frame_table *ft, int32_t f, cct_err *err) {
  const cct_tree *tr = &q->r->tree;
  int32_t chain[512];
  size_t n = 0;
  for (int32_t x = f; x > 0 && !ft->index[x] && n < sizeof chain / sizeof *chain; x = tr->fparent[x]) chain[n++] = x;
  while (n--) { /* the outermost new frame first: its caller has its index */
    int32_t x = chain[n], up = tr->fparent[x];
    size_t k = tl->nframes;
    if (CCT_GROW(tl->frame_id, k + 1, ft->cap_id) || CCT_GROW(tl->frame_caller, k + 1, ft->cap_caller) ||
        CCT_GROW(tl->frame_name, k + 1, ft->cap_name))
      return cct_err_set(err, CCT_ENOMEM, "out of memory"), -1;
    const fninfo *fn = NULL;
    if (q_function(q, tr->function[x], &fn, err)) return -1;
    char buf[32];
    snprintf(buf, sizeof buf, "<function %lld>", (long long)tr->function[x]);
    if (!(tl->frame_name[k] = q_strdup(fn ? fn->name : buf))) return cct_err_set(err, CCT_ENOMEM, "out of memory"), -1;
    tl->frame_id[k] = (long long)tr->id[x];
    tl->frame_caller[k] = up > 0 && ft->index[up] ? ft->index[up] - 1 : -1;
    tl->nframes++;
    ft->index[x] = (int32_t)k + 1;
  }
  return ft->index[f] ? ft->index[f] - 1 : (cct_err_set(err, CCT_ECORRUPT, "a call stack deeper than 512 frames"), -1);
}

/* Fills tl->at: per drawn lane (lanes[k] of the traces for row r: order[r].i) and column, the innermost frame
 * sampled at the column's middle.  Returns CCT_OK or an error. */
static int timeline_frames(const qv *q, const qtraces *t, const lane_order *order, int64_t from, int64_t to,
                           cct_timeline *tl, cct_err *err) {
  frame_table ft = {calloc((size_t)q->r->tree.n, sizeof *ft.index), 0, 0, 0};
  tl->at = malloc(tl->nlanes * tl->ncols * sizeof *tl->at + 1);
  if (!ft.index || !tl->at) {
    free(ft.index);
    return cct_err_set(err, CCT_ENOMEM, "out of memory");
  }
  double colw = (double)(to - from) / (double)tl->ncols;
  int rc = CCT_OK;
  for (size_t r = 0; !rc && r < tl->nlanes; r++)
    for (size_t c = 0; c < tl->ncols; c++) {
      uint32_t node = lane_node_at(&t->lanes[order[r].i], from + (int64_t)((double)c * colw + colw / 2));
      int32_t f = node ? q->r->tree.frame[node] : 0;
      int k = f > 0 ? frame_index(q, tl, &ft, f, err) : -1;
      if (f > 0 && k < 0) {
        rc = err->code ? err->code : CCT_ENOMEM;
        break;
      }
      tl->at[r * tl->ncols + c] = k;
    }
  free(ft.index);
  return rc;
}

/* The center as a timeline names it: its label, and for a '#ID' center (the
 * TUI's 'c' on a lane makes one) what that context is too: 'main (#2)'.  New
 * string; NULL out of memory. */
static char *center_title(const qv *q) {
  const cct_center *c = q->c;
  if (!c->nitems) return q_strdup("<program root>");
  if (c->nitems != 1 || c->items[0].type != IT_CTX || c->nO != 1) return q_strdup(q_center_label(c));
  const qctx *o = &c->O[0];
  char *what = NULL;
  cct_err e = CCT_ERR_INIT; /* a name that cannot be read leaves the '#ID' alone */
  if (o->kind == CCT_KIND_LOOP || o->kind == CCT_KIND_LINE) {
    const char *p = NULL;
    const fninfo *f = NULL;
    long long line = q_ctx_scope_line(o);
    int shared = 0;
    if (!q_path(q, 0, o->file, &p, &e) && !q_function(q, o->function, &f, &e) &&
        !q_loop_shared(q, o->file, line, &shared, &e))
      what = q_scope_label(o->kind == CCT_KIND_LOOP, p, line, f ? f->name : NULL, shared);
  } else {
    const fninfo *f = NULL;
    if (!q_function(q, o->function, &f, &e) && f) what = q_strdup(f->name);
  }
  if (!what) return q_strdup(q_center_label(c));
  size_t n = strlen(what) + strlen(c->items[0].text) + 4;
  char *s = malloc(n);
  if (s) snprintf(s, n, "%s (%s)", what, c->items[0].text);
  free(what);
  return s;
}

int cct_timeline_compute(cct_query *s, size_t nlanes, size_t ncols, int over, cct_timeline **out, cct_err *err) {
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
    int64_t wfrom = w ? (int64_t)llround(w->from * 1e9) : 0, wto = w ? (int64_t)llround(w->to * 1e9) : t->span;
    if (wto <= wfrom) wto = wfrom + 1;
    int64_t from = over == CCT_TIMELINE_RUN ? 0 : wfrom, to = over == CCT_TIMELINE_RUN ? t->span : wto;
    if (to <= from) to = from + 1;
    tl->run = q.r->run;
    tl->from = (double)from * 1e-9;
    tl->to = (double)to * 1e-9;
    tl->span = (double)t->span * 1e-9;
    tl->windowed = w != NULL;
    tl->win_from = (double)wfrom * 1e-9;
    tl->win_to = (double)wto * 1e-9;
    tl->ncols = ncols;
    tl->total_lanes = t->nlanes;
    tl->center = center_title(&q);
    for (size_t k = 0; k < t->nlanes; k++) {
      ord[k].i = k;
      q_lane_time(&t->lanes[k], in, wfrom, wto, &ord[k].on, &ord[k].busy);
    }
    qsort(ord, t->nlanes, sizeof *ord, by_on);
    tl->nlanes = nlanes && nlanes < t->nlanes ? nlanes : t->nlanes;
    tl->label = calloc(tl->nlanes + 1, sizeof *tl->label);
    tl->lane = calloc(tl->nlanes + 1, sizeof *tl->lane);
    tl->on = calloc(tl->nlanes + 1, sizeof *tl->on);
    tl->busy = calloc(tl->nlanes + 1, sizeof *tl->busy);
    tl->frac = calloc(tl->nlanes * ncols + 1, sizeof *tl->frac);
    tl->busyfrac = calloc(tl->nlanes * ncols + 1, sizeof *tl->busyfrac);
    if (!tl->center || !tl->label || !tl->lane || !tl->on || !tl->busy || !tl->frac || !tl->busyfrac)
      rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
    for (size_t r = 0; !rc && r < tl->nlanes; r++) {
      const qlane *l = &t->lanes[ord[r].i];
      char buf[128];
      lane_label(l, buf, sizeof buf);
      if (!(tl->label[r] = q_strdup(buf))) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
      tl->lane[r] = l->lane;
      tl->on[r] = ord[r].on;
      tl->busy[r] = ord[r].busy;
      lane_columns(l, in, from, to, ncols, tl->frac + r * ncols, tl->busyfrac + r * ncols);
    }
    if (!rc) rc = timeline_frames(&q, t, ord, from, to, tl, err);
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
