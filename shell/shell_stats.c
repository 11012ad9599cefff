/* shell_stats.c: the result of 'stats': the distribution of the center's
 * inclusive value over profiles (cct_stats from the library), as a summary
 * per kind of profile (CPU threads, GPU streams), a histogram and one row per
 * profile, turned into a cct_result that format.c prints in any mode. */
#include "shell_int.h"

#include "cct_escape.h"
#include "cct_kinds.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ----------------------------------------------------------------- stats */

/* ', "count": N, "sum": ..., ..., "imbalance": ...' of a distribution (appended to h). */
static void json_dist(sqlite3_str *h, size_t count, const double v[6]) {
  static const char *const names[] = {"sum", "min", "max", "mean", "stddev", "imbalance"};
  sqlite3_str_appendf(h, ", \"count\": %lld", (long long)count);
  for (int k = 0; k < 6; k++) cct_json_number(h, names[k], v[k]);
}

/* A figure as the views print it (cct_out_value: whole numbers in full,
 * others with 3 significant digits). */
static const char *figure_text(char *buf, size_t n, double d) {
  return cct_out_value(buf, n, d, isfinite(d) && d == floor(d));
}

/* Bin k of bins equal bins from min to max: its low and high ends. */
static void bin_range(double min, double max, size_t bins, size_t k, double *lo, double *hi) {
  double width = (max - min) / (double)bins;
  *lo = min + width * (double)k;
  *hi = k + 1 == bins ? max : min + width * (double)(k + 1);
}

/* Edge x of a histogram printed with prec significant digits; 0: as views
 * print values, whole (all edges are), -1: as views print values. */
static const char *edge_text(char *buf, size_t n, double x, int prec) {
  if (prec <= 0) return cct_out_value(buf, n, x, prec == 0); /* one form for all edges */
  snprintf(buf, n, "%.*g", prec, x);
  return buf;
}

/* The digits that keep the neighbouring edges of d's bins apart: 0 or -1
 * (as views print values, whole or not) when 3 significant digits do, else
 * up to 12 ('0.131009 .. 0.131014' where '0.131 .. 0.131' would repeat). */
static int edge_digits(const cct_stats_dist *d, size_t bins) {
  int whole = 1;
  for (size_t k = 0; k < bins && whole; k++) {
    double lo, hi;
    bin_range(d->min, d->max, bins, k, &lo, &hi);
    whole = lo == floor(lo) && hi == floor(hi) && fabs(hi) < 1e15;
  }
  for (int prec = whole ? 0 : -1; prec <= 12; prec = prec <= 0 ? 4 : prec + 1) {
    int apart = 1;
    char a[40], b[40];
    for (size_t k = 0; k < bins && apart; k++) {
      double lo, hi;
      bin_range(d->min, d->max, bins, k, &lo, &hi);
      apart = strcmp(edge_text(a, sizeof a, lo, prec), edge_text(b, sizeof b, hi, prec)) != 0;
    }
    if (apart) return prec;
  }
  return 12;
}

/* One profile's identity as text ('node a8c01a67 rank 1 thread 0'). */
static void profile_id_text(const struct cct_stats_profile *pr, char *id, size_t size) {
  const char *names[] = {"node", "rank", "thread", "gpucontext", "gpustream"};
  long long ids[] = {pr->node, pr->rank, pr->thread, pr->gpucontext, pr->gpustream};
  size_t l = 0;
  id[0] = 0;
  for (int k = 0; k < 5; k++)
    if (ids[k] >= 0 && l < size)
      l += (size_t)snprintf(id + l, size - l, k ? "%s%s %lld" : "%s%s %llx", l ? " " : "", names[k],
                            ids[k]); /* the node is a host id: hex, as in HPCToolkit's file names */
}

/* The figures of one distribution (indented by ind, 2 blanks more than its
 * title): all zero, one profile, profiles all alike, or count .. imbalance;
 * unit names what the entries are ('profile', 'rank'). */
static void stats_figures(FILE *o, const cct_stats_dist *d, const char *ind, const char *unit) {
  static const char *const names[] = {"sum", "min", "max", "mean", "stddev", "imbalance"};
  const double v[] = {d->sum, d->min, d->max, d->mean, d->stddev, d->imbalance};
  char b[40];
  if (d->min == 0 && d->max == 0) {
    fprintf(o, "%s  all zero\n", ind);
  } else if (d->count == 1) {
    fprintf(o, "%s  value      %s (one %s)\n", ind, figure_text(b, sizeof b, d->sum), unit);
  } else if (d->min == d->max) {
    fprintf(o, "%s  sum        %s\n", ind, figure_text(b, sizeof b, d->sum));
    fprintf(o, "%s  each       %s (all %zu %ss alike)\n", ind, figure_text(b, sizeof b, d->min), d->count, unit);
  } else {
    for (int k = 0; k < 6; k++) fprintf(o, "%s  %-10s %s%s\n", ind, names[k], figure_text(b, sizeof b, v[k]), k == 5 ? " (max / mean)" : "");
  }
}

/* Whether a histogram of d says anything (its profiles are not all alike). */
static int has_histogram(const cct_stats_dist *d) { return d->count > 1 && d->min != d->max; }

/* The histogram of one distribution, its title indented by ind (none when
 * every profile has one value: ten bins of '0 .. 0' say nothing). */
static void stats_histogram(FILE *o, const cct_stats *s, const cct_stats_dist *d, const char *ind) {
  char lo[40], hi[40];
  if (!s->bins || !has_histogram(d)) return;
  size_t most = 1;
  for (size_t k = 0; k < s->bins; k++)
    if (d->histogram[k] > most) most = d->histogram[k];
  fprintf(o, "%shistogram (%zu bins):\n", ind, s->bins);
  int prec = edge_digits(d, s->bins);
  for (size_t k = 0; k < s->bins; k++) {
    double l, h;
    bin_range(d->min, d->max, s->bins, k, &l, &h);
    int bar = (int)(40.0 * (double)d->histogram[k] / (double)most + 0.5);
    fprintf(o, "%s  %14s .. %-14s %6zu %.*s\n", ind, edge_text(lo, sizeof lo, l, prec), edge_text(hi, sizeof hi, h, prec),
            d->histogram[k], bar, "########################################");
  }
}

/* ', "histogram": [{"low": .., "high": .., "count": ..}, ...]' of bins equal
 * bins from min to max (appended to h).  Returns 0, or -1 when out of memory. */
static int json_histogram(sqlite3_str *h, size_t bins, const size_t *count, double min, double max) {
  int rc = 0;
  sqlite3_str_appendall(h, ", \"histogram\": [");
  for (size_t k = 0; k < bins; k++) {
    double lo, hi;
    bin_range(min, max, bins, k, &lo, &hi);
    sqlite3_str *m = sqlite3_str_new(NULL);
    cct_json_number(m, "low", lo);
    cct_json_number(m, "high", hi);
    sqlite3_str_appendf(m, ", \"count\": %lld", (long long)count[k]);
    if (k) sqlite3_str_appendall(h, ", ");
    if (cct_json_object(h, m)) rc = -1;
  }
  sqlite3_str_appendchar(h, 1, ']');
  return rc;
}

/* Text written by fn(o, a, b, c, ind) into a new string (NULL when out of memory). */
static char *text_of(void (*fn)(FILE *, const cct_stats *, const cct_stats_dist *, const char *), const cct_stats *s,
                     const cct_stats_dist *d, const char *ind) {
  char *t = NULL;
  size_t n = 0;
  FILE *o = open_memstream(&t, &n);
  if (!o) return NULL;
  fn(o, s, d, ind);
  if (fclose(o)) {
    free(t);
    return NULL;
  }
  return t;
}

/* The summary above the profile list of tree/table: the center and the
 * profile count, the figures (per kind, with histograms, when the run has
 * both CPU threads and GPU streams), the list's heading. */
static void stats_summary(FILE *o, const cct_stats *s, const cct_stats_dist *only, const char *const *center,
                          size_t nc, int order, size_t top) {
  cct_out_text(o, s->metric ? s->metric : "?");
  fputs(" inclusive of ", o);
  if (!nc) fputs("the program", o);
  for (size_t i = 0; i < nc; i++) { /* items as typed: quoted ones keep their own quotes */
    int quoted = center[i][0] == '\'' || center[i][0] == '"';
    fputs(i ? ", " : "", o);
    if (!quoted) fputc('\'', o);
    cct_out_text(o, center[i]);
    if (!quoted) fputc('\'', o);
  }
  if (!s->count) { /* the note below says why */
    fputs(": no per-profile data\n", o);
    return;
  }
  size_t all = 0, ranked = 0;
  for (size_t i = 0; i < s->count; i++) all += (size_t)s->profiles[i].nprofiles, ranked += s->profiles[i].rank >= 0;
  const char *unit = order == CCT_STATS_RANK_SUMS && ranked ? "rank" : "profile";
  if (order == CCT_STATS_RANK_SUMS && !ranked) {
    fprintf(o, " over %zu profile%s (no MPI ranks: nothing to add up)\n", s->count, s->count == 1 ? "" : "s");
  } else if (order == CCT_STATS_RANK_SUMS) {
    fprintf(o, " over %zu rank%s (each the sum of its profiles; %zu profile%s)\n", s->count, s->count == 1 ? "" : "s",
            all, all == 1 ? "" : "s");
  } else {
    fprintf(o, " over %zu profile%s\n", s->count, s->count == 1 ? "" : "s");
  }
  if (only) {
    stats_figures(o, only, "", unit);
  } else { /* CPU threads and GPU streams apart: one imbalance over both would mean nothing */
    for (int k = 0; k < 2; k++) {
      fprintf(o, "%s%s (%zu):\n", k ? "GPU streams" : "CPU threads", order == CCT_STATS_RANK_SUMS ? " per rank" : "",
              s->kinds[k].count);
      stats_figures(o, &s->kinds[k], "  ", unit);
      stats_histogram(o, s, &s->kinds[k], "  ");
    }
  }
  if (order == CCT_STATS_BY_VALUE) fprintf(o, "top %zu:\n", top);
  else if (order == CCT_STATS_RANK_SUMS) fprintf(o, "%s:\n", ranked ? "ranks" : "profiles");
  else fprintf(o, "profiles by %s:\n", order == CCT_STATS_BY_RANK ? "rank, thread" : "thread");
}

/* Stats as a result: one row per profile (its ids, kind and value); the
 * distributions and the histogram are metadata (json members; in tree and
 * table the summary above the list of the top profiles, or of all of them
 * in order by rank or thread, and the histogram below it). */
static void stats_result(cct_result *r, const cct_stats *s, const cct_view_spec *spec, int order) {
  size_t nc = spec->center ? cct_center_size(spec->center) : 0, top = order == CCT_STATS_BY_VALUE && s->count > 5 ? 5 : s->count;
  const char **center = calloc(nc + 1, sizeof *center);
  cct_result_init(r, "stats");
  r->rows_key = "profiles";
  r->note = s->note;
  r->no_header = 1;
  r->text_rows = top;
  r->indent = 2;
  r->hide_empty = 1;
  if (!center) r->failed = 1;
  for (size_t i = 0; center && i < nc; i++) center[i] = cct_center_text(spec->center, i);
  int mixed = s->kinds[0].count && s->kinds[1].count;
  const cct_stats_dist *only = mixed ? NULL : &s->kinds[s->kinds[0].count ? 0 : 1];
  /* Metadata: the json members, the text above and below the list. */
  sqlite3_str *h = r->json_head;
  cct_result_context(r, spec->run, center, center ? nc : 0, -1);
  const cct_filter *fl = spec->filters;
  size_t nf = spec->nfilters;
  const char **ft = calloc(nf + 2, sizeof *ft); /* spec's filters and window, as views name them */
  for (size_t i = 0; ft && i < nf; i++)
    ft[i] = cct_result_keep(r, cct_filter_text(&fl[i]));
  const cct_window *win = s->metric && !strcmp(s->metric, CCT_TRACE_METRIC) ? spec->window : NULL;
  if (ft && win) ft[nf++] = cct_result_keep(r, cct_window_text(win));
  if (ft) cct_result_filters(r, ft, nf);
  else r->failed = 1;
  free(ft);
  if (win) cct_json_window(h, "window", win);
  cct_json_str(h, "metric", s->metric);
  cct_json_str(h, "note", s->note);
  cct_json_number(h, "program_sum", s->program_sum);
  cct_json_number(h, "program_total", s->program_total);
  sqlite3_str_appendall(h, ", \"kinds\": {");
  for (int k = 0, first = 1; k < 2; k++) {
    const cct_stats_dist *d = &s->kinds[k];
    if (!d->count) continue;
    sqlite3_str *m = sqlite3_str_new(NULL);
    json_dist(m, d->count, (double[]){d->sum, d->min, d->max, d->mean, d->stddev, d->imbalance});
    if (has_histogram(d) && json_histogram(m, s->bins, d->histogram, d->min, d->max)) /* as the text: none when all alike */
      r->failed = 1;
    sqlite3_str_appendf(h, "%s\"%s\": ", first ? "" : ", ", k ? "gpu" : "cpu");
    if (cct_json_object(h, m)) r->failed = 1;
    first = 0;
  }
  sqlite3_str_appendchar(h, 1, '}');
  json_dist(h, s->count, (double[]){s->sum, s->min, s->max, s->mean, s->stddev, s->imbalance});
  if (json_histogram(r->json_tail, s->bins, s->histogram, s->min, s->max)) r->failed = 1;
  char *t = NULL;
  size_t tn = 0;
  FILE *o = open_memstream(&t, &tn);
  if (o) stats_summary(o, s, only, center, center ? nc : 0, order, top);
  if (!o || fclose(o)) r->failed = 1;
  sqlite3_str_appendall(r->title, t ? t : ""); /* below the filters line */
  free(t);
  if (s->count && only) {
    char *tail = text_of(stats_histogram, s, only, "");
    if (!tail) r->failed = 1;
    else sqlite3_str_appendall(r->tail, tail);
    free(tail);
  }
  free(center);
  /* Columns: csv/json the ids, kind and value; tree/table 'profile 3', the
   * ids as text, the value, '(GPU)' in a run of both kinds. */
  static const char *const ids[] = {"node", "rank", "thread", "gpucontext", "gpustream"};
  cct_result_col(r, "profile", CCT_T_INT, CCT_ROLE_PLAIN, CCT_IN_DATA);
  for (int k = 0; k < 5; k++) cct_result_col(r, ids[k], CCT_T_INT, CCT_ROLE_PLAIN, CCT_IN_DATA);
  cct_result_col(r, "kind", CCT_T_TEXT, CCT_ROLE_PLAIN, CCT_IN_DATA);
  int np = order == CCT_STATS_RANK_SUMS ? cct_result_col(r, "profiles", CCT_T_INT, CCT_ROLE_PLAIN, CCT_IN_DATA) : -1;
  int value = cct_result_col(r, "value", CCT_T_REAL, CCT_ROLE_VALUE, CCT_IN_ALL);
  int label = cct_result_col(r, "label", CCT_T_TEXT, CCT_ROLE_PLAIN, CCT_IN_TEXT);
  int id = cct_result_col(r, "id", CCT_T_TEXT, CCT_ROLE_PLAIN, CCT_IN_TEXT);
  int gpu = cct_result_col(r, "gpu", CCT_T_TEXT, CCT_ROLE_PLAIN, CCT_IN_TEXT);
  cct_result_colp(r, label)->order = 0, cct_result_colp(r, id)->order = 1, cct_result_colp(r, value)->order = 2,
                     cct_result_colp(r, gpu)->order = 3;
  for (size_t i = 0; i < s->count && !r->failed; i++) {
    const struct cct_stats_profile *pr = &s->profiles[i];
    const long long v[] = {pr->node, pr->rank, pr->thread, pr->gpucontext, pr->gpustream};
    cct_cell *x = cct_result_row(r);
    if (!x) break;
    char idt[256];
    cct_cell_int(&x[0], pr->profile);
    for (int k = 0; k < 5; k++)
      if (v[k] >= 0) cct_cell_int(&x[1 + k], v[k]);
    cct_cell_text(&x[6], pr->kind ? "gpu" : "cpu");
    cct_cell_real(&x[value], pr->value);
    struct cct_stats_profile who = *pr;
    if (np >= 0) who.rank = -1; /* a rank's label names it */
    profile_id_text(&who, idt, sizeof idt);
    if (np >= 0) { /* a rank: its profiles added up */
      cct_cell_int(&x[np], pr->nprofiles);
      size_t l = strlen(idt);
      if (pr->nprofiles > 1) snprintf(idt + l, sizeof idt - l, " (%d profiles)", pr->nprofiles);
      if (pr->nprofiles > 1) x[0].null = 1; /* no one profile id */
    }
    cct_cell_text(&x[label], np >= 0 && pr->rank >= 0 ? cct_result_keepf(r, "rank %lld", pr->rank)
                                                           : cct_result_keepf(r, "profile %d", pr->profile));
    cct_cell_text(&x[id], cct_result_keep(r, strdup(idt)));
    if (mixed && pr->kind) cct_cell_text(&x[gpu], "(GPU)");
  }
}

int cct_out_stats(cct_shell *p, const cct_stats *s, const cct_view_spec *spec, FILE *f, int mode, int order) {
  cct_result r;
  stats_result(&r, s, spec, order);
  int rc = cct_out_result(p, &r, f, mode);
  cct_result_release(&r);
  return rc;
}


