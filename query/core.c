/* core.c: the view core's entry points (include/cct_query.h): a
 * cct_view_spec is bound to a computation (qv: the archive, the loaded run,
 * the center, the display column, granularity and threshold), the view is
 * computed inside one read transaction, and nothing else changes.  The
 * session (session.c) and every other client (diff, pictures, invariants,
 * the extension) compute their views through here. */
#include "query_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Appends column col to the columns q's views compute, once, while there is room. */
static void add_column(qv *q, size_t col) {
  for (size_t k = 0; k < q->nvcols; k++)
    if (q->vcols[k] == col) return;
  if (q->nvcols < CCT_VIEW_MAX_METRICS) q->vcols[q->nvcols++] = col;
}

int q_spec_bind(cct_query *s, const cct_view_spec *spec, qv *q, cct_err *err) {
  *q = (qv){.a = &s->a, .c = &q_no_center, .gran = CCT_GRAN_FUNCTION};
  int run = spec->run ? spec->run : s->r->run;
  int rc = q_run_get(&s->a, run, &q->r, err);
  if (!rc) rc = q_run_tree(&s->a, q->r, err);
  if (rc) return rc;
  q->shown_run = run;
  if (spec->nfilters) { /* the filtered copy of the run */
    if ((rc = q_filtered(&s->a, run, spec->filters, spec->nfilters, &q->r, &q->tree, err))) return rc;
    q->filters = spec->filters;
    q->nfilters = spec->nfilters;
  }
  if (spec->center && spec->center->nitems) {
    if (spec->center->run != run)
      return cct_err_set(err, CCT_EUSAGE, "the center was resolved in run %d, not in run %d", spec->center->run, run);
    if (spec->center->tree != q->tree)
      return cct_err_set(err, CCT_EUSAGE, "the center was resolved with other filters than the view's");
    q->c = spec->center;
  }
  if ((rc = q_metric_column(q->r, spec->metric, &q->disp, err))) return rc;
  /* the columns to compute: the display metric, the spec's columns, then (unless
   * only_display) the other 'sum' ones */
  q->nvcols = 0;
  if (q->r->ncols) add_column(q, q->disp);
  for (size_t i = 0; i < spec->ncolumns; i++) {
    size_t col;
    cct_err e = CCT_ERR_INIT;
    if (spec->columns[i] && !q_metric_column(q->r, spec->columns[i], &col, &e)) add_column(q, col); /* else not in this run */
  }
  for (size_t i = 0; !spec->only_display && i < q->r->nsum; i++) add_column(q, i);
  q->gran = spec->granularity == CCT_GRAN_LINE ? CCT_GRAN_LINE : CCT_GRAN_FUNCTION;
  double t = spec->threshold;
  q->threshold = t > 0 && t <= 1 ? t : t > 1 ? 1 : 0;
  q->hot = spec->view == CCT_VIEW_TOPDOWN && spec->hotpath > 0 ? (spec->hotpath < 1 ? spec->hotpath : 1) : 0;
  q->percent = spec->percent == CCT_PERCENT_CENTER ? CCT_PERCENT_CENTER : CCT_PERCENT_PROGRAM;
  q->sort = spec->sort >= CCT_SORT_INCLUSIVE && spec->sort <= CCT_SORT_NAME ? spec->sort : CCT_SORT_INCLUSIVE;
  if (q->sort == CCT_SORT_OCCURRENCES && spec->view != CCT_VIEW_FLAT && spec->view != CCT_VIEW_BOTTOMUP)
    return cct_err_set(err, CCT_EUSAGE, "only flat and bottomup rows sort by occurrences (their 'contexts' column); "
                                        "topdown siblings sort by inclusive, exclusive or name");
  return q_window_bind(q, spec->window, err);
}

/* Sets v->inlined, and the note unless v has one, when the top row of a topdown or
 * bottomup view of a function center leaves more exclusive cost of the display metric
 * (a stored one) to the frames inlined into its frames than it holds itself
 * (inlined.c). */
static int inlined_note(const qv *q, int view, cct_view *v, cct_err *err) {
  if ((view != CCT_VIEW_TOPDOWN && view != CCT_VIEW_BOTTOMUP) || !q->c->nitems || !v->nrows || !v->nmetrics ||
      !v->metrics[0] || strcmp(q->r->cols[q->disp].name, v->metrics[0]))
    return CCT_OK;
  double in = 0, own = v->rows[0].exclusive[0];
  int rc = q_center_inlined(q, q->disp, &in, err);
  if (rc || !(in > own + 1e-9 * fabs(in))) return rc;
  v->inlined = in;
  if (v->note) return CCT_OK;
  char b[512], num[48]; /* a whole value as an integer, as the views print it */
  snprintf(num, sizeof num, in == floor(in) && fabs(in) < 1e15 ? "%.0f" : "%.3g", in);
  snprintf(b, sizeof b, "%s's exclusive leaves out %s %s in the frames inlined into it (its code is inlined; "
           "hpcviewer's classic exclusive counts them)", v->rows[0].name, num, v->metrics[0]);
  return (v->note = q_strdup(b)) ? CCT_OK : cct_err_set(err, CCT_ENOMEM, "out of memory");
}

int cct_view_compute(cct_query *s, const cct_view_spec *user, cct_view **out, cct_err *err) {
  *out = NULL;
  qv q;
  qvm *plan = NULL; /* statistics and derived metrics: the engine computes their operands */
  q_begin(&s->a);
  int rc = q_vm_plan(s, user, &plan, err);
  const cct_view_spec *spec = rc ? user : q_vm_spec(plan);
  if (!rc) rc = q_spec_bind(s, spec, &q, err);
  if (!rc) rc = q_vm_bind(plan, &q, err);
  if (!rc) switch (spec->view) {
    case CCT_VIEW_TOPDOWN: rc = q_topdown(&q, spec->depth, out, err); break;
    case CCT_VIEW_BOTTOMUP: rc = q_bottomup(&q, spec->depth, out, err); break;
    case CCT_VIEW_FLAT: rc = q_flat(&q, spec->flat_kind, spec->flat_n, out, err); break;
    case CCT_VIEW_SOURCE: rc = q_source(&q, spec->file, spec->last, out, err); break;
    default: rc = cct_err_set(err, CCT_EUSAGE, "no view %d", spec->view);
    }
  if (!rc) rc = q_vm_finish(plan, *out, err);
  if (!rc) (*out)->nshown = q_vm_shown(plan) < (*out)->nmetrics ? q_vm_shown(plan) : (*out)->nmetrics;
  if (!rc) rc = inlined_note(&q, spec->view, *out, err);
  if (!rc && spec->drop_zero && spec->view != CCT_VIEW_SOURCE)
    rc = q_view_drop_zero(*out, q_vm_shown(plan), err); /* on the columns asked for: tree and csv alike */
  int view = spec->view; /* spec may live in plan */
  q_end(&s->a);
  q_vm_free(plan);
  if (rc) {
    cct_view_free(*out);
    *out = NULL;
  }
  cct_view *v = *out;
  if (!rc && v && !v->note && v->nmetrics && v->total[0] == 0 && view != CCT_VIEW_SOURCE) {
    /* Rows of zeros, or none, would otherwise look like a bug of the view. */
    char b[512];
    snprintf(b, sizeof b, "every value of '%s' is zero in run %d: 'metrics' lists the metrics with their totals",
             v->metrics[0], v->run);
    v->note = q_strdup(b);
    if (!v->note) {
      cct_view_free(v);
      *out = NULL;
      rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
    }
  }
  return rc;
}

int cct_stats_compute(cct_query *s, const cct_view_spec *spec, size_t bins, int order, cct_stats **out,
                      cct_err *err) {
  *out = NULL;
  qv q;
  if (q_vm_is_virtual(s, spec->run, spec->metric))
    return cct_err_set(err, CCT_EUSAGE, "'%s' is a statistic or derived metric, which has no per-profile values; "
                       "stats shows a stored metric ('metric' picks one)", spec->metric);
  q_begin(&s->a);
  int rc = q_spec_bind(s, spec, &q, err);
  if (!rc) rc = q_stats(&q, bins, order, out, err);
  q_end(&s->a);
  return rc;
}

/* A center computation for run (0: the session's), in the tree the session's filters make
 * of it (a center is resolved in the tree its views read; metric and the other settings do
 * not change a center). */
static int bind_run(cct_query *s, int run, qv *q, cct_err *err) {
  cct_view_spec spec = {.view = CCT_VIEW_TOPDOWN, .run = run, .filters = s->filters, .nfilters = s->nfilters};
  return q_spec_bind(s, &spec, q, err);
}

int cct_center_edit(cct_query *s, int run, const cct_center *base, int op, const char *item, const cct_view *last,
                    cct_center **out, cct_err *err) {
  *out = NULL;
  qv q;
  q_begin(&s->a);
  int rc = bind_run(s, run, &q, err);
  if (!rc && base && base->nitems && base->run != q.r->run)
    rc = cct_err_set(err, CCT_EUSAGE, "the center was resolved in run %d, not in run %d", base->run, q.r->run);
  if (!rc && last && last->run != q.r->run && item && item[strspn(item, " \t")] == '@')
    rc = cct_err_set(err, CCT_EUSAGE, "the last view is of run %d, not of run %d", last->run, q.r->run);
  if (!rc) rc = q_center_edit(&q, base, op, item, last ? q_view_facts(last) : NULL, last ? last->nrows : 0, out, err);
  q_end(&s->a);
  return rc;
}

int cct_center_rerun(cct_query *s, const cct_center *c, int run, cct_center **out, char **missing, cct_err *err) {
  *out = NULL;
  qv q;
  q_begin(&s->a);
  int rc = bind_run(s, run, &q, err);
  if (!rc) rc = q_center_rerun(&q, c ? c : &q_no_center, out, missing, err);
  q_end(&s->a);
  return rc;
}
