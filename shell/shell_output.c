/* shell_output.c: the output modes of the cctq shell (SPEC section 6).  Every
 * command prints through one of the entry points here (cct_out_view,
 * cct_out_stats, cct_out_stmt), which switch on the shell's mode:
 *   tree    views as an ASCII tree ('|- ', '`- ', '|  ') with inclusive and
 *           exclusive columns and % of the program total, a handle per row,
 *           '*' (and bold on a terminal) on center rows; other output as table
 *   table   aligned columns; long names shortened in the middle with '...'
 *   csv     RFC 4180 (CRLF line ends), full-precision numbers, never shortened
 *   json    one object per command; views exactly as SPEC section 6
 *   folded  'a;b;c value' lines for flame-graph tools.  topdown/bottomup lines
 *           carry the row's self value, inclusive minus the inclusive of its
 *           printed children (so the lines add up to the top row: rows cut
 *           by depth or threshold count in full in the printed row above);
 *           flat lines carry the exclusive value; zero lines are left out;
 *           anything else prints as in table mode.
 * 'diff' prints through cct_out_diff in every mode ('a;b;c base other' lines
 * in folded mode).  Printers write to an outctx (destination, mode, color,
 * width), so 'export' reuses them with a FILE* (cct_out_*_to, cct_out_diff). */
#include "shell_int.h"

#include "cct_escape.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define BOLD "\033[1m"
#define PLAIN "\033[0m"

/* printf into a new malloc'ed string (NULL when out of memory). */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static char *xprintf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (!s) return NULL;
  va_start(ap, fmt);
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return s;
}

/* ----------------------------------------------------------- primitives */

void cct_out_json_string(FILE *f, const char *s) {
  if (!s) {
    fputs("null", f);
    return;
  }
  fputc('"', f);
  cct_escape_write(f, s, CCT_ESC_JSON);
  fputc('"', f);
}

void cct_out_csv_field(FILE *f, const char *s) { cct_escape_write(f, s, CCT_ESC_CSV); }

/* Formats d as the shortest text that reads back the same into buf. */
static const char *number_text(char *buf, size_t n, double d) {
  if (!isfinite(d)) return "null";
  if (d == 0) return "0";
  if (d == floor(d) && fabs(d) < 1e15) {
    snprintf(buf, n, "%.0f", d);
    return buf;
  }
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, n, "%.*g", prec, d);
    if (strtod(buf, NULL) == d) break;
  }
  return buf;
}

void cct_out_number(FILE *f, double d) {
  char buf[40];
  fputs(number_text(buf, sizeof buf, d), f);
}

/* Display width of text that is already escaped (UTF-8 code points). */
static int clean_width(const char *s) {
  int w = 0;
  for (; *s; s++)
    if (((unsigned char)*s & 0xC0) != 0x80) w++;
  return w;
}

int cct_out_width(const char *s) {
  if (cct_text_clean(s)) return clean_width(s);
  char *e = cct_escape_dup(s, CCT_ESC_TERM);
  int w = e ? clean_width(e) : 0;
  free(e);
  return w;
}

/* Byte offset of the code point that starts display column col of s. */
static size_t byte_at(const char *s, int col) {
  size_t i = 0;
  int c = -1;
  for (; s[i]; i++) {
    if (((unsigned char)s[i] & 0xC0) != 0x80 && ++c == col) return i;
  }
  return i;
}

/* cct_out_fit on text already escaped for the terminal (no control
 * characters, valid UTF-8: a cut can open no escape sequence). */
static int fit_clean(FILE *f, const char *s, int width, int pad) {
  int w = clean_width(s);
  if (width < 0) width = 0;
  if (w <= width) {
    fputs(s, f);
    if (pad) fprintf(f, "%*s", width - w, "");
    return pad ? width : w;
  }
  if (width < 5) { /* no room for '...': cut at the end */
    fwrite(s, 1, byte_at(s, width), f);
    return width;
  }
  /* 'name [module]' (hpcprof's unknown procedures): cut the module, not the
   * address that tells such names apart. */
  const char *br = strstr(s, " [");
  size_t n = strlen(s);
  if (br && s[n - 1] == ']' && clean_width(br) < w && w - clean_width(br) + 6 <= width) {
    fwrite(s, 1, byte_at(s, width - 4), f);
    fputs("...]", f);
    return width;
  }
  int head = (width - 3 + 1) / 2, tail = width - 3 - head;
  fwrite(s, 1, byte_at(s, head), f);
  fputs("...", f);
  fputs(s + byte_at(s, w - tail), f);
  return width;
}

int cct_out_fit(FILE *f, const char *s, int width, int pad) {
  if (cct_text_clean(s)) return fit_clean(f, s, width, pad);
  char *e = cct_escape_dup(s, CCT_ESC_TERM);
  int w = fit_clean(f, e ? e : "?", width, pad);
  free(e);
  return w;
}

/* Writes s for the terminal (control characters visible, bad UTF-8 as U+FFFD). */
static void out_text(FILE *f, const char *s) { cct_escape_write(f, s, CCT_ESC_TERM); }

/* Output width: the terminal's when out is one, else $COLUMNS, else 100. */
static int out_width(cct_shell *p) {
  struct winsize ws;
  if (isatty(fileno(p->out)) && ioctl(fileno(p->out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  const char *c = getenv("COLUMNS");
  int n = c ? atoi(c) : 0;
  return n >= 20 && n <= 10000 ? n : p->width > 0 ? p->width : 100;
}

static const char *kind_name(int kind) {
  static const char *const names[] = {"root", "function", "loop", "line", "instruction", "center", "file", "module"};
  return kind >= 0 && kind < 8 ? names[kind] : "unknown";
}

static const char *base_name(const char *path) {
  const char *s = path ? strrchr(path, '/') : NULL;
  return s && s[1] ? s + 1 : path;
}

/* Where and how a printer writes: the shell's own output, or a file for
 * 'export' (no color, no width limit).  Field names follow cct_shell's so
 * printers read p->out, p->color as the shell's. */
typedef struct outctx {
  FILE *out; /* destination */
  int mode;  /* CCT_MODE_* */
  int color; /* 1: ANSI escapes */
  int width; /* columns for tree and table */
} outctx;

/* Width for exports: nothing is shortened. */
#define EXPORT_WIDTH 1000000

/* The context of p's own output, or of f (mode given) when f is not NULL. */
static outctx out_ctx(cct_shell *p, FILE *f, int mode);

/* ----------------------------------------------------------------- grids */

/* A table of text cells for table mode (views, statements). */
typedef struct grid {
  int ncols;        /* columns */
  char **head;      /* column headers (owned) */
  int *right;       /* 1: right-aligned (numbers) */
  size_t nrows, cap; /* rows used / allocated */
  char **cells;     /* nrows * ncols cells (owned; NULL prints as empty) */
  int *bold;        /* per row: 1 for center rows */
} grid;

static int grid_init(grid *g, int ncols) {
  memset(g, 0, sizeof *g);
  g->ncols = ncols;
  g->head = calloc((size_t)ncols, sizeof *g->head);
  g->right = calloc((size_t)ncols, sizeof *g->right);
  return g->head && g->right ? 0 : -1;
}

static void grid_release(grid *g) {
  for (size_t i = 0; i < g->nrows * (size_t)g->ncols; i++) free(g->cells[i]);
  for (int c = 0; c < g->ncols && g->head; c++) free(g->head[c]);
  free(g->cells);
  free(g->head);
  free(g->right);
  free(g->bold);
  memset(g, 0, sizeof *g);
}

/* Appends an empty row.  Returns its cells, or NULL when out of memory. */
static char **grid_row(grid *g) {
  if (g->nrows == g->cap) {
    size_t cap = g->cap ? 2 * g->cap : 64;
    char **c = realloc(g->cells, cap * (size_t)g->ncols * sizeof *c);
    if (!c) return NULL;
    g->cells = c;
    int *b = realloc(g->bold, cap * sizeof *b);
    if (!b) return NULL;
    g->bold = b;
    g->cap = cap;
  }
  char **row = g->cells + g->nrows * (size_t)g->ncols;
  memset(row, 0, (size_t)g->ncols * sizeof *row);
  g->bold[g->nrows++] = 0;
  return row;
}

/* Prints g aligned, shrinking the widest columns (in the middle, '...') to fit width. */
static int grid_print(const outctx *p, grid *g, int width) {
  FILE *o = p->out;
  if (g->ncols <= 0) return 0; /* a statement without columns ('sql BEGIN') prints nothing */
  int *w = calloc((size_t)g->ncols, sizeof *w);
  if (!w) return -1;
  for (int c = 0; c < g->ncols; c++) {
    w[c] = g->head[c] ? cct_out_width(g->head[c]) : 0;
    for (size_t r = 0; r < g->nrows; r++) {
      const char *s = g->cells[r * (size_t)g->ncols + c];
      int l = s ? cct_out_width(s) : 0;
      if (l > w[c]) w[c] = l;
    }
  }
  for (;;) { /* shrink the widest text column by one until the row fits */
    int total = 2 * (g->ncols - 1), widest = -1, last = g->ncols - 1;
    for (int c = 0; c < g->ncols; c++) {
      total += w[c];
      if (!g->right[c] && w[c] > 12 && (widest < 0 || w[c] > w[widest])) widest = c;
    }
    if (!g->right[last] && w[last] > 12) widest = last; /* the last column (a path, a label) gives first */
    if (total <= width || widest < 0) break;
    w[widest]--;
  }
  for (long r = -1; r < (long)g->nrows; r++) {
    if (cct_shell_interrupted) break;
    int bold = r >= 0 && p->color && g->bold[r];
    if (bold) fputs(BOLD, o);
    for (int c = 0; c < g->ncols; c++) {
      const char *s = r < 0 ? g->head[c] : g->cells[(size_t)r * (size_t)g->ncols + c];
      if (!s) s = "";
      int last = c == g->ncols - 1;
      if (c) fputs("  ", o);
      if (g->right[c]) fprintf(o, "%*s", w[c] - cct_out_width(s), ""), out_text(o, s);
      else cct_out_fit(o, s, w[c], !last);
    }
    if (bold) fputs(PLAIN, o);
    fputc('\n', o);
  }
  free(w);
  return cct_shell_interrupted ? -1 : 0;
}

/* ---------------------------------------------------------- view helpers */

/* How a value column is printed: integers when every value is one. */
typedef struct numfmt {
  int integral; /* 1: all values are whole numbers below 1e15 */
  int big;      /* 1: some value is >= 1e6 (non-integral: exponent form) */
} numfmt;

static void numfmt_add(numfmt *f, double d) {
  if (!isfinite(d)) return;
  if (fabs(d) >= 1e15 || d != floor(d)) f->integral = 0;
  if (fabs(d) >= 1e6) f->big = 1;
}

static char *numfmt_text(const numfmt *f, double d) {
  if (!isfinite(d)) return strdup("-");
  if (f->integral) return xprintf("%.0f", d);
  if (f->big) return xprintf("%.3e", d);
  return xprintf("%.3f", d);
}

static char *percent_text(double d, double total) {
  if (!(total > 0) || !isfinite(d)) return strdup("-");
  return xprintf("%.1f%%", 100.0 * d / total);
}

/* The label of a row as tree and table print it (owned by the caller). */
static char *row_label(const cct_row *r, int dup) {
  char loc[512] = "";
  if (dup) {
    if (r->file && r->line >= 0) snprintf(loc, sizeof loc, " (%s:%lld)", base_name(r->file), r->line);
    else if (r->file) snprintf(loc, sizeof loc, " (%s)", base_name(r->file));
    else if (r->module) snprintf(loc, sizeof loc, " (%s)", base_name(r->module));
  }
  return xprintf("%s%s%s%s%s", r->name ? r->name : "?", r->callsite ? " @ " : "",
                         r->callsite ? r->callsite : "", r->inlined ? " [inlined]" : "", loc);
}

static int cmp_name_idx(const void *a, const void *b, const cct_row *rows) {
  const cct_row *x = &rows[*(const size_t *)a], *y = &rows[*(const size_t *)b];
  return strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

static const cct_row *sort_rows; /* qsort has no context argument */
static int cmp_name(const void *a, const void *b) { return cmp_name_idx(a, b, sort_rows); }

/* Marks function rows whose name another function row of the view also has
 * (two functions of one name in different files): dup[i] = 1. */
static int find_dups(const cct_view *v, char *dup) {
  size_t *idx = malloc((v->nrows + 1) * sizeof *idx), n = 0;
  if (!idx) return -1;
  for (size_t i = 0; i < v->nrows; i++)
    if (v->rows[i].kind == CCT_ROW_FUNCTION && v->rows[i].name) idx[n++] = i;
  sort_rows = v->rows;
  qsort(idx, n, sizeof *idx, cmp_name);
  for (size_t i = 1; i < n; i++) {
    const cct_row *a = &v->rows[idx[i - 1]], *b = &v->rows[idx[i]];
    if (strcmp(a->name, b->name)) continue;
    int same = (a->file ? b->file && !strcmp(a->file, b->file) : !b->file) && a->line == b->line &&
               (a->module ? b->module && !strcmp(a->module, b->module) : !b->module);
    if (!same) dup[idx[i - 1]] = dup[idx[i]] = 1;
  }
  free(idx);
  return 0;
}

/* Forgets the handles of the last view. */
static void forget_shell_handles(cct_shell *p) {
  for (size_t i = 0; i < p->nhandles; i++) free(p->handles[i].name);
  free(p->handles);
  p->handles = NULL;
  p->nhandles = 0;
}

/* Remembers the handles of v for '@N' completion. */
static void keep_handles(cct_shell *p, const cct_view *v) {
  forget_shell_handles(p);
  if (!v->nrows || !strcmp(v->view, "source")) return;
  p->handles = calloc(v->nrows, sizeof *p->handles);
  if (!p->handles) return;
  for (size_t i = 0; i < v->nrows; i++) {
    p->handles[p->nhandles].handle = v->rows[i].handle;
    p->handles[p->nhandles++].name = strdup(v->rows[i].name ? v->rows[i].name : "");
  }
}

/* --------------------------------------------------------------- tree */

/* The value cells of row r (2 per metric, plus percentages): fills cells[0..4*nmetrics). */
static void value_cells(const cct_view *v, const cct_row *r, const numfmt *fi, const numfmt *fe, char **cells) {
  for (size_t m = 0; m < v->nmetrics; m++) {
    double t = v->base ? v->base[m] : v->total ? v->total[m] : 0;
    cells[4 * m + 0] = numfmt_text(&fi[m], r->inclusive[m]);
    cells[4 * m + 1] = percent_text(r->inclusive[m], t);
    cells[4 * m + 2] = numfmt_text(&fe[m], r->exclusive[m]);
    cells[4 * m + 3] = percent_text(r->exclusive[m], t);
  }
}

/* Tree mode for topdown / bottomup / flat: handle, values, '*', connectors and label. */
static int print_tree(const outctx *p, const cct_view *v, int width) {
  FILE *o = p->out;
  size_t nm = v->nmetrics, nc = 4 * nm, n = v->nrows;
  int rc = -1;
  numfmt *fi = calloc(nm + 1, sizeof *fi), *fe = calloc(nm + 1, sizeof *fe);
  char *dup = calloc(n + 1, 1), *has_next = calloc(n + 1, 1);
  char **cells = calloc(n * nc + 1, sizeof *cells);
  int *cw = calloc(nc + 1, sizeof *cw);
  int maxdepth = 0;
  for (size_t i = 0; i < n; i++)
    if (v->rows[i].depth > maxdepth) maxdepth = v->rows[i].depth;
  char *seen = calloc((size_t)maxdepth + 2, 1), *anc = calloc((size_t)maxdepth + 2, 1);
  if (!fi || !fe || !dup || !has_next || !cells || !cw || !seen || !anc || find_dups(v, dup)) goto out;
  for (size_t m = 0; m < nm; m++) fi[m].integral = fe[m].integral = 1;
  for (size_t i = 0; i < n; i++)
    for (size_t m = 0; m < nm; m++) numfmt_add(&fi[m], v->rows[i].inclusive[m]), numfmt_add(&fe[m], v->rows[i].exclusive[m]);
  /* has_next[i]: a later sibling follows row i (backward pass). */
  for (size_t k = n; k-- > 0;) {
    int d = v->rows[k].depth < 0 ? 0 : v->rows[k].depth;
    has_next[k] = seen[d];
    seen[d] = 1;
    for (int j = d + 1; j <= maxdepth; j++) seen[j] = 0;
  }
  int hw = 3; /* "[N]" */
  for (size_t i = 0; i < n; i++) {
    value_cells(v, &v->rows[i], fi, fe, cells + i * nc);
    int l = snprintf(NULL, 0, "[%d]", v->rows[i].handle);
    if (l > hw) hw = l;
  }
  for (size_t c = 0; c < nc; c++) {
    cw[c] = c % 2 ? 6 : 9; /* '100.0%', 'inclusive' */
    for (size_t i = 0; i < n; i++) {
      int l = cells[i * nc + c] ? (int)strlen(cells[i * nc + c]) : 0;
      if (l > cw[c]) cw[c] = l;
    }
  }
  /* Header: metric names over their columns, then inclusive / exclusive. */
  int used = hw;
  for (size_t m = 0; m < nm; m++) used += 2 + cw[4 * m] + 1 + cw[4 * m + 1] + 2 + cw[4 * m + 2] + 1 + cw[4 * m + 3];
  used += 3; /* ' * ' */
  int namew = width - used;
  if (namew < 20) namew = 20;
  fprintf(o, "%*s", hw, "");
  for (size_t m = 0; m < nm; m++) {
    int span = cw[4 * m] + 1 + cw[4 * m + 1] + 2 + cw[4 * m + 2] + 1 + cw[4 * m + 3];
    fputs("  ", o);
    if (v->percent == CCT_PERCENT_CENTER && m == 0) { /* say what the percentages are of */
      char *head = xprintf("%s, %% of the center", v->metrics[m]);
      cct_out_fit(o, head ? head : v->metrics[m], span, m + 1 < nm);
      free(head);
    } else {
      cct_out_fit(o, v->metrics[m], span, m + 1 < nm);
    }
  }
  fputc('\n', o);
  fprintf(o, "%*s", hw, "");
  for (size_t m = 0; m < nm; m++)
    fprintf(o, "  %*s  %*s", cw[4 * m] + 1 + cw[4 * m + 1], "inclusive", cw[4 * m + 2] + 1 + cw[4 * m + 3], "exclusive");
  fputs("   name\n", o);
  if (!n) fputs("(no rows)\n", o);
  for (size_t i = 0; i < n; i++) {
    if (cct_shell_interrupted) goto out;
    const cct_row *r = &v->rows[i];
    int d = r->depth < 0 ? 0 : r->depth;
    anc[d] = has_next[i];
    int bold = p->color && r->center;
    if (bold) fputs(BOLD, o);
    char h[32];
    snprintf(h, sizeof h, "[%d]", r->handle);
    fprintf(o, "%*s", hw, h);
    for (size_t m = 0; m < nm; m++) {
      char **c = cells + i * nc + 4 * m;
      fprintf(o, "  %*s %*s  %*s %*s", cw[4 * m], c[0], cw[4 * m + 1], c[1], cw[4 * m + 2], c[2], cw[4 * m + 3], c[3]);
    }
    fputs(r->center ? " * " : "   ", o);
    int left = namew;
    for (int k = 1; k < d && left > 12; k++, left -= 3) fputs(anc[k] ? "|  " : "   ", o);
    if (d > 0 && left > 12) fputs(has_next[i] ? "|- " : "`- ", o), left -= 3;
    char *label = row_label(r, dup[i]);
    cct_out_fit(o, label ? label : "?", left, 0);
    free(label);
    if (bold) fputs(PLAIN, o);
    fputc('\n', o);
  }
  rc = 0;
out:
  if (cells)
    for (size_t i = 0; i < n * nc; i++) free(cells[i]);
  free(cells);
  free(fi);
  free(fe);
  free(dup);
  free(has_next);
  free(cw);
  free(seen);
  free(anc);
  return rc;
}

/* Table mode for views: handle, depth, values, '*', name, location (source:
 * handle, '>', line, values, with a center its share of each line, text). */
static int print_view_table(const outctx *p, const cct_view *v, int width) {
  size_t nm = v->nmetrics;
  int src = !strcmp(v->view, "source");
  int shares = src && v->nrows && v->rows[0].share ? (int)nm : 0;
  grid g;
  int rc = -1;
  int vals = src ? 3 : 2, ncols = vals + 4 * (int)nm + shares + (src ? 1 : 3);
  numfmt *fi = calloc(nm + 1, sizeof *fi), *fe = calloc(nm + 1, sizeof *fe);
  char *dup = calloc(v->nrows + 1, 1);
  if (grid_init(&g, ncols) || !fi || !fe || !dup || find_dups(v, dup)) goto out;
  g.head[0] = strdup("#");
  g.head[1] = strdup(src ? ">" : "depth");
  g.right[0] = 1;
  g.right[1] = !src;
  if (src) g.head[2] = strdup("line"), g.right[2] = 1;
  for (size_t m = 0; m < nm; m++) {
    g.head[vals + 4 * m] = nm == 1 ? strdup("inclusive") : xprintf("%s incl", v->metrics[m]);
    g.head[vals + 4 * m + 1] = strdup(v->percent == CCT_PERCENT_CENTER ? "% center" : "%");
    g.head[vals + 4 * m + 2] = nm == 1 ? strdup("exclusive") : xprintf("%s excl", v->metrics[m]);
    g.head[vals + 4 * m + 3] = strdup("%");
    for (int k = 0; k < 4; k++) g.right[vals + 4 * m + k] = 1;
    fi[m].integral = fe[m].integral = 1;
  }
  for (int m = 0; m < shares; m++) {
    g.head[vals + 4 * (int)nm + m] = nm == 1 ? strdup("center") : xprintf("%s center", v->metrics[m]);
    g.right[vals + 4 * (int)nm + m] = 1;
  }
  int after = vals + 4 * (int)nm + shares;
  if (src) {
    g.head[after] = strdup("text");
  } else {
    g.head[after] = strdup("*");
    g.head[after + 1] = strdup("name");
    g.head[after + 2] = strdup("location");
  }
  for (size_t i = 0; i < v->nrows; i++)
    for (size_t m = 0; m < nm; m++) numfmt_add(&fi[m], v->rows[i].inclusive[m]), numfmt_add(&fe[m], v->rows[i].exclusive[m]);
  for (size_t i = 0; i < v->nrows; i++) {
    const cct_row *r = &v->rows[i];
    char **c = grid_row(&g);
    if (!c) goto out;
    g.bold[g.nrows - 1] = r->center;
    c[0] = xprintf("%d", r->handle);
    value_cells(v, r, fi, fe, c + vals);
    for (int m = 0; m < shares; m++) c[vals + 4 * (int)nm + m] = r->share ? numfmt_text(&fi[m], r->share[m]) : NULL;
    if (src) {
      c[1] = strdup(r->mark ? ">" : "");
      c[2] = r->line >= 0 ? xprintf("%lld", r->line) : NULL;
      c[after] = strdup(r->text ? r->text : "");
      continue;
    }
    c[1] = xprintf("%d", r->depth);
    c[after] = strdup(r->center ? "*" : "");
    c[after + 1] = row_label(r, 0);
    if (r->file && r->line >= 0) c[after + 2] = xprintf("%s:%lld", base_name(r->file), r->line);
    else if (r->file) c[after + 2] = strdup(base_name(r->file));
    else if (r->module) c[after + 2] = strdup(base_name(r->module));
  }
  rc = grid_print(p, &g, width);
out:
  grid_release(&g);
  free(fi);
  free(fe);
  free(dup);
  return rc;
}

/* Source view in tree mode: handle, mark, line, values, text. */
static int print_source(const outctx *p, const cct_view *v, int width) {
  return print_view_table(p, v, width);
}

/* ------------------------------------------------------------ csv, json */

/* A buffer for cct_view_path of any row of v (NULL when out of memory). */
static const char **path_buffer(const cct_view *v) {
  int maxdepth = 0;
  for (size_t i = 0; i < v->nrows; i++)
    if (v->rows[i].depth > maxdepth) maxdepth = v->rows[i].depth;
  return malloc(((size_t)maxdepth + 1) * sizeof(const char *));
}

static int print_view_csv(const outctx *p, const cct_view *v) {
  FILE *o = p->out;
  const char **names = path_buffer(v);
  if (!names) return -1;
  int src = !strcmp(v->view, "source");
  fputs("handle,depth,path,kind,name,inlined,file,line,module,callsite,center", o);
  for (size_t m = 0; m < v->nmetrics; m++) {
    char *h = xprintf("%s inclusive", v->metrics[m]);
    fputc(',', o);
    cct_out_csv_field(o, h);
    free(h);
    h = xprintf("%s exclusive", v->metrics[m]);
    fputc(',', o);
    cct_out_csv_field(o, h);
    free(h);
  }
  fputs(src ? ",mark,text\r\n" : "\r\n", o);
  for (size_t i = 0; i < v->nrows && !cct_shell_interrupted; i++) {
    const cct_row *r = &v->rows[i];
    fprintf(o, "%d,%d,", r->handle, r->depth);
    sqlite3_str *path = sqlite3_str_new(NULL);
    size_t np = cct_view_path(v, i, names);
    for (size_t k = 0; k < np; k++) {
      if (k) sqlite3_str_appendchar(path, 1, ';');
      sqlite3_str_appendall(path, names[k] ? names[k] : "");
    }
    char *ps = sqlite3_str_finish(path);
    cct_out_csv_field(o, ps ? ps : "");
    sqlite3_free(ps);
    fprintf(o, ",%s,", kind_name(r->kind));
    cct_out_csv_field(o, r->name);
    fprintf(o, ",%d,", r->inlined);
    cct_out_csv_field(o, r->file);
    fputc(',', o);
    if (r->line >= 0) fprintf(o, "%lld", r->line);
    fputc(',', o);
    cct_out_csv_field(o, r->module);
    fputc(',', o);
    cct_out_csv_field(o, r->callsite);
    fprintf(o, ",%d", r->center);
    for (size_t m = 0; m < v->nmetrics; m++) {
      fputc(',', o);
      cct_out_number(o, r->inclusive[m]);
      fputc(',', o);
      cct_out_number(o, r->exclusive[m]);
    }
    if (src) {
      fputs(r->mark ? ",>," : ",,", o);
      cct_out_csv_field(o, r->text);
    }
    fputs("\r\n", o);
  }
  free(names);
  return 0;
}

static int print_view_json(const outctx *p, const cct_view *v) {
  FILE *o = p->out;
  const char **names = path_buffer(v);
  if (!names) return -1;
  int src = !strcmp(v->view, "source");
  fputs("{\"view\": ", o);
  cct_out_json_string(o, v->view);
  fprintf(o, ", \"run\": %d, \"center\": [", v->run);
  for (size_t i = 0; i < v->ncenter; i++) {
    if (i) fputs(", ", o);
    cct_out_json_string(o, v->center[i]);
  }
  fprintf(o, "], \"granularity\": \"%s\"", v->granularity == CCT_GRAN_LINE ? "line" : "function");
  if (v->note) {
    fputs(", \"note\": ", o);
    cct_out_json_string(o, v->note);
  }
  fputs(", \"rows\": [", o);
  for (size_t i = 0; i < v->nrows && !cct_shell_interrupted; i++) {
    const cct_row *r = &v->rows[i];
    fprintf(o, "%s{\"handle\": %d, \"depth\": %d, \"path\": [", i ? ",\n  " : "\n  ", r->handle, r->depth);
    size_t np = cct_view_path(v, i, names);
    for (size_t k = 0; k < np; k++) {
      if (k) fputs(", ", o);
      cct_out_json_string(o, names[k]);
    }
    fprintf(o, "], \"kind\": \"%s\", \"name\": ", kind_name(r->kind));
    cct_out_json_string(o, r->name);
    fprintf(o, ", \"inlined\": %s, \"file\": ", r->inlined ? "true" : "false");
    cct_out_json_string(o, r->file);
    fputs(", \"line\": ", o);
    if (r->line >= 0) fprintf(o, "%lld", r->line);
    else fputs("null", o);
    fputs(", \"module\": ", o);
    cct_out_json_string(o, r->module);
    fputs(", \"callsite\": ", o);
    cct_out_json_string(o, r->callsite);
    fprintf(o, ", \"center\": %s", r->center ? "true" : "false");
    if (src) {
      fprintf(o, ", \"mark\": %s, \"text\": ", r->mark ? "true" : "false");
      cct_out_json_string(o, r->text);
    }
    fputs(", \"values\": {", o);
    for (size_t m = 0; m < v->nmetrics; m++) {
      if (m) fputs(", ", o);
      cct_out_json_string(o, v->metrics[m]);
      fputs(": {\"inclusive\": ", o);
      cct_out_number(o, r->inclusive[m]);
      fputs(", \"exclusive\": ", o);
      cct_out_number(o, r->exclusive[m]);
      if (r->share) {
        fputs(", \"center\": ", o);
        cct_out_number(o, r->share[m]);
      }
      fputc('}', o);
    }
    fputs("}}", o);
  }
  fputs(v->nrows ? "\n]}\n" : "]}\n", o);
  free(names);
  return 0;
}

/* ---------------------------------------------------------------- folded */

/* Writes a path element with ';' replaced (it would split the frame), control
 * characters visible (a line break would split the record). */
static void folded_name(FILE *o, const char *s) {
  char *e = cct_escape_dup(s, CCT_ESC_TERM); /* one line, no control characters */
  for (const char *c = e ? e : "?"; *c; c++) fputc(*c == ';' ? ':' : *c, o);
  free(e);
}

/* Writes d in plain decimal notation with up to 17 significant digits: no
 * exponent, since flame-graph tools read digits and one '.' only. */
static void folded_number(FILE *o, double d) {
  char buf[400];
  const char *t = number_text(buf, sizeof buf, d);
  if (!strpbrk(t, "eE") || !isfinite(d)) {
    fputs(t, o);
    return;
  }
  int prec = 16 - (int)floor(log10(fabs(d)));
  if (prec < 0) prec = 0;
  if (prec > 340) prec = 340;
  snprintf(buf, sizeof buf, "%.*f", prec, d);
  size_t l = strlen(buf);
  if (strchr(buf, '.')) {
    while (l > 1 && buf[l - 1] == '0') buf[--l] = '\0';
    if (buf[l - 1] == '.') buf[--l] = '\0';
  }
  fputs(buf, o);
}

static int print_folded(const outctx *p, const cct_view *v) {
  FILE *o = p->out;
  size_t n = v->nrows;
  if (!v->nmetrics || !n) return 0;
  int flat = !strcmp(v->view, "flat");
  double *self = calloc(n, sizeof *self);
  int maxdepth = 0;
  for (size_t i = 0; i < n; i++)
    if (v->rows[i].depth > maxdepth) maxdepth = v->rows[i].depth;
  size_t *stack = calloc((size_t)maxdepth + 2, sizeof *stack);
  const char **names = path_buffer(v);
  if (!self || !stack || !names) {
    free(self);
    free(stack);
    free(names);
    return -1;
  }
  double top = 0;
  for (size_t i = 0; i < n; i++) {
    const cct_row *r = &v->rows[i];
    int d = r->depth < 0 ? 0 : r->depth;
    self[i] = flat ? r->exclusive[0] : r->inclusive[0];
    if (fabs(r->inclusive[0]) > top) top = fabs(r->inclusive[0]);
    stack[d] = i;
    if (!flat && d > 0 && v->rows[stack[d - 1]].depth == d - 1) self[stack[d - 1]] -= r->inclusive[0];
  }
  for (size_t i = 0; i < n && !cct_shell_interrupted; i++) {
    if (!(self[i] > 1e-12 * top) || !isfinite(self[i])) continue; /* rounding noise of the subtraction */
    size_t np = cct_view_path(v, i, names);
    for (size_t k = 0; k < np; k++) {
      if (k) fputc(';', o);
      folded_name(o, names[k] ? names[k] : "");
    }
    fputc(' ', o);
    folded_number(o, self[i]);
    fputc('\n', o);
  }
  free(self);
  free(stack);
  free(names);
  return 0;
}

/* ------------------------------------------------------------------ diff */

#define RED "\033[31m"
#define GREEN "\033[32m"

/* Names from the top row down to each diff row, from the merged tree (so the
 * two formats' placeholder roots print as the base run names them):
 * names[i] points into the rows; path of row i = names of its ancestors. */
typedef struct dpath {
  const char **stack; /* current names by depth */
  int maxdepth;
} dpath;

static int dpath_init(dpath *dp, const cct_diff *d) {
  dp->maxdepth = 0;
  for (size_t i = 0; i < d->nrows; i++)
    if (d->rows[i].depth > dp->maxdepth) dp->maxdepth = d->rows[i].depth;
  dp->stack = calloc((size_t)dp->maxdepth + 2, sizeof *dp->stack);
  return dp->stack ? 0 : -1;
}

/* Pushes row i's name; returns its depth. */
static int dpath_push(dpath *dp, const cct_diff_row *r) {
  int d = r->depth < 0 ? 0 : r->depth;
  dp->stack[d] = r->row->name ? r->row->name : "";
  return d;
}

static const char *status_name(int s) {
  return s == CCT_DIFF_ADDED ? "added" : s == CCT_DIFF_REMOVED ? "removed" : "both";
}

/* A change with its sign ('+12', '-3.500', '0'); '-' when unknown. */
static char *change_text(const numfmt *f, double d) {
  if (!isfinite(d)) return strdup("-");
  if (d == 0) return strdup("0");
  char *t = numfmt_text(f, fabs(d));
  char *s = t ? xprintf("%c%s", d > 0 ? '+' : '-', t) : NULL;
  free(t);
  return s;
}

/* A title line: 'diff topdown 3: run 1 'a' -> run 2 'b', METRIC'. */
static void diff_title(FILE *o, const cct_diff *d) {
  fprintf(o, "diff %s", d->view);
  if (strcmp(d->view, "flat")) fprintf(o, " %d", d->depth);
  fprintf(o, ": run %d", d->run);
  if (d->title) fputs(" '", o), out_text(o, d->title), fputc('\'', o);
  fprintf(o, " -> run %d", d->other_run);
  if (d->other_title) fputs(" '", o), out_text(o, d->other_title), fputc('\'', o);
  if (d->nmetrics) fputs(", ", o), out_text(o, d->metrics[0]);
  fputs(d->sort_change ? ", sorted by change\n" : "\n", o);
}

/* The 8 text cells of a diff row for the display metric: base incl, %, other
 * incl, %, change, base excl, other excl, excl change. */
enum { DCELLS = 8 };
static void diff_cells(const cct_diff *d, const cct_diff_row *r, const numfmt *f, char **c) {
  double tb = d->total ? d->total[0] : 0, to = d->other_total ? d->other_total[0] : 0;
  c[0] = numfmt_text(&f[0], r->inclusive[0]);
  c[1] = percent_text(r->inclusive[0], tb);
  c[2] = numfmt_text(&f[0], r->other_inclusive[0]);
  c[3] = percent_text(r->other_inclusive[0], to);
  c[4] = change_text(&f[0], r->change[0]);
  c[5] = numfmt_text(&f[1], r->exclusive[0]);
  c[6] = numfmt_text(&f[1], r->other_exclusive[0]);
  c[7] = change_text(&f[1], r->exclusive_change[0]);
}

/* Number formats of the display metric's inclusive ([0]) and exclusive ([1]) columns. */
static void diff_formats(const cct_diff *d, numfmt *f) {
  f[0].integral = f[1].integral = 1;
  f[0].big = f[1].big = 0;
  for (size_t i = 0; i < d->nrows; i++) {
    const cct_diff_row *r = &d->rows[i];
    numfmt_add(&f[0], r->inclusive[0]), numfmt_add(&f[0], r->other_inclusive[0]), numfmt_add(&f[0], r->change[0]);
    numfmt_add(&f[1], r->exclusive[0]), numfmt_add(&f[1], r->other_exclusive[0]);
    numfmt_add(&f[1], r->exclusive_change[0]);
  }
}

static const char *diff_color(const outctx *p, double change) {
  if (!p->color || !isfinite(change) || change == 0) return NULL;
  return change > 0 ? RED : GREEN;
}

/* The status suffix of a diff row's label: ' (added)', ' (removed)' or ''. */
static const char *diff_suffix(const cct_diff_row *r) {
  return r->status == CCT_DIFF_ADDED ? " (added)" : r->status == CCT_DIFF_REMOVED ? " (removed)" : "";
}

/* Tree mode: handle, inclusive of both runs with % of each run's total, the
 * change (+ red for more cost, - green for less on a terminal), the change of
 * the exclusive value, connectors, label and status. */
static int print_diff_tree(const outctx *p, const cct_diff *d) {
  FILE *o = p->out;
  size_t n = d->nrows;
  int rc = -1;
  numfmt f[2];
  char **cells = calloc(n * DCELLS + 1, sizeof *cells);
  char *has_next = calloc(n + 1, 1);
  int maxdepth = 0;
  for (size_t i = 0; i < n; i++)
    if (d->rows[i].depth > maxdepth) maxdepth = d->rows[i].depth;
  char *seen = calloc((size_t)maxdepth + 2, 1), *anc = calloc((size_t)maxdepth + 2, 1);
  int cw[DCELLS];
  if (!cells || !has_next || !seen || !anc) goto out;
  diff_title(o, d);
  if (!d->nmetrics) goto done;
  diff_formats(d, f);
  for (size_t k = n; k-- > 0;) {
    int dd = d->rows[k].depth < 0 ? 0 : d->rows[k].depth;
    has_next[k] = seen[dd];
    seen[dd] = 1;
    for (int j = dd + 1; j <= maxdepth; j++) seen[j] = 0;
  }
  int hw = 3;
  for (size_t i = 0; i < n; i++) {
    diff_cells(d, &d->rows[i], f, cells + i * DCELLS);
    int l = snprintf(NULL, 0, "[%d]", d->rows[i].handle);
    if (l > hw) hw = l;
  }
  char h1[64], h2[64];
  snprintf(h1, sizeof h1, "run %d", d->run);
  snprintf(h2, sizeof h2, "run %d", d->other_run);
  const char *heads[DCELLS] = {h1, "", h2, "", "change", h1, h2, "change"};
  for (int c = 0; c < DCELLS; c++) {
    cw[c] = c == 1 || c == 3 ? 6 : (int)strlen(heads[c]);
    if (cw[c] < 7 && c != 1 && c != 3) cw[c] = 7;
    if (c == 7 && cw[c] < 9) cw[c] = 9; /* under 'exclusive' */
    for (size_t i = 0; i < n; i++) {
      int l = cells[i * DCELLS + c] ? (int)strlen(cells[i * DCELLS + c]) : 0;
      if (l > cw[c]) cw[c] = l;
    }
  }
  int incl = cw[0] + 1 + cw[1] + 2 + cw[2] + 1 + cw[3] + 2 + cw[4];
  fprintf(o, "%*s  %-*s  %*s\n", hw, "", incl, "inclusive", cw[7], "exclusive");
  fprintf(o, "%*s  %*s  %*s  %*s  %*s   name\n", hw, "", cw[0] + 1 + cw[1], h1, cw[2] + 1 + cw[3], h2, cw[4],
          "change", cw[7], "change");
  if (!n) fputs("(no rows)\n", o);
  int used = hw + 2 + incl + 2 + cw[7] + 3;
  int namew = p->width - used;
  if (namew < 20) namew = 20;
  for (size_t i = 0; i < n; i++) {
    if (cct_shell_interrupted) goto out;
    const cct_diff_row *r = &d->rows[i];
    char **c = cells + i * DCELLS;
    int dd = r->depth < 0 ? 0 : r->depth;
    anc[dd] = has_next[i];
    char h[32] = "";
    if (r->handle) snprintf(h, sizeof h, "[%d]", r->handle);
    fprintf(o, "%*s  %*s %*s  %*s %*s  ", hw, h, cw[0], c[0], cw[1], c[1], cw[2], c[2], cw[3], c[3]);
    const char *col = diff_color(p, r->change[0]);
    if (col) fputs(col, o);
    fprintf(o, "%*s", cw[4], c[4]);
    if (col) fputs(PLAIN, o);
    fputs("  ", o);
    col = diff_color(p, r->exclusive_change[0]);
    if (col) fputs(col, o);
    fprintf(o, "%*s", cw[7], c[7]);
    if (col) fputs(PLAIN, o);
    fputs(r->row->center ? " * " : "   ", o);
    int left = namew;
    for (int k = 1; k < dd && left > 12; k++, left -= 3) fputs(anc[k] ? "|  " : "   ", o);
    if (dd > 0 && left > 12) fputs(has_next[i] ? "|- " : "`- ", o), left -= 3;
    char *label = row_label(r->row, 0);
    const char *suffix = diff_suffix(r);
    if (p->color && r->row->center) fputs(BOLD, o);
    cct_out_fit(o, label ? label : "?", left - (int)strlen(suffix), 0);
    fputs(suffix, o);
    if (p->color && r->row->center) fputs(PLAIN, o);
    free(label);
    fputc('\n', o);
  }
done:
  rc = 0;
out:
  if (cells)
    for (size_t i = 0; i < n * DCELLS; i++) free(cells[i]);
  free(cells);
  free(has_next);
  free(seen);
  free(anc);
  return rc;
}

/* Table mode: one aligned row per diff row (display metric). */
static int print_diff_table(const outctx *p, const cct_diff *d) {
  grid g;
  numfmt f[2];
  int rc = -1;
  enum { V = 3, NC = V + DCELLS + 3 };
  if (grid_init(&g, NC)) goto out;
  diff_title(p->out, d);
  if (!d->nmetrics) {
    rc = 0;
    goto out;
  }
  diff_formats(d, f);
  const char *heads[NC] = {"#", "depth", "status", NULL, "%", NULL, "%", "change", NULL, NULL, "excl change",
                           "*", "name", "location"};
  for (int c = 0; c < NC; c++) {
    g.head[c] = heads[c] ? strdup(heads[c]) : NULL;
    g.right[c] = c < 2 || (c >= V && c < V + DCELLS);
  }
  g.head[V] = xprintf("run %d incl", d->run);
  g.head[V + 2] = xprintf("run %d incl", d->other_run);
  g.head[V + 5] = xprintf("run %d excl", d->run);
  g.head[V + 6] = xprintf("run %d excl", d->other_run);
  for (size_t i = 0; i < d->nrows; i++) {
    const cct_diff_row *r = &d->rows[i];
    const cct_row *w = r->row;
    char **c = grid_row(&g);
    if (!c) goto out;
    g.bold[g.nrows - 1] = w->center;
    c[0] = r->handle ? xprintf("%d", r->handle) : NULL;
    c[1] = xprintf("%d", r->depth);
    c[2] = strdup(status_name(r->status));
    diff_cells(d, r, f, c + V);
    c[V + DCELLS] = strdup(w->center ? "*" : "");
    c[V + DCELLS + 1] = row_label(w, 0);
    if (w->file && w->line >= 0) c[V + DCELLS + 2] = xprintf("%s:%lld", base_name(w->file), w->line);
    else if (w->file) c[V + DCELLS + 2] = strdup(base_name(w->file));
    else if (w->module) c[V + DCELLS + 2] = strdup(base_name(w->module));
  }
  rc = grid_print(p, &g, p->width);
out:
  grid_release(&g);
  return rc;
}

/* CSV: every metric, full precision; path joined with ';'. */
static int print_diff_csv(const outctx *p, const cct_diff *d) {
  FILE *o = p->out;
  dpath dp;
  if (dpath_init(&dp, d)) return -1;
  fputs("handle,other_handle,depth,status,path,kind,name,inlined,file,line,module,callsite,center", o);
  static const char *const cols[] = {"inclusive", "exclusive", "other inclusive", "other exclusive", "change",
                                     "exclusive change"};
  for (size_t m = 0; m < d->nmetrics; m++)
    for (int k = 0; k < 6; k++) {
      char *h = xprintf("%s %s", d->metrics[m], cols[k]);
      fputc(',', o);
      cct_out_csv_field(o, h);
      free(h);
    }
  fputs("\r\n", o);
  for (size_t i = 0; i < d->nrows && !cct_shell_interrupted; i++) {
    const cct_diff_row *r = &d->rows[i];
    const cct_row *w = r->row;
    int dd = dpath_push(&dp, r);
    if (r->handle) fprintf(o, "%d", r->handle);
    fputc(',', o);
    if (r->other_handle) fprintf(o, "%d", r->other_handle);
    fprintf(o, ",%d,%s,", r->depth, status_name(r->status));
    sqlite3_str *path = sqlite3_str_new(NULL);
    for (int k = 0; k <= dd; k++) {
      if (k) sqlite3_str_appendchar(path, 1, ';');
      sqlite3_str_appendall(path, dp.stack[k] ? dp.stack[k] : "");
    }
    char *ps = sqlite3_str_finish(path);
    cct_out_csv_field(o, ps ? ps : "");
    sqlite3_free(ps);
    fprintf(o, ",%s,", kind_name(w->kind));
    cct_out_csv_field(o, w->name);
    fprintf(o, ",%d,", w->inlined);
    cct_out_csv_field(o, w->file);
    fputc(',', o);
    if (w->line >= 0) fprintf(o, "%lld", w->line);
    fputc(',', o);
    cct_out_csv_field(o, w->module);
    fputc(',', o);
    cct_out_csv_field(o, w->callsite);
    fprintf(o, ",%d", w->center);
    for (size_t m = 0; m < d->nmetrics; m++) {
      double v[6] = {r->inclusive[m], r->exclusive[m], r->other_inclusive[m], r->other_exclusive[m], r->change[m],
                     r->exclusive_change[m]};
      for (int k = 0; k < 6; k++) {
        fputc(',', o);
        if (isfinite(v[k])) cct_out_number(o, v[k]);
      }
    }
    fputs("\r\n", o);
  }
  free(dp.stack);
  return 0;
}

static void json_run_title(FILE *o, const char *key, const char *t) {
  fprintf(o, ", \"%s\": ", key);
  cct_out_json_string(o, t);
}

/* JSON: one object, rows in pre-order (see 'help diff'). */
static int print_diff_json(const outctx *p, const cct_diff *d) {
  FILE *o = p->out;
  dpath dp;
  if (dpath_init(&dp, d)) return -1;
  fputs("{\"view\": \"diff\", \"of\": ", o);
  cct_out_json_string(o, d->view);
  if (strcmp(d->view, "flat")) fprintf(o, ", \"depth\": %d", d->depth);
  fprintf(o, ", \"base_run\": %d, \"run\": %d", d->run, d->other_run);
  json_run_title(o, "base_title", d->title);
  json_run_title(o, "title", d->other_title);
  fputs(", \"center\": [", o);
  for (size_t i = 0; i < d->ncenter; i++) {
    if (i) fputs(", ", o);
    cct_out_json_string(o, d->center[i]);
  }
  fprintf(o, "], \"granularity\": \"%s\", \"sort\": \"%s\", \"metrics\": [",
          d->granularity == CCT_GRAN_LINE ? "line" : "function", d->sort_change ? "change" : "inclusive");
  for (size_t m = 0; m < d->nmetrics; m++) {
    fputs(m ? ", {\"name\": " : "{\"name\": ", o);
    cct_out_json_string(o, d->metrics[m]);
    fputs(", \"unit\": ", o);
    cct_out_json_string(o, d->units ? d->units[m] : NULL);
    fputs(", \"other_name\": ", o);
    cct_out_json_string(o, d->other_metrics[m]);
    fputs(", \"other_unit\": ", o);
    cct_out_json_string(o, d->other_units ? d->other_units[m] : NULL);
    fputs(", \"scale\": ", o);
    cct_out_number(o, d->scale[m]);
    fputs(", \"total\": ", o);
    cct_out_number(o, d->total[m]);
    fputs(", \"other_total\": ", o);
    cct_out_number(o, d->other_total[m]);
    fputc('}', o);
  }
  fputc(']', o);
  if (d->note) {
    fputs(", \"note\": ", o);
    cct_out_json_string(o, d->note);
  }
  fputs(", \"rows\": [", o);
  for (size_t i = 0; i < d->nrows && !cct_shell_interrupted; i++) {
    const cct_diff_row *r = &d->rows[i];
    const cct_row *w = r->row;
    int dd = dpath_push(&dp, r);
    fputs(i ? ",\n  {\"handle\": " : "\n  {\"handle\": ", o);
    if (r->handle) fprintf(o, "%d", r->handle);
    else fputs("null", o);
    fputs(", \"other_handle\": ", o);
    if (r->other_handle) fprintf(o, "%d", r->other_handle);
    else fputs("null", o);
    fprintf(o, ", \"depth\": %d, \"status\": \"%s\", \"path\": [", r->depth, status_name(r->status));
    for (int k = 0; k <= dd; k++) {
      if (k) fputs(", ", o);
      cct_out_json_string(o, dp.stack[k]);
    }
    fprintf(o, "], \"kind\": \"%s\", \"name\": ", kind_name(w->kind));
    cct_out_json_string(o, w->name);
    fprintf(o, ", \"inlined\": %s, \"file\": ", w->inlined ? "true" : "false");
    cct_out_json_string(o, w->file);
    fputs(", \"line\": ", o);
    if (w->line >= 0) fprintf(o, "%lld", w->line);
    else fputs("null", o);
    fputs(", \"module\": ", o);
    cct_out_json_string(o, w->module);
    fputs(", \"callsite\": ", o);
    cct_out_json_string(o, w->callsite);
    fprintf(o, ", \"center\": %s, \"values\": {", w->center ? "true" : "false");
    for (size_t m = 0; m < d->nmetrics; m++) {
      static const char *const keys[] = {"inclusive", "exclusive", "other_inclusive", "other_exclusive", "change",
                                         "exclusive_change"};
      double v[6] = {r->inclusive[m], r->exclusive[m], r->other_inclusive[m], r->other_exclusive[m], r->change[m],
                     r->exclusive_change[m]};
      if (m) fputs(", ", o);
      cct_out_json_string(o, d->metrics[m]);
      for (int k = 0; k < 6; k++) {
        fprintf(o, "%s\"%s\": ", k ? ", " : ": {", keys[k]);
        cct_out_number(o, v[k]);
      }
      fputc('}', o);
    }
    fputs("}}", o);
  }
  fputs(d->nrows ? "\n]}\n" : "]}\n", o);
  free(dp.stack);
  return 0;
}

/* Folded: 'a;b;c base other' lines (the two-column input of differential
 * flame graphs, flamegraph.pl's difffolded format): self values as in
 * print_folded, an absent row counting 0 in its missing run. */
static int print_diff_folded(const outctx *p, const cct_diff *d) {
  FILE *o = p->out;
  size_t n = d->nrows;
  if (!d->nmetrics || !n) return 0;
  int flat = !strcmp(d->view, "flat");
  double *self = calloc(2 * n, sizeof *self);
  dpath dp;
  size_t *stack = NULL;
  if (!self || dpath_init(&dp, d)) {
    free(self);
    return -1;
  }
  stack = calloc((size_t)dp.maxdepth + 2, sizeof *stack);
  if (!stack) {
    free(self);
    free(dp.stack);
    return -1;
  }
  double top = 0;
  for (size_t i = 0; i < n; i++) {
    const cct_diff_row *r = &d->rows[i];
    int dd = r->depth < 0 ? 0 : r->depth;
    double a = flat ? r->exclusive[0] : r->inclusive[0], b = flat ? r->other_exclusive[0] : r->other_inclusive[0];
    double ia = isfinite(r->inclusive[0]) ? r->inclusive[0] : 0, ib = isfinite(r->other_inclusive[0]) ? r->other_inclusive[0] : 0;
    self[2 * i] = isfinite(a) ? a : 0;
    self[2 * i + 1] = isfinite(b) ? b : 0;
    if (fabs(ia) > top) top = fabs(ia);
    if (fabs(ib) > top) top = fabs(ib);
    stack[dd] = i;
    if (!flat && dd > 0 && d->rows[stack[dd - 1]].depth == dd - 1) {
      self[2 * stack[dd - 1]] -= ia;
      self[2 * stack[dd - 1] + 1] -= ib;
    }
  }
  for (size_t i = 0; i < n && !cct_shell_interrupted; i++) {
    const cct_diff_row *r = &d->rows[i];
    int dd = dpath_push(&dp, r);
    double a = self[2 * i], b = self[2 * i + 1];
    if (!(a > 1e-12 * top)) a = 0; /* rounding noise of the subtraction */
    if (!(b > 1e-12 * top)) b = 0;
    if (a == 0 && b == 0) continue;
    for (int k = 0; k <= dd; k++) {
      if (k) fputc(';', o);
      folded_name(o, dp.stack[k]);
    }
    fputc(' ', o);
    folded_number(o, a);
    fputc(' ', o);
    folded_number(o, b);
    fputc('\n', o);
  }
  free(self);
  free(stack);
  free(dp.stack);
  return 0;
}

int cct_out_diff(cct_shell *p, const cct_diff *d, FILE *f, int mode) {
  outctx ctx = out_ctx(p, f, mode);
  const outctx *c = &ctx;
  int rc = 0;
  if (!f) { /* '@N' completion: the rows that have a base handle */
    forget_shell_handles(p);
    p->handles = calloc(d->nrows + 1, sizeof *p->handles);
    for (size_t i = 0; p->handles && i < d->nrows; i++) {
      if (!d->rows[i].handle) continue;
      p->handles[p->nhandles].handle = d->rows[i].handle;
      p->handles[p->nhandles++].name = strdup(d->rows[i].row->name ? d->rows[i].row->name : "");
    }
  }
  switch (c->mode) {
  case CCT_MODE_JSON: rc = print_diff_json(c, d); break;
  case CCT_MODE_CSV: rc = print_diff_csv(c, d); break;
  case CCT_MODE_FOLDED: rc = print_diff_folded(c, d); break;
  case CCT_MODE_TABLE: rc = print_diff_table(c, d); break;
  default: rc = print_diff_tree(c, d); break;
  }
  if (d->note && c->mode != CCT_MODE_JSON && c->mode != CCT_MODE_CSV && c->mode != CCT_MODE_FOLDED)
    fputs("note: ", c->out), out_text(c->out, d->note), fputc('\n', c->out);
  fflush(c->out);
  return cct_shell_interrupted ? -1 : rc;
}

/* --------------------------------------------------------------- entry */

static outctx out_ctx(cct_shell *p, FILE *f, int mode) {
  outctx c;
  if (f) {
    c.out = f, c.mode = mode, c.color = 0, c.width = EXPORT_WIDTH;
  } else {
    c.out = p->out, c.mode = p->mode, c.color = p->color, c.width = out_width(p);
  }
  return c;
}

int cct_out_view_to(cct_shell *p, const cct_view *v, FILE *f, int mode) {
  outctx ctx = out_ctx(p, f, mode);
  const outctx *c = &ctx;
  int width = c->width, rc = 0;
  int src = !strcmp(v->view, "source");
  if (!f) keep_handles(p, v);
  switch (c->mode) {
  case CCT_MODE_JSON: rc = print_view_json(c, v); break;
  case CCT_MODE_CSV: rc = print_view_csv(c, v); break;
  case CCT_MODE_FOLDED:
    if (!src) {
      rc = print_folded(c, v);
      break;
    }
    /* fall through */
  case CCT_MODE_TABLE: rc = print_view_table(c, v, width); break;
  default: rc = src ? print_source(c, v, width) : print_tree(c, v, width); break;
  }
  if (v->note && c->mode != CCT_MODE_JSON && c->mode != CCT_MODE_CSV && c->mode != CCT_MODE_FOLDED)
    fputs("note: ", c->out), out_text(c->out, v->note), fputc('\n', c->out);
  fflush(c->out);
  return cct_shell_interrupted ? -1 : rc;
}

int cct_out_view(cct_shell *p, const cct_view *v) { return cct_out_view_to(p, v, NULL, 0); }

/* ----------------------------------------------------------------- stats */

/* A number for people: whole numbers in full, others to 7 significant digits. */
static const char *human_text(char *buf, size_t n, double d) {
  if (isfinite(d) && d == floor(d) && fabs(d) < 1e15) snprintf(buf, n, "%.0f", d);
  else snprintf(buf, n, "%.7g", d);
  return buf;
}

static void json_int_or_null(FILE *o, long long v) {
  if (v < 0) fputs("null", o);
  else fprintf(o, "%lld", v);
}

int cct_out_stats(cct_shell *p, const cct_stats *s) { return cct_out_stats_to(p, s, NULL, 0); }

static int stats_print(cct_shell *p, const cct_stats *s, FILE *f, int mode, int order);

int cct_out_stats_order(cct_shell *p, const cct_stats *s, int order) { return stats_print(p, s, NULL, 0, order); }

int cct_out_stats_to(cct_shell *p, const cct_stats *s, FILE *f, int mode) {
  return stats_print(p, s, f, mode, CCT_STATS_BY_VALUE);
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

/* The figures of one distribution (indented by ind, 2 blanks more than its title). */
static void stats_figures(FILE *o, const cct_stats_dist *d, const char *ind) {
  char b[40];
  fprintf(o, "%s  sum        %s\n", ind, human_text(b, sizeof b, d->sum));
  fprintf(o, "%s  min        %s\n", ind, human_text(b, sizeof b, d->min));
  fprintf(o, "%s  max        %s\n", ind, human_text(b, sizeof b, d->max));
  fprintf(o, "%s  mean       %s\n", ind, human_text(b, sizeof b, d->mean));
  fprintf(o, "%s  stddev     %s\n", ind, human_text(b, sizeof b, d->stddev));
  fprintf(o, "%s  imbalance  %.3f (max / mean)\n", ind, d->imbalance);
}

/* The histogram of one distribution, its title indented by ind. */
static void stats_histogram(FILE *o, const cct_stats *s, const cct_stats_dist *d, const char *ind) {
  char lo[40], hi[40];
  if (!s->bins || !d->count) return;
  size_t most = 1;
  double width = (d->max - d->min) / (double)s->bins;
  for (size_t k = 0; k < s->bins; k++)
    if (d->histogram[k] > most) most = d->histogram[k];
  fprintf(o, "%shistogram (%zu bins):\n", ind, s->bins);
  for (size_t k = 0; k < s->bins; k++) {
    human_text(lo, sizeof lo, d->min + width * (double)k);
    human_text(hi, sizeof hi, k + 1 == s->bins ? d->max : d->min + width * (double)(k + 1));
    int bar = (int)(40.0 * (double)d->histogram[k] / (double)most + 0.5);
    fprintf(o, "%s  %14s .. %-14s %6zu %.*s\n", ind, lo, hi, d->histogram[k], bar,
            "########################################");
  }
}

static int stats_print(cct_shell *p, const cct_stats *s, FILE *f, int mode, int order) {
  outctx ctx = out_ctx(p, f, mode);
  FILE *o = ctx.out;
  size_t nc = cct_center_count(p->q);
  double width = s->bins ? (s->max - s->min) / (double)s->bins : 0;
  if (ctx.mode == CCT_MODE_JSON) {
    fprintf(o, "{\"view\": \"stats\", \"run\": %d, \"center\": [", cct_query_run(p->q));
    for (size_t i = 0; i < nc; i++) {
      if (i) fputs(", ", o);
      cct_out_json_string(o, cct_center_item(p->q, i));
    }
    fputs("], \"metric\": ", o);
    cct_out_json_string(o, s->metric);
    fputs(", \"note\": ", o);
    cct_out_json_string(o, s->note);
    fputs(", \"program_sum\": ", o);
    cct_out_number(o, s->program_sum);
    fputs(", \"program_total\": ", o);
    cct_out_number(o, s->program_total);
    fputs(", \"kinds\": {", o);
    for (int k = 0, first = 1; k < 2; k++) {
      const cct_stats_dist *d = &s->kinds[k];
      if (!d->count) continue;
      fprintf(o, "%s\"%s\": {\"count\": %zu", first ? "" : ", ", k ? "gpu" : "cpu", d->count);
      const char *dn[] = {"sum", "min", "max", "mean", "stddev", "imbalance"};
      double dv[] = {d->sum, d->min, d->max, d->mean, d->stddev, d->imbalance};
      for (int j = 0; j < 6; j++) {
        fprintf(o, ", \"%s\": ", dn[j]);
        cct_out_number(o, dv[j]);
      }
      fputc('}', o);
      first = 0;
    }
    fputc('}', o);
    fprintf(o, ", \"count\": %zu", s->count);
    const char *names[] = {"sum", "min", "max", "mean", "stddev", "imbalance"};
    double vals[] = {s->sum, s->min, s->max, s->mean, s->stddev, s->imbalance};
    for (int k = 0; k < 6; k++) {
      fprintf(o, ", \"%s\": ", names[k]);
      cct_out_number(o, vals[k]);
    }
    fputs(", \"profiles\": [", o);
    for (size_t i = 0; i < s->count; i++) {
      const struct cct_stats_profile *pr = &s->profiles[i];
      fprintf(o, "%s{\"profile\": %d, \"node\": ", i ? ", " : "", pr->profile);
      json_int_or_null(o, pr->node);
      fputs(", \"rank\": ", o);
      json_int_or_null(o, pr->rank);
      fputs(", \"thread\": ", o);
      json_int_or_null(o, pr->thread);
      fputs(", \"gpucontext\": ", o);
      json_int_or_null(o, pr->gpucontext);
      fputs(", \"gpustream\": ", o);
      json_int_or_null(o, pr->gpustream);
      fprintf(o, ", \"kind\": \"%s\"", pr->kind ? "gpu" : "cpu");
      fputs(", \"value\": ", o);
      cct_out_number(o, pr->value);
      fputc('}', o);
    }
    fputs("], \"histogram\": [", o);
    for (size_t b = 0; b < s->bins; b++) {
      fprintf(o, "%s{\"low\": ", b ? ", " : "");
      cct_out_number(o, s->min + width * (double)b);
      fputs(", \"high\": ", o);
      cct_out_number(o, b + 1 == s->bins ? s->max : s->min + width * (double)(b + 1));
      fprintf(o, ", \"count\": %zu}", s->histogram[b]);
    }
    fputs("]}\n", o);
    return 0;
  }
  if (ctx.mode == CCT_MODE_CSV) {
    fputs("profile,node,rank,thread,gpucontext,gpustream,value\r\n", o);
    for (size_t i = 0; i < s->count; i++) {
      const struct cct_stats_profile *pr = &s->profiles[i];
      long long ids[] = {pr->node, pr->rank, pr->thread, pr->gpucontext, pr->gpustream};
      fprintf(o, "%d", pr->profile);
      for (int k = 0; k < 5; k++) {
        fputc(',', o);
        if (ids[k] >= 0) fprintf(o, "%lld", ids[k]);
      }
      fputc(',', o);
      cct_out_number(o, s->profiles[i].value);
      fputs("\r\n", o);
    }
    return 0;
  }
  /* tree, table, folded: a summary, the top profiles, a histogram. */
  out_text(o, s->metric ? s->metric : "?");
  fputs(" inclusive of ", o);
  if (!nc) fputs("the program", o);
  for (size_t i = 0; i < nc; i++) { /* items as typed: quoted ones keep their own quotes */
    const char *item = cct_center_item(p->q, i);
    int quoted = item[0] == '\'' || item[0] == '"';
    fputs(i ? ", " : "", o);
    if (!quoted) fputc('\'', o);
    out_text(o, item);
    if (!quoted) fputc('\'', o);
  }
  fprintf(o, " over %zu profile%s\n", s->count, s->count == 1 ? "" : "s");
  if (s->note) fprintf(o, "note: %s\n", s->note);
  if (!s->count) {
    fflush(o);
    return 0;
  }
  char b[40], id[256];
  int mixed = s->kinds[0].count && s->kinds[1].count;
  const cct_stats_dist *only = &s->kinds[s->kinds[0].count ? 0 : 1];
  if (!mixed) {
    stats_figures(o, only, "");
  } else { /* CPU threads and GPU streams apart: one imbalance over both would mean nothing */
    for (int k = 0; k < 2; k++) {
      fprintf(o, "%s (%zu):\n", k ? "GPU streams" : "CPU threads", s->kinds[k].count);
      stats_figures(o, &s->kinds[k], "  ");
      stats_histogram(o, s, &s->kinds[k], "  ");
    }
  }
  size_t top = order == CCT_STATS_BY_VALUE ? (s->count < 5 ? s->count : 5) : s->count;
  if (order == CCT_STATS_BY_VALUE) fprintf(o, "top %zu:\n", top);
  else fprintf(o, "profiles by %s:\n", order == CCT_STATS_BY_RANK ? "rank" : "thread");
  for (size_t i = 0; i < top; i++) {
    const struct cct_stats_profile *pr = &s->profiles[i];
    profile_id_text(pr, id, sizeof id);
    fprintf(o, "  profile %-4d %-36s %s%s\n", pr->profile, id, human_text(b, sizeof b, pr->value),
            mixed && pr->kind ? "  (GPU)" : "");
  }
  if (!mixed) stats_histogram(o, s, only, "");
  fflush(o);
  return 0;
}

/* ------------------------------------------------------------ statements */

/* The text of column c of the current row (owned; NULL for SQL NULL). */
static char *column_text(sqlite3_stmt *st, int c) {
  switch (sqlite3_column_type(st, c)) {
  case SQLITE_NULL: return NULL;
  case SQLITE_FLOAT: {
    char b[40];
    return strdup(number_text(b, sizeof b, sqlite3_column_double(st, c)));
  }
  case SQLITE_BLOB: return xprintf("<blob %d bytes>", sqlite3_column_bytes(st, c));
  default: return strdup((const char *)sqlite3_column_text(st, c));
  }
}

static void json_column(FILE *o, sqlite3_stmt *st, int c) {
  switch (sqlite3_column_type(st, c)) {
  case SQLITE_NULL: fputs("null", o); break;
  case SQLITE_INTEGER: fprintf(o, "%lld", (long long)sqlite3_column_int64(st, c)); break;
  case SQLITE_FLOAT: cct_out_number(o, sqlite3_column_double(st, c)); break;
  case SQLITE_BLOB: {
    const unsigned char *b = sqlite3_column_blob(st, c);
    int n = sqlite3_column_bytes(st, c);
    fputc('"', o);
    for (int i = 0; i < n; i++) fprintf(o, "%02x", b[i]);
    fputc('"', o);
    break;
  }
  default: cct_out_json_string(o, (const char *)sqlite3_column_text(st, c));
  }
}

int cct_out_stmt(cct_shell *p, sqlite3_stmt *st, const char *view) {
  FILE *o = p->out;
  int nc = sqlite3_column_count(st), rc;
  size_t nrows = 0;
  if (nc == 0 && p->mode != CCT_MODE_JSON) { /* 'sql BEGIN': no columns, nothing to print */
    while (!cct_shell_interrupted && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    }
    return cct_shell_interrupted ? SQLITE_INTERRUPT : rc;
  }
  if (p->mode == CCT_MODE_JSON) {
    fputs("{\"view\": ", o);
    cct_out_json_string(o, view);
    if (p->q) fprintf(o, ", \"run\": %d", cct_query_run(p->q));
    fputs(", \"rows\": [", o);
    while (!cct_shell_interrupted && (rc = sqlite3_step(st)) == SQLITE_ROW) {
      fputs(nrows++ ? ",\n  {" : "\n  {", o);
      for (int c = 0; c < nc; c++) {
        if (c) fputs(", ", o);
        cct_out_json_string(o, sqlite3_column_name(st, c));
        fputs(": ", o);
        json_column(o, st, c);
      }
      fputc('}', o);
    }
    fputs(nrows ? "\n]}\n" : "]}\n", o);
    return cct_shell_interrupted ? SQLITE_INTERRUPT : rc;
  }
  if (p->mode == CCT_MODE_CSV) {
    for (int c = 0; c < nc; c++) {
      if (c) fputc(',', o);
      cct_out_csv_field(o, sqlite3_column_name(st, c));
    }
    fputs("\r\n", o);
    while (!cct_shell_interrupted && (rc = sqlite3_step(st)) == SQLITE_ROW) {
      for (int c = 0; c < nc; c++) {
        if (c) fputc(',', o);
        char *t = column_text(st, c);
        cct_out_csv_field(o, t);
        free(t);
      }
      fputs("\r\n", o);
    }
    return cct_shell_interrupted ? SQLITE_INTERRUPT : rc;
  }
  grid g;
  if (grid_init(&g, nc)) return SQLITE_NOMEM;
  for (int c = 0; c < nc; c++) g.head[c] = strdup(sqlite3_column_name(st, c));
  while (!cct_shell_interrupted && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    char **row = grid_row(&g);
    if (!row) {
      rc = SQLITE_NOMEM;
      break;
    }
    for (int c = 0; c < nc; c++) {
      int t = sqlite3_column_type(st, c);
      row[c] = column_text(st, c);
      if (g.nrows == 1) g.right[c] = t == SQLITE_INTEGER || t == SQLITE_FLOAT;
    }
  }
  outctx ctx = out_ctx(p, NULL, 0);
  if (rc == SQLITE_DONE) grid_print(&ctx, &g, ctx.width);
  grid_release(&g);
  fflush(o);
  return cct_shell_interrupted ? SQLITE_INTERRUPT : rc;
}
