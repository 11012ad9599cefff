/* shell_output.c: the results of the cctq shell's commands.  Each command's
 * value from the library - a view, a diff, stats, a statement, the center
 * listing - is turned here into a cct_result (columns with roles, metadata)
 * that the formatters of format.c print in the current mode; nothing here
 * writes output itself. */
#include "shell_int.h"

#include "cct_escape.h"
#include "cct_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *kind_name(int kind) {
  static const char *const names[] = {"root", "function", "loop", "line", "instruction", "center", "file", "module"};
  return kind >= 0 && kind < 8 ? names[kind] : "unknown";
}

/* -------------------------------------------------------------- builders */

char *cct_out_members(const char *const *items, size_t n) {
  if (n < 2) return NULL;
  sqlite3_str *b = sqlite3_str_new(NULL);
  sqlite3_str_appendf(b, "%s + %s", items[0], items[1]);
  if (n == 3) sqlite3_str_appendf(b, " + %s", items[2]);
  if (n > 3) sqlite3_str_appendf(b, " (+%lld)", (long long)(n - 2));
  return cct_str_take(b);
}

/* A file the database names but does not know (classic '~unknown-file~'). */
static int known_file(const char *f) { return f && strcmp(f, "~unknown-file~"); }

/* Whether cct_out_label(r, dup, suffix, members) is r's name alone (no tag to add). */
static int label_is_name(const cct_row *r, int dup, const char *suffix, const char *members) {
  return !dup && !suffix && !r->callsite && !r->inlined && !(members && r->kind == CCT_ROW_CENTER);
}

char *cct_out_label(const cct_row *r, int dup, const char *suffix, const char *members) {
  if (label_is_name(r, dup, suffix, members)) return strdup(r->name ? r->name : "?");
  sqlite3_str *b = sqlite3_str_new(NULL);
  if (members && r->kind == CCT_ROW_CENTER) {
    sqlite3_str_appendf(b, "%s%s", members, suffix ? suffix : "");
    return cct_str_take(b);
  }
  int file = (dup & CCT_DUP_FILE) && known_file(r->file), mod = ((dup & CCT_DUP_MODULE) || (dup && !file)) && r->module;
  sqlite3_str_appendall(b, r->name ? r->name : "?");
  if (r->callsite) sqlite3_str_appendf(b, " @ %s", r->callsite);
  if (r->inlined) sqlite3_str_appendall(b, " [inlined]");
  if (file) sqlite3_str_appendf(b, " (%s", cct_basename(r->file));
  if (file && r->line >= 0) sqlite3_str_appendf(b, ":%lld", r->line);
  if (mod) sqlite3_str_appendf(b, "%s%s", file ? ", " : " (", cct_basename(r->module));
  if (file || mod) sqlite3_str_appendchar(b, 1, ')');
  if (suffix) sqlite3_str_appendall(b, suffix);
  return cct_str_take(b);
}

/* The location column of table mode: 'file.c:12', 'file.c' or the module's base name. */
static char *row_location(const cct_row *r) {
  if (r->file && r->line >= 0) {
    sqlite3_str *b = sqlite3_str_new(NULL);
    sqlite3_str_appendf(b, "%s:%lld", cct_basename(r->file), r->line);
    return cct_str_take(b);
  }
  if (r->file) return strdup(cct_basename(r->file));
  if (r->module) return strdup(cct_basename(r->module));
  return NULL;
}

/* A function row with its sort key (no sort context outside the array). */
typedef struct nkey {
  const cct_row *r;
  size_t row;
} nkey;

static int cmp_text(const char *a, const char *b) { return a ? b ? strcmp(a, b) : 1 : b ? -1 : 0; }

/* The place of a function's definition: its known file and its line. */
static int cmp_place(const cct_row *x, const cct_row *y) {
  int c = cmp_text(known_file(x->file) ? x->file : NULL, known_file(y->file) ? y->file : NULL);
  return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* Name, place, module, row. */
static int cmp_identity(const void *a, const void *b) {
  const nkey *x = a, *y = b;
  int c = strcmp(x->r->name, y->r->name);
  if (!c) c = cmp_place(x->r, y->r);
  if (!c) c = cmp_text(x->r->module, y->r->module);
  return c ? c : (x->row > y->row) - (x->row < y->row);
}

int cct_out_dups(const cct_view *v, unsigned char *dup) {
  nkey *idx = malloc((v->nrows + 1) * sizeof *idx);
  uint64_t *hash = malloc((v->nrows + 1) * sizeof *hash);
  cct_hmap m = CCT_HMAP_INIT(1); /* name hash -> first row with it << 1 | 1 when a row of another identity has it */
  size_t n = 0;
  int rc = idx && hash ? 0 : -1;
  /* Only the rows whose name hash is shared by two identities can be homonyms: the
   * others (most rows: a function repeated under many callers is one identity) are
   * left out of the sort. */
  for (size_t i = 0; !rc && i < v->nrows; i++) {
    const cct_row *r = &v->rows[i];
    if (r->kind != CCT_ROW_FUNCTION || !r->name) continue;
    int64_t h = (int64_t)(hash[i] = cct_hash_str(r->name));
    int added;
    int64_t *slot = cct_hmap_put(&m, &h, (int64_t)i << 1, &added);
    if (!slot) rc = -1;
    else if (!added && !(*slot & 1)) {
      nkey a = {&v->rows[*slot >> 1], 0}, b = {r, 0};
      if (cmp_identity(&a, &b)) *slot |= 1;
    }
  }
  for (size_t i = 0; !rc && i < v->nrows; i++) {
    const cct_row *r = &v->rows[i];
    if (r->kind != CCT_ROW_FUNCTION || !r->name) continue;
    int64_t h = (int64_t)hash[i];
    const int64_t *slot = cct_hmap_get(&m, &h);
    if (slot && (*slot & 1)) idx[n++] = (nkey){r, i};
  }
  cct_hmap_release(&m);
  free(hash);
  if (rc) {
    free(idx);
    return -1;
  }
  qsort(idx, n, sizeof *idx, cmp_identity);
  /* In each group of homonyms (sorted by place, then module): places differ somewhere, so
   * each row names its place; within one place modules differ, so those rows name it. */
  for (size_t g = 0, e; g < n; g = e) {
    for (e = g + 1; e < n && !strcmp(idx[e].r->name, idx[g].r->name); e++) {}
    int places = cmp_place(idx[g].r, idx[e - 1].r) != 0;
    for (size_t p = g, q; p < e; p = q) {
      for (q = p + 1; q < e && !cmp_place(idx[q].r, idx[p].r); q++) {}
      int modules = cmp_text(idx[p].r->module, idx[q - 1].r->module) != 0;
      for (size_t i = p; i < q; i++)
        dup[idx[i].row] |= (unsigned char)((places ? CCT_DUP_FILE : 0) | (modules ? CCT_DUP_MODULE : 0));
    }
  }
  free(idx);
  return 0;
}

/* The columns every row of a view or diff has, in csv order: handle, (diff:
 * other_handle), depth, (diff: status), kind .. center.  Returns the index of
 * 'kind', where row_cells starts. */
static int row_cols(cct_result *r, int src, int diff) {
  cct_result_col(r, "handle", CCT_T_INT, CCT_ROLE_HANDLE, CCT_IN_ALL);
  if (diff) cct_result_col(r, "other_handle", CCT_T_INT, CCT_ROLE_PLAIN, CCT_IN_DATA);
  int in = src ? CCT_IN_DATA : CCT_IN_TABLE | CCT_IN_DATA;
  cct_result_colp(r, cct_result_col(r, "depth", CCT_T_INT, CCT_ROLE_DEPTH, in))->order = 3;
  if (diff) cct_result_colp(r, cct_result_col(r, "status", CCT_T_TEXT, CCT_ROLE_PLAIN, in))->order = 4;
  int kind = r->path_col = cct_result_col(r, "kind", CCT_T_TEXT, CCT_ROLE_PLAIN, CCT_IN_DATA);
  r->name_col = cct_result_col(r, "name", CCT_T_TEXT, CCT_ROLE_PLAIN, CCT_IN_DATA);
  cct_result_col(r, "inlined", CCT_T_BOOL, CCT_ROLE_PLAIN, CCT_IN_DATA);
  cct_result_col(r, "file", CCT_T_TEXT, CCT_ROLE_PLAIN, CCT_IN_DATA);
  cct_result_colp(r, cct_result_col(r, "line", CCT_T_INT, CCT_ROLE_PLAIN, src ? CCT_IN_ALL : CCT_IN_DATA))->order = 2;
  cct_result_col(r, "module", CCT_T_TEXT, CCT_ROLE_PLAIN, CCT_IN_DATA);
  cct_result_col(r, "callsite", CCT_T_TEXT, CCT_ROLE_PLAIN, CCT_IN_DATA);
  cct_col *c =
      cct_result_colp(r, cct_result_col(r, "center", CCT_T_BOOL, CCT_ROLE_MARK, src ? CCT_IN_DATA : CCT_IN_ALL));
  c->title = "*", c->order = 50;
  return kind;
}

/* Fills the columns kind .. center (from index kind) of row x with w. */
static void row_cells(cct_cell *x, int kind, const cct_row *w) {
  x += kind;
  cct_cell_text(&x[0], kind_name(w->kind));
  cct_cell_text(&x[1], w->name ? w->name : "");
  cct_cell_bool(&x[2], w->inlined);
  cct_cell_text(&x[3], w->file);
  if (w->line >= 0) cct_cell_int(&x[4], w->line);
  cct_cell_text(&x[5], w->module);
  cct_cell_text(&x[6], w->callsite);
  cct_cell_bool(&x[7], w->center);
}

/* The tree/table columns of a view or diff row: its label (the name column)
 * and, in table mode, its location.  Returns the label's index (the location's - 1). */
static int label_cols(cct_result *r) {
  int label = cct_result_col(r, "name", CCT_T_TEXT, CCT_ROLE_NAME, CCT_IN_TEXT);
  cct_result_colp(r, label)->order = 60;
  cct_result_colp(r, cct_result_col(r, "location", CCT_T_TEXT, CCT_ROLE_PLAIN, CCT_IN_TABLE))->order = 70;
  return label;
}

/* Fills the columns of label_cols (from index label) of row x with w: the
 * location only when loc (table mode shows it, no other).  A label that is
 * the row's name alone points at it (w outlives r): no copy per row. */
static void label_cells(cct_result *r, cct_cell *x, int label, const cct_row *w, int dup, const char *suffix,
                        const char *members, int loc) {
  if (label_is_name(w, dup, suffix, members))
    cct_cell_text(&x[label], w->name ? w->name : "?"); /* what cct_out_label makes of it */
  else
    cct_cell_text(&x[label], cct_result_keep(r, cct_out_label(w, dup, suffix, members)));
  if (loc) cct_cell_text(&x[label + 1], cct_result_keep(r, row_location(w)));
}

/* Whether a result printed in mode (CCT_MODE_*) shows the location column
 * (CCT_IN_TABLE: table mode, and folded mode, which prints a result without
 * folded columns as a table). */
static int shows_location(int mode) { return mode == CCT_MODE_TABLE || mode == CCT_MODE_FOLDED; }

/* Folded column k: the inclusive column incl (exclusive at incl + 1) of a
 * tree, self values (children's inclusive subtracted), or of a flat view its
 * exclusive. */
static void fold_col(cct_result *r, int k, int incl, int flat) {
  r->fold_value[k] = incl + (flat ? 1 : 0);
  r->fold_sub[k] = flat ? -1 : incl;
  r->nfold = k + 1;
}

/* The title of a source view (tree/table): the file, the center's lines (the
 * first and last marked '>'), and, without a stored copy, the note at once,
 * not after hundreds of bare numbers (issue 27 item 6). */
static void source_title(cct_result *r, const cct_view *v) {
  long long lo = -1, hi = -1;
  for (size_t i = 0; i < v->nrows; i++)
    if (v->rows[i].mark && v->rows[i].line > 0) {
      if (lo < 0 || v->rows[i].line < lo) lo = v->rows[i].line;
      if (v->rows[i].line > hi) hi = v->rows[i].line;
    }
  char *e = cct_escape_dup(v->rows[0].file ? v->rows[0].file : "?", CCT_ESC_TERM);
  sqlite3_str_appendf(r->title, "source: %s", e ? e : "?");
  if (lo > 0 && lo == hi) sqlite3_str_appendf(r->title, ", the center's line %lld", lo);
  else if (lo > 0) sqlite3_str_appendf(r->title, ", the center's lines %lld-%lld", lo, hi);
  sqlite3_str_appendchar(r->title, 1, '\n');
  free(e);
  if (!v->rows[0].text && v->note) {
    char *n = cct_escape_dup(v->note, CCT_ESC_TERM);
    sqlite3_str_appendf(r->title, "note: %s\n", n ? n : "?");
    free(n);
    r->note = NULL; /* said above the rows */
  }
}

/* Says below a topdown's grid which rows are its hot path and that they use no
 * level of the depth (nothing when the hot path is the top row alone or off);
 * json '"hotpath": F' (the fraction, 0 for off). */
static void hot_path_tail(cct_result *r, const cct_view *v) {
  sqlite3_str_appendf(r->json_head, ", \"hotpath\": %g", v->hotpath);
  size_t n = 0, last = 0;
  for (size_t i = 1; i < v->nrows; i++)
    if (v->rows[i].hot) n++, last = i;
  if (!n) return;
  sqlite3_str_appendall(r->tail, "hot path: ");
  for (size_t i = 0, k = 0; i <= last; i++) {
    if (!v->rows[i].hot) continue;
    if (k < 2 || i == last) sqlite3_str_appendf(r->tail, "%s@%d", k ? " > " : "", v->rows[i].handle);
    else if (k == 2) sqlite3_str_appendall(r->tail, " > ...");
    k++;
  }
  sqlite3_str_appendf(r->tail, " (each >= %g%% of its parent) uses no depth\n", v->hotpath * 100);
}

/* Says how many rows of zero cost the view left out (q_view_drop_zero): tree and
 * table a line below the rows (none when none), json '"zero_rows": N', csv the
 * column 'zero rows left out' (the same N on every row). */
static int zero_rows(cct_result *r, const cct_view *v) {
  sqlite3_str_appendf(r->json_head, ", \"zero_rows\": %lld", (long long)v->zero_rows);
  int c = cct_result_col(r, "zero rows left out", CCT_T_INT, CCT_ROLE_PLAIN, CCT_IN_CSV);
  cct_result_colp(r, c)->order = 99;
  if (!v->zero_rows) return c;
  sqlite3_str_appendf(r->tail, "(%lld row%s of zero cost left out: every value shown is 0)\n", (long long)v->zero_rows,
                      v->zero_rows == 1 ? "" : "s");
  return c;
}

/* A view as a result: the row columns, per metric inclusive and exclusive
 * (grouped under the metric name, % of the program total), the label and the
 * location (tree/table); the source view adds the mark and the line's text. */
static void view_result(cct_result *r, const cct_view *v, int loc) {
  int src = !strcmp(v->view, "source"), flat = !strcmp(v->view, "flat");
  unsigned char *dup = calloc(v->nrows + 1, 1);
  cct_result_init(r, v->view);
  r->empty_text = "(no rows)";
  r->note = v->note;
  r->nshown = v->nshown;
  if (!dup || cct_out_dups(v, dup)) r->failed = 1;
  const char *members = cct_result_keep(r, cct_out_members(v->center, v->ncenter));
  cct_result_context(r, v->run, v->center, v->ncenter, v->granularity);
  cct_result_filters(r, v->filters, v->nfilters);
  if (v->window) cct_json_window(r->json_head, "window", v->window);
  if (v->note) cct_json_str(r->json_head, "note", v->note);
  if (src && v->nrows) source_title(r, v);
  int kind = row_cols(r, src, 0);
  int first = (int)r->ncols, shares = src && v->nrows && v->rows[0].share, per = shares ? 3 : 2;
  for (size_t m = 0; m < v->nmetrics; m++) {
    for (int k = 0; k < per; k++) { /* inclusive, exclusive, and in a centered source view the center's share */
      cct_col *c = cct_result_colp(r, cct_result_col(r,
                                                     k == 2 ? "center"
                                                     : k    ? "exclusive"
                                                            : "inclusive",
                                                     CCT_T_REAL, CCT_ROLE_VALUE, CCT_IN_ALL));
      c->group = c->span = v->metrics[m];
      c->metric = (int)m;
      c->base = k == 2 ? 0 : v->base ? v->base[m] : v->total ? v->total[m] : 0;
      if (v->percent == CCT_PERCENT_CENTER && m == 0) { /* say what the percentages are of */
        c->span = cct_result_keepf(r, "%s, %% of the center", v->metrics[m]);
        if (k == 0) c->title = "inclusive % center";
      }
      c->order = 10;
    }
  }
  int mark = -1, text = -1, label = -1, occ = -1, hot = -1;
  if (v->hotpath > 0 && v->nrows) /* topdown: which rows are the hot path (csv, json) */
    cct_result_colp(r, hot = cct_result_col(r, "hot", CCT_T_BOOL, CCT_ROLE_PLAIN, CCT_IN_DATA))->order = 55;
  for (size_t i = 0; i < v->nrows && occ < 0; i++)
    if (v->rows[i].occurrences >= 0) { /* flat functions, loops, lines: how many contexts add up */
      cct_col *c = cct_result_colp(r, occ = cct_result_col(r, "contexts", CCT_T_INT, CCT_ROLE_PLAIN, CCT_IN_ALL));
      c->order = 50;
    }
  int inl = -1; /* the top row's cost in frames inlined into the center (the note says it in tree and table) */
  if (v->inlined > 0 && v->nrows)
    cct_result_colp(r, inl = cct_result_col(r, "inlined_exclusive", CCT_T_REAL, CCT_ROLE_PLAIN, CCT_IN_DATA))->order = 55;
  int zero = !src && v->nmetrics ? zero_rows(r, v) : -1; /* csv: the last column */
  if (src) {
    cct_col *c = cct_result_colp(r, mark = cct_result_col(r, "mark", CCT_T_BOOL, CCT_ROLE_MARK, CCT_IN_ALL));
    c->title = ">", c->order = 1;
    cct_result_colp(r, text = cct_result_col(r, "text", CCT_T_TEXT, CCT_ROLE_NAME, CCT_IN_ALL))->order = 60;
  } else {
    r->fold_name_col = label = label_cols(r); /* homonyms stay apart in flame graphs too */
    fold_col(r, 0, first, flat);
  }
  cct_result_reserve(r, v->nrows);
  for (size_t i = 0; i < v->nrows && !r->failed; i++) {
    const cct_row *w = &v->rows[i];
    cct_cell *x = cct_result_row(r);
    if (!x) break;
    r->bold[r->nrows - 1] = (unsigned char)w->center;
    if (w->handle) cct_cell_int(&x[0], w->handle);
    cct_cell_int(&x[1], w->depth);
    row_cells(x, kind, w);
    for (size_t m = 0; m < v->nmetrics; m++) {
      cct_cell_real(&x[first + per * (int)m], w->inclusive[m]);
      cct_cell_real(&x[first + per * (int)m + 1], w->exclusive[m]);
      if (shares && w->share) cct_cell_real(&x[first + per * (int)m + 2], w->share[m]);
    }
    if (occ >= 0 && w->occurrences >= 0) cct_cell_int(&x[occ], w->occurrences);
    if (inl >= 0 && i == 0) cct_cell_real(&x[inl], v->inlined);
    if (hot >= 0) cct_cell_bool(&x[hot], w->hot);
    if (zero >= 0) cct_cell_int(&x[zero], (long long)v->zero_rows);
    if (src) {
      cct_cell_bool(&x[mark], w->mark);
      cct_cell_text(&x[text], w->text);
    } else {
      label_cells(r, x, label, w, dup ? dup[i] : 0, NULL, members, loc);
    }
  }
  free(dup);
  if (!strcmp(v->view, "topdown")) hot_path_tail(r, v);
}

static const char *status_name(int s) {
  return s == CCT_DIFF_ADDED ? "added" : s == CCT_DIFF_REMOVED ? "removed" : "both";
}

/* Appends " 'title'" to t (nothing for NULL). */
static void append_title(sqlite3_str *t, const char *title) {
  if (!title) return;
  char *e = cct_escape_dup(title, CCT_ESC_TERM);
  sqlite3_str_appendf(t, " '%s'", e ? e : "?");
  free(e);
}

/* A diff as a result: the row columns of the base (or added) row, the status,
 * and per metric the six values of both runs (the display metric in tree and
 * table: inclusive of both runs with % of each run's total, the change, then
 * the exclusive values and their change). */
static void diff_result(cct_result *r, const cct_diff *d, int loc) {
  cct_result_init(r, "diff");
  const char *members = cct_result_keep(r, cct_out_members(d->center, d->ncenter));
  r->empty_text = "(no rows)";
  r->note = d->note;
  r->nshown = d->nshown;
  sqlite3_str *t = r->title;
  /* The title: 'diff topdown 3: run 1 'a' -> run 2 'b', METRIC[, sorted by change]'. */
  sqlite3_str_appendf(t, "diff %s", d->view);
  if (strcmp(d->view, "flat")) sqlite3_str_appendf(t, " %d", d->depth);
  sqlite3_str_appendf(t, ": run %d", d->run);
  char side[2][64]; /* the columns' titles: 'run 1', or a window '0-1.5 s' */
  for (int k = 0; k < 2; k++) {
    if (d->windows) snprintf(side[k], sizeof side[k], "%.4g-%.4g s", d->windows[k].from, d->windows[k].to);
    else snprintf(side[k], sizeof side[k], "run %d", k ? d->other_run : d->run);
  }
  append_title(t, d->title);
  if (d->windows) { /* 'run 1 'a' window 0 s - 2 s -> window 2 s - 4 s' */
    sqlite3_str_appendf(t, " window %.6g s - %.6g s -> window %.6g s - %.6g s", d->windows[0].from, d->windows[0].to,
                        d->windows[1].from, d->windows[1].to);
  } else {
    sqlite3_str_appendf(t, " -> run %d", d->other_run);
    append_title(t, d->other_title);
  }
  if (d->nmetrics) {
    char *e = cct_escape_dup(d->metrics[0], CCT_ESC_TERM);
    sqlite3_str_appendf(t, ", %s", e ? e : "?");
    free(e);
  }
  static const char *const sorts[] = {"inclusive", "exclusive", "occurrences", "name"}; /* CCT_SORT_* */
  const char *sort = d->sort_change ? "change" : d->sort > 0 && d->sort <= CCT_SORT_NAME ? sorts[d->sort] : NULL;
  if (sort) sqlite3_str_appendf(t, ", sorted by %s", sort);
  sqlite3_str_appendchar(t, 1, '\n');
  if (d->base_view) cct_result_filters(r, d->base_view->filters, d->base_view->nfilters);
  /* JSON members. */
  sqlite3_str *h = r->json_head;
  cct_json_str(h, "of", d->view);
  if (strcmp(d->view, "flat")) sqlite3_str_appendf(h, ", \"depth\": %d", d->depth);
  sqlite3_str_appendf(h, ", \"base_run\": %d", d->run);
  cct_result_context(r, d->other_run, NULL, 0, -1);
  cct_json_str(h, "base_title", d->title);
  cct_json_str(h, "title", d->other_title);
  for (int k = 0; d->windows && k < 2; k++) cct_json_window(h, k ? "window" : "base_window", &d->windows[k]);
  cct_result_context(r, 0, d->center, d->ncenter, d->granularity);
  cct_json_str(h, "sort", sort ? sort : "inclusive");
  sqlite3_str_appendall(h, ", \"metrics\": [");
  for (size_t m = 0; m < d->nmetrics; m++) {
    sqlite3_str *o = sqlite3_str_new(NULL);
    cct_json_str(o, "name", d->metrics[m]);
    cct_json_str(o, "unit", d->units ? d->units[m] : NULL);
    cct_json_str(o, "other_name", d->other_metrics[m]);
    cct_json_str(o, "other_unit", d->other_units ? d->other_units[m] : NULL);
    cct_json_number(o, "scale", d->scale[m]);
    cct_json_number(o, "total", d->total[m]);
    cct_json_number(o, "other_total", d->other_total[m]);
    if (m) sqlite3_str_appendall(h, ", ");
    if (cct_json_object(h, o)) r->failed = 1;
  }
  sqlite3_str_appendchar(h, 1, ']');
  if (d->note) cct_json_str(h, "note", d->note);
  /* Columns. */
  int kind = row_cols(r, 0, 1);
  enum { NV = 7 }; /* values per metric: both runs' inclusive and exclusive, the changes, the relative change */
  static const char *const keys[NV] = {"inclusive", "exclusive", "other_inclusive", "other_exclusive", "change",
                                       "exclusive_change", "relative_change"};
  static const int orders[NV] = {10, 14, 11, 15, 12, 16, 13};
  static const int ins[NV] = {CCT_IN_ALL, CCT_IN_TABLE | CCT_IN_DATA, CCT_IN_ALL, CCT_IN_TABLE | CCT_IN_DATA,
                              CCT_IN_ALL, CCT_IN_ALL, CCT_IN_ALL};
  int first = (int)r->ncols;
  const char *titles[NV] = {cct_result_keep(r, strdup(side[0])),
                            cct_result_keep(r, strdup(side[0])),
                            cct_result_keep(r, strdup(side[1])),
                            cct_result_keep(r, strdup(side[1])),
                            "change",
                            "change",
                            "change %"};
  for (size_t m = 0; m < d->nmetrics; m++) {
    const char *span[2] = {"inclusive", "exclusive"};
    if (m) {
      span[0] = cct_result_keepf(r, "%s inclusive", d->metrics[m]);
      span[1] = cct_result_keepf(r, "%s exclusive", d->metrics[m]);
    }
    for (int k = 0; k < NV; k++) {
      int role = k == 6 ? CCT_ROLE_RELATIVE : k >= 4 ? CCT_ROLE_CHANGE : CCT_ROLE_VALUE;
      cct_col *c = cct_result_colp(r, cct_result_col(r, keys[k], CCT_T_REAL, role, ins[k]));
      c->group = d->metrics[m];
      c->title = titles[k];
      c->span = span[k == 1 || k == 3 || k == 5];
      c->metric = (int)m;
      c->order = orders[k] + 10 * (int)m;
      if (k == 0) c->base = d->total ? d->total[m] : 0;
      if (k == 2) c->base = d->other_total ? d->other_total[m] : 0;
    }
  }
  int label = label_cols(r), flat = !strcmp(d->view, "flat");
  fold_col(r, 0, first, flat);
  fold_col(r, 1, first + 2, flat);
  for (size_t i = 0; i < d->nrows && !r->failed; i++) {
    const cct_diff_row *dr = &d->rows[i];
    cct_cell *x = cct_result_row(r);
    if (!x) break;
    r->bold[r->nrows - 1] = (unsigned char)dr->row->center;
    if (dr->handle) cct_cell_int(&x[0], dr->handle);
    if (dr->other_handle) cct_cell_int(&x[1], dr->other_handle);
    cct_cell_int(&x[2], dr->depth);
    cct_cell_text(&x[3], status_name(dr->status));
    row_cells(x, kind, dr->row);
    for (size_t m = 0; m < d->nmetrics; m++) {
      const double v[NV] = {dr->inclusive[m], dr->exclusive[m],        dr->other_inclusive[m], dr->other_exclusive[m],
                            dr->change[m],    dr->exclusive_change[m], dr->relative[m]};
      for (int k = 0; k < NV; k++)
        if (k < 6 || isfinite(v[k])) cct_cell_real(&x[first + NV * (int)m + k], v[k]); /* no relative: null */
    }
    const char *suffix =
        dr->status == CCT_DIFF_ADDED ? " (added)" : dr->status == CCT_DIFF_REMOVED ? " (removed)" : NULL;
    label_cells(r, x, label, dr->row, 0, suffix, members, loc);
  }
}

/* ------------------------------------------------------------ entry points */

int cct_out_view_to(cct_shell *p, const cct_view *v, FILE *f, int mode) {
  cct_result r;
  view_result(&r, v, shows_location(f ? mode : p->mode));
  int rc = cct_out_result(p, &r, f, mode);
  cct_result_release(&r);
  return rc;
}

int cct_out_view(cct_shell *p, const cct_view *v) { return cct_out_view_to(p, v, NULL, 0); }

int cct_out_diff(cct_shell *p, const cct_diff *d, FILE *f, int mode) {
  cct_result r;
  diff_result(&r, d, shows_location(f ? mode : p->mode));
  int rc = cct_out_result(p, &r, f, mode);
  cct_result_release(&r);
  return rc;
}

int cct_out_center(cct_shell *p) {
  size_t n = cct_center_count(p->q);
  cct_result r;
  cct_result_init(&r, "center");
  r.rows_key = "items";
  r.empty_text = "no center (views start at the program root)";
  cct_result_context(&r, cct_query_run(p->q), NULL, 0, -1);
  cct_result_col(&r, "item", CCT_T_TEXT, CCT_ROLE_PLAIN, CCT_IN_DATA);
  cct_result_col(&r, "occurrences", CCT_T_INT, CCT_ROLE_PLAIN, CCT_IN_DATA);
  cct_result_col(&r, "center", CCT_T_TEXT, CCT_ROLE_NAME, CCT_IN_TEXT); /* 'ITEM  (N occurrences)' */
  r.no_header = 1;
  for (size_t i = 0; i < n; i++) {
    cct_cell *x = cct_result_row(&r);
    if (!x) break;
    long long c = cct_center_occurrences(p->q, i);
    cct_cell_text(&x[0], cct_center_item(p->q, i));
    cct_cell_int(&x[1], c);
    cct_cell_text(&x[2], cct_result_keepf(&r, "%s  (%lld occurrence%s)", cct_center_item(p->q, i), c, c == 1 ? "" : "s"));
  }
  int rc = cct_out_result(p, &r, NULL, 0);
  cct_result_release(&r);
  return rc;
}

int cct_out_empty(cct_shell *p, const char *view, const char *message) {
  cct_view v;
  memset(&v, 0, sizeof v);
  v.view = view, v.run = cct_query_run(p->q), v.granularity = cct_query_granularity(p->q), v.note = message;
  cct_result r;
  view_result(&r, &v, 1);
  r.no_header = 1, r.empty_text = message, r.note = NULL;
  int rc = cct_out_result(p, &r, NULL, 0);
  cct_result_release(&r);
  return rc;
}

/* ------------------------------------------------------------ statements */

int cct_out_stmt(cct_shell *p, sqlite3_stmt *st, const char *view, const char *value_col) {
  int nc = sqlite3_column_count(st), rc;
  cct_result r;
  cct_result_init(&r, view);
  if (p->q) cct_result_context(&r, cct_query_run(p->q), NULL, 0, -1);
  /* A listing (not 'sql') leaves out columns empty in every row, and prints its notes below
   * the grid in tree and table, each after the row's name: a note is a sentence, and as a
   * column it pushed every row past 80 columns. */
  int listing = strcmp(view, "sql") != 0, note = -1, name_col = -1, run_col = -1;
  r.hide_empty = listing;
  for (int c = 0; c < nc; c++) {
    const char *name = sqlite3_column_name(st, c);
    int role = value_col && !strcmp(name, value_col) ? CCT_ROLE_VALUE : CCT_ROLE_PLAIN;
    if (listing && !strcmp(name, "note")) note = c;
    if (listing && !strcmp(name, "name")) name_col = c;
    if (listing && !strcmp(name, "run")) run_col = c;
    cct_result_col(&r, cct_result_keep(&r, strdup(name)), CCT_T_TEXT, role, c == note ? CCT_IN_DATA : CCT_IN_ALL);
  }
  while (!cct_shell_interrupted && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    cct_cell *x = cct_result_row(&r);
    if (!x) {
      rc = SQLITE_NOMEM;
      break;
    }
    for (int c = 0; c < nc; c++) {
      int t = sqlite3_column_type(st, c);
      if (r.nrows == 1 && (t == SQLITE_INTEGER || t == SQLITE_FLOAT)) r.cols[c].type = CCT_T_REAL; /* right-aligned */
      switch (t) {
      case SQLITE_NULL: break;
      case SQLITE_INTEGER: cct_cell_int(&x[c], (long long)sqlite3_column_int64(st, c)); break;
      case SQLITE_FLOAT: cct_cell_real(&x[c], sqlite3_column_double(st, c)); break;
      case SQLITE_BLOB:
        cct_cell_text(&x[c], cct_result_keepf(&r, "<blob %d bytes>", sqlite3_column_bytes(st, c)));
        break;
      default: cct_cell_text(&x[c], cct_result_keep(&r, strdup((const char *)sqlite3_column_text(st, c)))); break;
      }
    }
    if (note >= 0 && sqlite3_column_type(st, note) != SQLITE_NULL) { /* named by the row's name, else its run */
      const char *row = name_col >= 0 ? (const char *)sqlite3_column_text(st, name_col) : NULL;
      if (row) sqlite3_str_appendf(r.tail, "note on %s: %s\n", row, (const char *)sqlite3_column_text(st, note));
      else sqlite3_str_appendf(r.tail, "note on run %lld: %s\n", run_col >= 0 ? (long long)sqlite3_column_int64(st, run_col) : 0LL,
                               (const char *)sqlite3_column_text(st, note));
    }
  }
  if (cct_shell_interrupted) rc = SQLITE_INTERRUPT;
  if (rc == SQLITE_DONE && (nc > 0 || p->mode == CCT_MODE_JSON) && cct_out_result(p, &r, NULL, 0))
    rc = cct_shell_interrupted ? SQLITE_INTERRUPT : SQLITE_NOMEM;
  cct_result_release(&r);
  return rc;
}

