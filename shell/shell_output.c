/* shell_output.c: every result the cctq shell prints (SPEC section 6).  A
 * command's result - a view, a diff, stats, a statement ('sql', 'runs',
 * 'metrics'), the center listing - is first turned into one shape, a
 * cct_result: a table of typed columns (text, integer, real, boolean) with
 * roles (handle, depth, name, value, change, mark) and metadata (the JSON
 * members around the rows, a title, a note, the folded columns).  Five
 * formatters print any result, as SQLite's shell prints everything through one
 * callback:
 *   tree    aligned text; a result with a depth column draws the tree ('|- ',
 *           '`- ', '|  ') before its name column, handles as '[N]', value
 *           columns with the % of their base
 *   table   the same grid without the tree: handle and depth as numbers
 *   csv     RFC 4180 (CRLF line ends), full-precision numbers, never cut
 *   json    one object per result: its metadata members, then "rows" (columns
 *           of a metric group nested in "values": {METRIC: {...}})
 *   folded  'a;b;c value' lines for flame-graph tools, from the result's folded
 *           columns (self values: a row's value minus its printed children's),
 *           zero lines left out; results without folded columns print as table.
 * The width and number rules are written once, here: names are cut (in the
 * middle, '...') only on a terminal or under an explicit 'width', and only the
 * name column, never the tree connectors; values print with significant
 * digits (cct_out_value), zero as '0'.  Every text goes through the escaper of
 * common/cct_escape.h. */
#include "shell_int.h"

#include "cct_escape.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define BOLD "\033[1m"
#define PLAIN "\033[0m"
#define RED "\033[31m"
#define GREEN "\033[32m"

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

const char *cct_out_value(char *buf, size_t n, double d, int integral) {
  double a = fabs(d);
  if (!isfinite(d)) snprintf(buf, n, "-");
  else if (d == 0) snprintf(buf, n, "0");
  else if (integral && a < 1e15) snprintf(buf, n, "%.0f", d);
  else if (a >= 1e6) snprintf(buf, n, "%.3e", d);
  else if (a >= 1) snprintf(buf, n, "%.3f", d);
  else if (a >= 1e-3) snprintf(buf, n, "%.*f", 2 - (int)floor(log10(a)), d); /* 3 significant digits */
  else snprintf(buf, n, "%.2e", d);
  return buf;
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
  /* 'name [module]': cut the module first, not the name (nor the address
   * that tells hpcprof's unknown procedures apart); a name still too wide is
   * cut in its middle and keeps ' [...]'. */
  const char *br = NULL;
  size_t n = strlen(s);
  for (const char *c = s; (c = strstr(c, " [")) != NULL; c++) br = c;
  if (br && s[n - 1] == ']' && clean_width(br) < w) {
    int nw = w - clean_width(br); /* the name's width */
    if (nw + 6 <= width) {
      fwrite(s, 1, byte_at(s, width - 4), f);
      fputs("...]", f);
      return width;
    }
    if (width >= 16) {
      int head = (width - 9 + 1) / 2, tail = width - 9 - head;
      fwrite(s, 1, byte_at(s, head), f);
      fputs("...", f);
      fwrite(s + byte_at(s, nw - tail), 1, byte_at(s, nw) - byte_at(s, nw - tail), f);
      fputs(" [...]", f);
      return width;
    }
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

int cct_out_limit(cct_shell *p) {
  if (p->width > 0) return p->width;
  int fd = p->paged ? STDOUT_FILENO : fileno(p->out);
  if (!isatty(fd)) return 0; /* off a terminal nothing is cut */
  const char *c = getenv("COLUMNS");
  int n = c ? atoi(c) : 0;
  if (n >= 20 && n <= 100000) return n;
  struct winsize ws;
  if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}

static const char *kind_name(int kind) {
  static const char *const names[] = {"root", "function", "loop", "line", "instruction", "center", "file", "module"};
  return kind >= 0 && kind < 8 ? names[kind] : "unknown";
}

static const char *base_name(const char *path) {
  const char *s = path ? strrchr(path, '/') : NULL;
  return s && s[1] ? s + 1 : path;
}

/* ---------------------------------------------------------------- results */

static void result_init(cct_result *r, const char *view) {
  memset(r, 0, sizeof *r);
  r->view = view;
  r->rows_key = "rows";
  r->depth_col = r->name_col = r->path_col = -1;
  r->fold_sub[0] = r->fold_sub[1] = -1;
}

void cct_result_release(cct_result *r) {
  for (size_t i = 0; i < r->nowned; i++) free(r->owned[i]);
  free(r->owned);
  free(r->cols);
  free(r->cells);
  free(r->bold);
  free(r->json_head);
  free(r->json_tail);
  free(r->title);
  free(r->tail);
  memset(r, 0, sizeof *r);
}

/* Keeps s (malloc'ed, may be NULL) owned by r.  Returns s. */
static const char *keep(cct_result *r, char *s) {
  if (!s) return NULL;
  if (r->nowned == r->capowned) {
    size_t cap = r->capowned ? 2 * r->capowned : 64;
    char **o = realloc(r->owned, cap * sizeof *o);
    if (!o) {
      free(s);
      r->failed = 1;
      return NULL;
    }
    r->owned = o, r->capowned = cap;
  }
  return r->owned[r->nowned++] = s;
}

/* Adds a column (before any row).  Returns its index. */
static int add_col(cct_result *r, const char *key, int type, int role, int in) {
  if (r->ncols == r->capcols) {
    size_t cap = r->capcols ? 2 * r->capcols : 16;
    cct_col *c = realloc(r->cols, cap * sizeof *c);
    if (!c) return r->failed = 1, 0;
    r->cols = c, r->capcols = cap;
  }
  cct_col *c = &r->cols[r->ncols];
  memset(c, 0, sizeof *c);
  c->key = key, c->type = type, c->role = role, c->in = in, c->metric = -1;
  c->order = (int)r->ncols;
  if (role == CCT_ROLE_DEPTH) r->depth_col = (int)r->ncols;
  return (int)r->ncols++;
}

/* Column i of r (a dummy after a failed allocation). */
static cct_col *colp(cct_result *r, int i) {
  static cct_col dummy;
  return r->failed || (size_t)i >= r->ncols ? &dummy : &r->cols[i];
}

/* Appends a row of null cells.  Returns them, or NULL when out of memory. */
static cct_cell *add_row(cct_result *r) {
  if (r->failed) return NULL;
  if (r->nrows == r->caprows) {
    size_t cap = r->caprows ? 2 * r->caprows : 64;
    cct_cell *c = realloc(r->cells, cap * (r->ncols ? r->ncols : 1) * sizeof *c);
    if (!c) return r->failed = 1, NULL;
    r->cells = c;
    unsigned char *b = realloc(r->bold, cap);
    if (!b) return r->failed = 1, NULL;
    r->bold = b, r->caprows = cap;
  }
  cct_cell *row = r->cells + r->nrows * r->ncols;
  for (size_t c = 0; c < r->ncols; c++) memset(&row[c], 0, sizeof row[c]), row[c].null = 1;
  r->bold[r->nrows++] = 0;
  return row;
}

static void set_int(cct_cell *c, long long v) { c->null = 0, c->t = CCT_T_INT, c->i = v; }
static void set_bool(cct_cell *c, int v) { c->null = 0, c->t = CCT_T_BOOL, c->i = v != 0; }
static void set_real(cct_cell *c, double v) { c->null = 0, c->t = CCT_T_REAL, c->d = v; }
static void set_text(cct_cell *c, const char *s) { c->null = s == NULL, c->t = CCT_T_TEXT, c->s = s; }

/* Appends text to a growing string *s (NULL when out of memory). */
static void append(char **s, const char *t) {
  size_t a = *s ? strlen(*s) : 0, b = strlen(t);
  char *n = realloc(*s, a + b + 1);
  if (!n) {
    free(*s);
    *s = NULL;
    return;
  }
  memcpy(n + a, t, b + 1);
  *s = n;
}

/* Appends ', "key": ' and the JSON of a string (NULL: null) to *s. */
static void json_member_str(char **s, const char *key, const char *v) {
  char *e = v ? cct_escape_dup(v, CCT_ESC_JSON) : NULL;
  char *m = v ? xprintf(", \"%s\": \"%s\"", key, e ? e : "") : xprintf(", \"%s\": null", key);
  free(e);
  if (m) append(s, m);
  free(m);
}

/* Appends ', "key": ' and raw JSON text to *s. */
static void json_member_raw(char **s, const char *key, const char *raw) {
  char *m = xprintf(", \"%s\": %s", key, raw);
  if (m) append(s, m);
  free(m);
}

/* A JSON array of strings. */
static char *json_strings(const char *const *v, size_t n) {
  char *s = strdup("[");
  for (size_t i = 0; s && i < n; i++) {
    char *e = cct_escape_dup(v[i] ? v[i] : "", CCT_ESC_JSON);
    char *m = xprintf("%s\"%s\"", i ? ", " : "", e ? e : "");
    free(e);
    if (m) append(&s, m);
    free(m);
  }
  if (s) append(&s, "]");
  return s;
}

/* Shortest round-trip JSON number. */
static void json_number_member(char **s, const char *key, double d) {
  char b[40];
  json_member_raw(s, key, number_text(b, sizeof b, d));
}

/* ------------------------------------------------------------ formatters */

/* The shared context of the formatters. */
typedef struct fmt {
  cct_shell *p;
  FILE *out;
  int mode, color, limit; /* limit: width for tree/table, 0 = nothing cut */
  const int *show;        /* per column: 1 when shown in this mode */
} fmt;

/* 1 when column c of r shows in a text grid of mode tree (tree) or table. */
static int col_shown(const fmt *f, const cct_result *r, size_t c, int tree) {
  const cct_col *k = &r->cols[c];
  if (!(k->in & (tree ? CCT_IN_TREE : CCT_IN_TABLE))) return 0;
  if (k->metric <= 0) return 1;
  for (size_t i = 0; i < f->p->ncolumns; i++) /* 'columns': other metrics on request */
    if (k->group && !strcmp(f->p->columns[i], k->group)) return 1;
  return 0;
}

static double cell_value(const cct_cell *x) { return x->t == CCT_T_REAL ? x->d : (double)x->i; }

/* Whether a value column only holds whole numbers (printed without decimals). */
static int col_integral(const cct_result *r, size_t c) {
  for (size_t i = 0; i < r->nrows; i++) {
    const cct_cell *x = &r->cells[i * r->ncols + c];
    double d = cell_value(x);
    if (!x->null && isfinite(d) && (d != floor(d) || fabs(d) >= 1e15)) return 0;
  }
  return 1;
}

/* The text of a cell for tree/table (owned by the caller; "" for null). */
static char *cell_text(const cct_result *r, size_t c, const cct_cell *x, int tree, int integral) {
  const cct_col *k = &r->cols[c];
  char b[64];
  if (x->null) return strdup("");
  switch (k->role) {
  case CCT_ROLE_HANDLE: return tree ? xprintf("[%lld]", x->i) : xprintf("%lld", x->i);
  case CCT_ROLE_MARK: return strdup(x->i ? (k->title ? k->title : "*") : "");
  case CCT_ROLE_VALUE:
  case CCT_ROLE_CHANGE: {
    double d = x->t == CCT_T_REAL ? x->d : (double)x->i;
    cct_out_value(b, sizeof b, k->role == CCT_ROLE_CHANGE ? fabs(d) : d, integral);
    char *v = k->role == CCT_ROLE_CHANGE && isfinite(d) && d != 0 ? xprintf("%c%s", d > 0 ? '+' : '-', b) : strdup(b);
    if (!(k->base > 0) || !v) return v;
    char *s = isfinite(d) ? xprintf("%s %5.1f%%", v, 100.0 * d / k->base) : xprintf("%s      -", v);
    free(v);
    return s;
  }
  default: break;
  }
  switch (x->t) {
  case CCT_T_INT: return xprintf("%lld", x->i);
  case CCT_T_BOOL: return strdup(x->i ? "1" : "0");
  case CCT_T_REAL: return strdup(number_text(b, sizeof b, x->d));
  default: return cct_escape_dup(x->s, CCT_ESC_TERM);
  }
}

/* A column with its sort key (no sort context outside the array). */
typedef struct okey {
  int order, col;
} okey;

/* By order, then by index (stable). */
static int cmp_order(const void *a, const void *b) {
  const okey *x = a, *y = b;
  if (x->order != y->order) return x->order < y->order ? -1 : 1;
  return x->col < y->col ? -1 : x->col > y->col;
}

/* Sorts cols[0..n) (column indices of r) by their order. */
static int sort_cols(const cct_result *r, int *cols, int n) {
  okey *k = malloc(((size_t)n + 1) * sizeof *k);
  if (!k) return -1;
  for (int g = 0; g < n; g++) k[g] = (okey){r->cols[cols[g]].order, cols[g]};
  qsort(k, (size_t)n, sizeof *k, cmp_order);
  for (int g = 0; g < n; g++) cols[g] = k[g].col;
  free(k);
  return 0;
}

/* The header of column c in a text grid: none over marks and tree handles. */
static const char *col_title(const cct_result *r, size_t c, int tree) {
  const cct_col *k = &r->cols[c];
  if (k->role == CCT_ROLE_MARK && tree) return "";
  if (k->role == CCT_ROLE_HANDLE) return tree ? "" : "#";
  return k->title ? k->title : k->key;
}

/* 1 when column c has no value in any of the first n rows. */
static int col_empty(const cct_result *r, size_t c, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!r->cells[i * r->ncols + c].null) return 0;
  return 1;
}

/* The separator before grid column k (after column j): one blank around a mark. */
static const char *sep_between(const cct_result *r, int j, int k) {
  if (j < 0) return "";
  return r->cols[j].role == CCT_ROLE_MARK || r->cols[k].role == CCT_ROLE_MARK ? " " : "  ";
}

/* Tree and table: aligned columns; in tree mode with a depth column, the
 * connectors before the name.  Only the name column is cut, to f->limit. */
static int print_grid(const fmt *f, const cct_result *r, int tree) {
  FILE *o = f->out;
  size_t n = r->text_rows && r->text_rows < r->nrows ? r->text_rows : r->nrows;
  int rc = -1, ng = 0;
  int *cols = calloc(r->ncols + 1, sizeof *cols), *w = calloc(r->ncols + 1, sizeof *w);
  int *integral = calloc(r->ncols + 1, sizeof *integral);
  char **text = calloc(n * r->ncols + 1, sizeof *text);
  unsigned char *next = calloc(n + 1, 1), *anc = NULL;
  int maxdepth = 0, drawn = tree && r->depth_col >= 0;
  char *line0 = NULL; /* the span line, trimmed before it is printed */
  size_t line0len = 0;
  FILE *head = NULL;
  if (!cols || !w || !integral || !text || !next) goto out;
  for (size_t c = 0; c < r->ncols; c++)
    if (col_shown(f, r, c, tree) && !(r->hide_empty && col_empty(r, c, n))) cols[ng++] = (int)c;
  if (!ng) { /* no column to show: the text around the grid only */
    if (r->title) fputs(r->title, o);
    if (!n && r->empty_text) fprintf(o, "%s\n", r->empty_text);
    if (r->tail) fputs(r->tail, o);
    rc = 0;
    goto out;
  }
  if (sort_cols(r, cols, ng)) goto out;
  for (int g = 0; g < ng; g++) {
    size_t c = (size_t)cols[g];
    if (r->cols[c].role == CCT_ROLE_VALUE || r->cols[c].role == CCT_ROLE_CHANGE) integral[c] = col_integral(r, c);
    w[c] = cct_out_width(col_title(r, c, tree));
    if (r->cols[c].role == CCT_ROLE_MARK) w[c] = 1;
    for (size_t i = 0; i < n; i++) {
      char *s = cell_text(r, c, &r->cells[i * r->ncols + c], tree, integral[c]);
      if (!s) goto out;
      text[i * r->ncols + c] = s;
      int l = clean_width(s);
      if (l > w[c]) w[c] = l;
    }
  }
  /* The tree: next[i] = a later sibling follows row i (backward pass). */
  if (drawn) {
    for (size_t i = 0; i < n; i++) {
      long long d = r->cells[i * r->ncols + (size_t)r->depth_col].i;
      if (d > maxdepth) maxdepth = (int)d;
    }
    unsigned char *seen = calloc((size_t)maxdepth + 2, 1);
    anc = calloc((size_t)maxdepth + 2, 1);
    if (!seen || !anc) {
      free(seen);
      goto out;
    }
    for (size_t k = n; k-- > 0;) {
      int d = (int)r->cells[k * r->ncols + (size_t)r->depth_col].i;
      if (d < 0) d = 0;
      next[k] = seen[d];
      seen[d] = 1;
      memset(seen + d + 1, 0, (size_t)(maxdepth - d));
    }
    free(seen);
  }
  int spans = 0; /* distinct spans: tree mode names even one, table mode from two on */
  const char *span1 = NULL;
  for (int g = 0; g < ng; g++) {
    const char *sp = r->cols[cols[g]].span;
    if (sp && (!span1 || strcmp(sp, span1))) spans++, span1 = sp;
  }
  if (!tree && spans < 2) spans = 0;
  /* A span wider than its columns widens the last of them. */
  for (int g = 0; g < ng;) {
    const char *sp = r->cols[cols[g]].span;
    int h = g + 1, span = w[cols[g]];
    for (; sp && h < ng && r->cols[cols[h]].span && !strcmp(r->cols[cols[h]].span, sp); h++)
      span += (int)strlen(sep_between(r, cols[h - 1], cols[h])) + w[cols[h]];
    if (spans && sp && r->cols[cols[h - 1]].role != CCT_ROLE_NAME && cct_out_width(sp) > span)
      w[cols[h - 1]] += cct_out_width(sp) - span;
    g = h;
  }
  /* The name column gets what the others leave of the limit. */
  int namec = -1, namew = 0, used = 0;
  for (int g = 0; g < ng; g++) {
    size_t c = (size_t)cols[g];
    used += (int)strlen(sep_between(r, g ? cols[g - 1] : -1, (int)c));
    if (r->cols[c].role == CCT_ROLE_NAME && namec < 0) namec = (int)c;
    else used += w[c];
  }
  if (namec >= 0 && f->limit > 0) {
    namew = f->limit - used;
    if (namew < 20) namew = 20;
    int need = w[namec] + (drawn ? 3 * maxdepth : 0); /* no wider than the widest name needs */
    if (need < namew) namew = need;
  }
  /* Header lines: spans (metric names) over their columns, then titles. */
  head = spans ? open_memstream(&line0, &line0len) : NULL;
  if (spans && !head) goto out;
  if (r->title) fputs(r->title, o); /* already escaped, with its line ends */
  for (int line = spans ? 0 : 1; line < 2 && !r->no_header; line++) {
    FILE *lo = line ? o : head;
    fprintf(lo, "%*s", r->indent, "");
    for (int g = 0; g < ng; g++) {
      size_t c = (size_t)cols[g];
      const cct_col *k = &r->cols[c];
      fputs(sep_between(r, g ? cols[g - 1] : -1, (int)c), lo);
      int last = g == ng - 1, right = k->role != CCT_ROLE_NAME && k->type != CCT_T_TEXT && k->role != CCT_ROLE_MARK;
      if (line == 0) {
        if (k->span && (g == 0 || !r->cols[cols[g - 1]].span || strcmp(r->cols[cols[g - 1]].span, k->span))) {
          int span = w[c], h = g + 1;
          for (; h < ng && r->cols[cols[h]].span && !strcmp(r->cols[cols[h]].span, k->span); h++)
            span += (int)strlen(sep_between(r, cols[h - 1], cols[h])) + w[cols[h]];
          cct_out_fit(lo, k->span, span, h < ng);
          g = h - 1;
        } else if (!last) {
          fprintf(lo, "%*s", c == (size_t)namec && namew ? 0 : w[c], "");
        }
        continue;
      }
      const char *t = col_title(r, c, tree);
      if (right) fprintf(o, "%*s", w[c] - cct_out_width(t), ""), out_text(o, t);
      else cct_out_fit(o, t, c == (size_t)namec && namew ? namew : w[c], !last);
    }
    if (line == 0) { /* the span line without its trailing blanks */
      fclose(head);
      head = NULL;
      while (line0len && line0[line0len - 1] == ' ') line0len--;
      fwrite(line0, 1, line0len, o);
      free(line0);
      line0 = NULL;
    }
    fputc('\n', o);
  }
  if (!n && r->empty_text) fprintf(o, "%s\n", r->empty_text);
  for (size_t i = 0; i < n; i++) {
    if (cct_shell_interrupted) goto out;
    int d = drawn ? (int)r->cells[i * r->ncols + (size_t)r->depth_col].i : 0;
    if (d < 0) d = 0;
    if (drawn) anc[d] = next[i];
    fprintf(o, "%*s", r->indent, "");
    for (int g = 0; g < ng; g++) {
      size_t c = (size_t)cols[g];
      const cct_col *k = &r->cols[c];
      const char *s = text[i * r->ncols + c];
      int last = g == ng - 1;
      fputs(sep_between(r, g ? cols[g - 1] : -1, (int)c), o);
      if (k->role == CCT_ROLE_NAME) {
        int left = namew ? namew : w[c] + 3 * d;
        if (drawn) {
          for (int a = 1; a < d; a++) fputs(anc[a] ? "|  " : "   ", o);
          if (d > 0) fputs(next[i] ? "|- " : "`- ", o);
          left -= 3 * d;
          if (namew && left < 12) left = 12; /* connectors are never dropped: the line grows */
        }
        int bold = f->color && r->bold[i];
        if (bold) fputs(BOLD, o);
        if (namew) fit_clean(o, s, left, !last);
        else fputs(s, o);
        if (bold) fputs(PLAIN, o);
        if (!namew && !last) fprintf(o, "%*s", w[c] - clean_width(s) + (drawn ? 3 * (maxdepth - d) : 0), "");
        continue;
      }
      int right = k->type != CCT_T_TEXT && k->role != CCT_ROLE_MARK;
      const char *color = NULL;
      if (f->color && k->role == CCT_ROLE_CHANGE && !r->cells[i * r->ncols + c].null) {
        double v = cell_value(&r->cells[i * r->ncols + c]);
        if (isfinite(v) && v != 0) color = v > 0 ? RED : GREEN;
      }
      if (color) fputs(color, o);
      if (right) fprintf(o, "%*s%s", w[c] - clean_width(s), "", s);
      else fit_clean(o, s, w[c], !last);
      if (color) fputs(PLAIN, o);
    }
    fputc('\n', o);
  }
  if (r->tail) fputs(r->tail, o);
  rc = 0;
out:
  if (text)
    for (size_t i = 0; i < n * r->ncols; i++) free(text[i]);
  free(text);
  free(cols);
  free(w);
  free(integral);
  free(next);
  free(anc);
  if (head) fclose(head);
  free(line0);
  return rc;
}

/* The names from the top row down to row i (pre-order rows with a depth
 * column): stack[0..depth] of the last rows seen at each depth.  Returns the
 * depth of row i, or -1 without a depth or name column. */
static int path_at(const cct_result *r, size_t i, const char **stack, int maxdepth) {
  if (r->depth_col < 0 || r->name_col < 0) return -1;
  int d = (int)r->cells[i * r->ncols + (size_t)r->depth_col].i;
  if (d < 0) d = 0;
  if (d > maxdepth) d = maxdepth;
  const cct_cell *x = &r->cells[i * r->ncols + (size_t)r->name_col];
  stack[d] = x->null ? "" : x->s;
  return d;
}

static int max_depth(const cct_result *r) {
  int m = 0;
  for (size_t i = 0; r->depth_col >= 0 && i < r->nrows; i++) {
    long long d = r->cells[i * r->ncols + (size_t)r->depth_col].i;
    if (d > m) m = (int)d;
  }
  return m;
}

/* The csv or json header name of column c ('GROUP KEY' with a group, '_' as blank). */
static char *csv_name(const cct_col *k) {
  if (!k->group) return strdup(k->key);
  char *s = xprintf("%s %s", k->group, k->key);
  for (char *c = s ? s + strlen(k->group) : NULL; c && *c; c++)
    if (*c == '_') *c = ' ';
  return s;
}

static int print_csv(const fmt *f, const cct_result *r) {
  FILE *o = f->out;
  int md = max_depth(r);
  const char **stack = calloc((size_t)md + 2, sizeof *stack);
  if (!stack) return -1;
  int first = 1, path = r->depth_col >= 0 && r->name_col >= 0 && r->path_col >= 0;
  if (!r->ncols) goto done;
  for (size_t c = 0; c < r->ncols; c++) {
    if (!(r->cols[c].in & CCT_IN_DATA)) continue;
    if ((int)c == r->path_col && path) fputs(first ? "path" : ",path", o), first = 0;
    if (!first) fputc(',', o);
    first = 0;
    char *h = csv_name(&r->cols[c]);
    cct_out_csv_field(o, h ? h : "?");
    free(h);
  }
  fputs("\r\n", o);
  for (size_t i = 0; i < r->nrows && !cct_shell_interrupted; i++) {
    int d = path_at(r, i, stack, md);
    first = 1;
    for (size_t c = 0; c < r->ncols; c++) {
      const cct_col *k = &r->cols[c];
      const cct_cell *x = &r->cells[i * r->ncols + c];
      if (!(k->in & CCT_IN_DATA)) continue;
      if ((int)c == r->path_col && path) { /* the path of names down to the row */
        char *ps = NULL;
        for (int a = 0; a <= d; a++) {
          if (a) append(&ps, ";");
          append(&ps, stack[a] ? stack[a] : "");
        }
        if (!first) fputc(',', o);
        first = 0;
        cct_out_csv_field(o, ps ? ps : "");
        free(ps);
      }
      if (!first) fputc(',', o);
      first = 0;
      if (!x->null) switch (x->t) {
        case CCT_T_REAL:
          if (isfinite(x->d)) cct_out_number(o, x->d);
          break;
        case CCT_T_TEXT: cct_out_csv_field(o, x->s); break;
        default: fprintf(o, "%lld", x->i); break;
        }
    }
    fputs("\r\n", o);
  }
done:
  free(stack);
  return 0;
}

static void json_cell(FILE *o, const cct_cell *x) {
  if (x->null) {
    fputs("null", o);
    return;
  }
  switch (x->t) {
  case CCT_T_REAL: cct_out_number(o, x->d); break;
  case CCT_T_BOOL: fputs(x->i ? "true" : "false", o); break;
  case CCT_T_TEXT: cct_out_json_string(o, x->s); break;
  default: fprintf(o, "%lld", x->i); break;
  }
}

static int print_json(const fmt *f, const cct_result *r) {
  FILE *o = f->out;
  int md = max_depth(r), path = r->depth_col >= 0 && r->name_col >= 0 && r->path_col >= 0;
  const char **stack = calloc((size_t)md + 2, sizeof *stack);
  if (!stack) return -1;
  fputs("{\"view\": ", o);
  cct_out_json_string(o, r->view);
  if (r->json_head) fputs(r->json_head, o);
  fprintf(o, ", \"%s\": [", r->rows_key);
  for (size_t i = 0; i < r->nrows && !cct_shell_interrupted; i++) {
    int d = path_at(r, i, stack, md), first = 1;
    fputs(i ? ",\n  {" : "\n  {", o);
    for (size_t c = 0; c < r->ncols; c++) {
      const cct_col *k = &r->cols[c];
      if (!(k->in & CCT_IN_DATA) || k->group) continue;
      if ((int)c == r->path_col && path) {
        fputs(first ? "\"path\": [" : ", \"path\": [", o);
        first = 0;
        for (int a = 0; a <= d; a++) {
          if (a) fputs(", ", o);
          cct_out_json_string(o, stack[a] ? stack[a] : "");
        }
        fputc(']', o);
      }
      fputs(first ? "" : ", ", o);
      first = 0;
      cct_out_json_string(o, k->key);
      fputs(": ", o);
      json_cell(o, &r->cells[i * r->ncols + c]);
    }
    /* Grouped columns: "values": {GROUP: {KEY: v, ...}, ...}, groups in column order. */
    const char *group = NULL;
    for (size_t c = 0; c < r->ncols; c++) {
      const cct_col *k = &r->cols[c];
      if (!(k->in & CCT_IN_DATA) || !k->group) continue;
      int same = group && !strcmp(group, k->group);
      if (!same) {
        fputs(group ? "}, " : first ? "\"values\": {" : ", \"values\": {", o);
        cct_out_json_string(o, k->group);
        fputs(": {", o);
        group = k->group;
      } else {
        fputs(", ", o);
      }
      cct_out_json_string(o, k->key);
      fputs(": ", o);
      json_cell(o, &r->cells[i * r->ncols + c]);
    }
    if (group) fputs("}}", o);
    fputc('}', o);
  }
  fputs(r->nrows ? "\n]" : "]", o);
  if (r->json_tail) fputs(r->json_tail, o);
  fputs("}\n", o);
  free(stack);
  return 0;
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

/* Writes a path element with ';' replaced (it would split the frame), control
 * characters visible (a line break would split the record). */
static void folded_name(FILE *o, const char *s) {
  char *e = cct_escape_dup(s, CCT_ESC_TERM);
  for (const char *c = e ? e : "?"; *c; c++) fputc(*c == ';' ? ':' : *c, o);
  free(e);
}

static double cell_real(const cct_result *r, size_t i, int c) {
  const cct_cell *x = &r->cells[i * r->ncols + (size_t)c];
  double d = x->null ? 0 : x->t == CCT_T_REAL ? x->d : (double)x->i;
  return isfinite(d) ? d : 0;
}

/* Folded: 'a;b;c v [w]' lines of the folded columns.  With a subtracted
 * column, a line carries the row's self value: its value minus that column's
 * value of its printed children (so the lines add up to the top row: rows cut
 * by depth or threshold count in full in the printed row above). */
static int print_folded(const fmt *f, const cct_result *r) {
  FILE *o = f->out;
  size_t n = r->nrows;
  int md = max_depth(r), nf = r->nfold;
  double *self = calloc(2 * n + 1, sizeof *self), top[2] = {0, 0};
  const char **stack = calloc((size_t)md + 2, sizeof *stack);
  size_t *at = calloc((size_t)md + 2, sizeof *at);
  int *depth = calloc(n + 1, sizeof *depth);
  if (!self || !stack || !at || !depth) {
    free(self), free(stack), free(at), free(depth);
    return -1;
  }
  for (size_t i = 0; i < n; i++) {
    int d = r->depth_col >= 0 ? (int)r->cells[i * r->ncols + (size_t)r->depth_col].i : 0;
    depth[i] = d < 0 ? 0 : d > md ? md : d;
    at[depth[i]] = i;
    for (int k = 0; k < nf; k++) {
      self[2 * i + (size_t)k] += cell_real(r, i, r->fold_value[k]);
      int sub = r->fold_sub[k] >= 0 ? r->fold_sub[k] : r->fold_value[k];
      double t = fabs(cell_real(r, i, sub));
      if (t > top[k]) top[k] = t;
      if (r->fold_sub[k] >= 0 && depth[i] > 0 && depth[at[depth[i] - 1]] == depth[i] - 1)
        self[2 * at[depth[i] - 1] + (size_t)k] -= cell_real(r, i, r->fold_sub[k]);
    }
  }
  for (size_t i = 0; i < n && !cct_shell_interrupted; i++) {
    int any = 0;
    for (int k = 0; k < nf; k++) {
      if (!(self[2 * i + (size_t)k] > 1e-12 * top[k])) self[2 * i + (size_t)k] = 0; /* rounding noise */
      any |= self[2 * i + (size_t)k] != 0;
    }
    int d = r->name_col >= 0 ? path_at(r, i, stack, md) : -1;
    if (!any || r->name_col < 0) continue;
    if (d < 0) d = 0, stack[0] = r->cells[i * r->ncols + (size_t)r->name_col].s;
    for (int a = 0; a <= d; a++) {
      if (a) fputc(';', o);
      folded_name(o, stack[a] ? stack[a] : "");
    }
    for (int k = 0; k < nf; k++) fputc(' ', o), folded_number(o, self[2 * i + (size_t)k]);
    fputc('\n', o);
  }
  free(self), free(stack), free(at), free(depth);
  return 0;
}

int cct_out_result(cct_shell *p, const cct_result *r, FILE *out, int mode) {
  fmt f = {p, out ? out : p->out, out ? mode : p->mode, out ? 0 : p->color, out ? 0 : cct_out_limit(p), NULL};
  if (r->failed) return -1;
  int rc;
  switch (f.mode) {
  case CCT_MODE_JSON: rc = print_json(&f, r); break;
  case CCT_MODE_CSV: rc = print_csv(&f, r); break;
  case CCT_MODE_FOLDED:
    if (r->nfold) {
      rc = print_folded(&f, r);
      break;
    }
    rc = print_grid(&f, r, 0);
    break;
  case CCT_MODE_TABLE: rc = print_grid(&f, r, 0); break;
  default: rc = print_grid(&f, r, 1); break;
  }
  if (r->note && (f.mode == CCT_MODE_TREE || f.mode == CCT_MODE_TABLE || (f.mode == CCT_MODE_FOLDED && !r->nfold)))
    fputs("note: ", f.out), out_text(f.out, r->note), fputc('\n', f.out);
  fflush(f.out);
  return cct_shell_interrupted ? -1 : rc;
}

/* -------------------------------------------------------------- builders */

char *cct_out_label(const cct_row *r, int dup, const char *suffix) {
  char loc[512] = "";
  if (dup) {
    if (r->file && r->line >= 0) snprintf(loc, sizeof loc, " (%s:%lld)", base_name(r->file), r->line);
    else if (r->file) snprintf(loc, sizeof loc, " (%s)", base_name(r->file));
    else if (r->module) snprintf(loc, sizeof loc, " (%s)", base_name(r->module));
  }
  return xprintf("%s%s%s%s%s%s", r->name ? r->name : "?", r->callsite ? " @ " : "", r->callsite ? r->callsite : "",
                 r->inlined ? " [inlined]" : "", loc, suffix ? suffix : "");
}

/* The location column of table mode: 'file.c:12', 'file.c' or the module's base name. */
static char *row_location(const cct_row *r) {
  if (r->file && r->line >= 0) return xprintf("%s:%lld", base_name(r->file), r->line);
  if (r->file) return strdup(base_name(r->file));
  if (r->module) return strdup(base_name(r->module));
  return NULL;
}

/* A function row with its sort key (no sort context outside the array). */
typedef struct nkey {
  const char *name;
  size_t row;
} nkey;

static int cmp_name(const void *a, const void *b) {
  const nkey *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  return c ? c : (x->row > y->row) - (x->row < y->row);
}

int cct_out_dups(const cct_view *v, unsigned char *dup) {
  nkey *idx = malloc((v->nrows + 1) * sizeof *idx);
  size_t n = 0;
  if (!idx) return -1;
  for (size_t i = 0; i < v->nrows; i++)
    if (v->rows[i].kind == CCT_ROW_FUNCTION && v->rows[i].name) idx[n++] = (nkey){v->rows[i].name, i};
  qsort(idx, n, sizeof *idx, cmp_name);
  for (size_t i = 1; i < n; i++) {
    const cct_row *a = &v->rows[idx[i - 1].row], *b = &v->rows[idx[i].row];
    if (strcmp(a->name, b->name)) continue;
    int same = (a->file ? b->file && !strcmp(a->file, b->file) : !b->file) && a->line == b->line &&
               (a->module ? b->module && !strcmp(a->module, b->module) : !b->module);
    if (!same) dup[idx[i - 1].row] = dup[idx[i].row] = 1;
  }
  free(idx);
  return 0;
}

/* The columns every row of a view or diff has, from handle to center (csv order). */
enum { C_HANDLE, C_DEPTH, C_KIND, C_NAME, C_INLINED, C_FILE, C_LINE, C_MODULE, C_CALLSITE, C_CENTER, C_ROW };
static void row_cols(cct_result *r, int src) {
  add_col(r, "handle", CCT_T_INT, CCT_ROLE_HANDLE, CCT_IN_ALL);
  colp(r, add_col(r, "depth", CCT_T_INT, CCT_ROLE_DEPTH, src ? CCT_IN_DATA : CCT_IN_TABLE | CCT_IN_DATA))->order = 3;
  r->path_col = add_col(r, "kind", CCT_T_TEXT, CCT_ROLE_PLAIN, CCT_IN_DATA);
  r->name_col = add_col(r, "name", CCT_T_TEXT, CCT_ROLE_PLAIN, CCT_IN_DATA);
  add_col(r, "inlined", CCT_T_BOOL, CCT_ROLE_PLAIN, CCT_IN_DATA);
  add_col(r, "file", CCT_T_TEXT, CCT_ROLE_PLAIN, CCT_IN_DATA);
  cct_col *line = colp(r, add_col(r, "line", CCT_T_INT, CCT_ROLE_PLAIN, src ? CCT_IN_ALL : CCT_IN_DATA));
  line->order = 2;
  add_col(r, "module", CCT_T_TEXT, CCT_ROLE_PLAIN, CCT_IN_DATA);
  add_col(r, "callsite", CCT_T_TEXT, CCT_ROLE_PLAIN, CCT_IN_DATA);
  cct_col *c = colp(r, add_col(r, "center", CCT_T_BOOL, CCT_ROLE_MARK, src ? CCT_IN_DATA : CCT_IN_ALL));
  c->title = "*", c->order = 50;
}

/* Fills the row columns of row x of a view or diff. */
static void row_cells(cct_result *r, cct_cell *x, const cct_row *w, int handle, int depth) {
  if (handle) set_int(&x[C_HANDLE], handle);
  set_int(&x[C_DEPTH], depth);
  set_text(&x[C_KIND], kind_name(w->kind));
  set_text(&x[C_NAME], w->name ? w->name : "");
  set_bool(&x[C_INLINED], w->inlined);
  set_text(&x[C_FILE], w->file);
  if (w->line >= 0) set_int(&x[C_LINE], w->line);
  set_text(&x[C_MODULE], w->module);
  set_text(&x[C_CALLSITE], w->callsite);
  set_bool(&x[C_CENTER], w->center);
  (void)r;
}

/* The context every result names, in one place: json ', "run": N' (run > 0),
 * ', "center": [...]' (center not NULL, or n 0 with gran >= 0) and
 * ', "granularity": "..."' (gran >= 0, a CCT_GRAN_*). */
static void result_context(cct_result *r, int run, const char *const *center, size_t n, int gran) {
  char **h = &r->json_head, b[32];
  if (run > 0) snprintf(b, sizeof b, "%d", run), json_member_raw(h, "run", b);
  if (center || gran >= 0) {
    char *c = json_strings(center, n);
    json_member_raw(h, "center", c ? c : "[]");
    free(c);
  }
  if (gran >= 0) json_member_str(h, "granularity", gran == CCT_GRAN_LINE ? "line" : "function");
}

/* Names the filters a result went through: tree/table a 'filters: a; b' line
 * above the grid, json '"filters": [...]'. */
static void result_filters(cct_result *r, const char *const *filters, size_t n) {
  if (!n) return;
  char *j = json_strings(filters, n);
  json_member_raw(&r->json_head, "filters", j ? j : "[]");
  free(j);
  append(&r->title, "filters: ");
  for (size_t i = 0; i < n; i++) {
    char *e = cct_escape_dup(filters[i], CCT_ESC_TERM);
    if (i) append(&r->title, "; ");
    append(&r->title, e ? e : "?");
    free(e);
  }
  append(&r->title, "\n");
  if (!r->title) r->failed = 1;
}

/* A view as a result: the row columns, per metric inclusive and exclusive
 * (grouped under the metric name, % of the program total), the label and the
 * location (tree/table); the source view adds the mark and the line's text. */
static void view_result(cct_result *r, const cct_view *v) {
  int src = !strcmp(v->view, "source"), flat = !strcmp(v->view, "flat");
  unsigned char *dup = calloc(v->nrows + 1, 1);
  result_init(r, v->view);
  r->empty_text = "(no rows)";
  r->note = v->note;
  if (!dup || cct_out_dups(v, dup)) r->failed = 1;
  result_context(r, v->run, v->center, v->ncenter, v->granularity);
  result_filters(r, v->filters, v->nfilters);
  if (v->note) json_member_str(&r->json_head, "note", v->note);
  row_cols(r, src);
  int first = (int)r->ncols, shares = src && v->nrows && v->rows[0].share, per = shares ? 3 : 2;
  for (size_t m = 0; m < v->nmetrics; m++) {
    for (int k = 0; k < per; k++) { /* inclusive, exclusive, and in a centered source view the center's share */
      cct_col *c = colp(r, add_col(r, k == 2 ? "center" : k ? "exclusive" : "inclusive", CCT_T_REAL, CCT_ROLE_VALUE,
                                   CCT_IN_ALL));
      c->group = c->span = v->metrics[m];
      c->metric = (int)m;
      c->base = k == 2 ? 0 : v->base ? v->base[m] : v->total ? v->total[m] : 0;
      if (v->percent == CCT_PERCENT_CENTER && m == 0) { /* say what the percentages are of */
        c->span = keep(r, xprintf("%s, %% of the center", v->metrics[m]));
        if (k == 0) c->title = "inclusive % center";
      }
      c->order = 10;
    }
  }
  int mark = -1, text = -1, label = -1, loc = -1, occ = -1;
  for (size_t i = 0; i < v->nrows && occ < 0; i++)
    if (v->rows[i].occurrences >= 0) { /* flat functions, loops, lines: how many contexts add up */
      cct_col *c = colp(r, occ = add_col(r, "contexts", CCT_T_INT, CCT_ROLE_PLAIN, CCT_IN_ALL));
      c->order = 50;
    }
  if (src) {
    cct_col *c = colp(r, mark = add_col(r, "mark", CCT_T_BOOL, CCT_ROLE_MARK, CCT_IN_ALL));
    c->title = ">", c->order = 1;
    colp(r, text = add_col(r, "text", CCT_T_TEXT, CCT_ROLE_NAME, CCT_IN_ALL))->order = 60;
  } else {
    colp(r, label = add_col(r, "name", CCT_T_TEXT, CCT_ROLE_NAME, CCT_IN_TEXT))->order = 60;
    colp(r, loc = add_col(r, "location", CCT_T_TEXT, CCT_ROLE_PLAIN, CCT_IN_TABLE))->order = 70;
    r->nfold = 1;
    r->fold_value[0] = first + (flat ? 1 : 0);
    r->fold_sub[0] = flat ? -1 : first;
  }
  for (size_t i = 0; i < v->nrows && !r->failed; i++) {
    const cct_row *w = &v->rows[i];
    cct_cell *x = add_row(r);
    if (!x) break;
    r->bold[r->nrows - 1] = (unsigned char)w->center;
    row_cells(r, x, w, w->handle, w->depth);
    for (size_t m = 0; m < v->nmetrics; m++) {
      set_real(&x[first + per * (int)m], w->inclusive[m]);
      set_real(&x[first + per * (int)m + 1], w->exclusive[m]);
      if (shares && w->share) set_real(&x[first + per * (int)m + 2], w->share[m]);
    }
    if (occ >= 0 && w->occurrences >= 0) set_int(&x[occ], w->occurrences);
    if (src) {
      set_bool(&x[mark], w->mark);
      set_text(&x[text], w->text);
    } else {
      set_text(&x[label], keep(r, cct_out_label(w, dup && dup[i], NULL)));
      set_text(&x[loc], keep(r, row_location(w)));
    }
  }
  free(dup);
}

static const char *status_name(int s) {
  return s == CCT_DIFF_ADDED ? "added" : s == CCT_DIFF_REMOVED ? "removed" : "both";
}

/* A diff as a result: the row columns of the base (or added) row, the status,
 * and per metric the six values of both runs (the display metric in tree and
 * table: inclusive of both runs with % of each run's total, the change, then
 * the exclusive values and their change). */
static void diff_result(cct_result *r, const cct_diff *d) {
  result_init(r, "diff");
  r->empty_text = "(no rows)";
  r->note = d->note;
  char *t = NULL, b[128];
  /* The title: 'diff topdown 3: run 1 'a' -> run 2 'b', METRIC[, sorted by change]'. */
  snprintf(b, sizeof b, "diff %s", d->view);
  append(&t, b);
  if (strcmp(d->view, "flat")) snprintf(b, sizeof b, " %d", d->depth), append(&t, b);
  snprintf(b, sizeof b, ": run %d", d->run), append(&t, b);
  for (int k = 0; k < 2; k++) {
    const char *title = k ? d->other_title : d->title;
    if (k) snprintf(b, sizeof b, " -> run %d", d->other_run), append(&t, b);
    if (!title) continue;
    char *e = cct_escape_dup(title, CCT_ESC_TERM);
    append(&t, " '"), append(&t, e ? e : "?"), append(&t, "'");
    free(e);
  }
  if (d->nmetrics) {
    char *e = cct_escape_dup(d->metrics[0], CCT_ESC_TERM);
    append(&t, ", "), append(&t, e ? e : "?");
    free(e);
  }
  append(&t, d->sort_change ? ", sorted by change\n" : "\n");
  r->title = t;
  if (d->base_view) result_filters(r, d->base_view->filters, d->base_view->nfilters);
  /* JSON members. */
  char **h = &r->json_head;
  json_member_str(h, "of", d->view);
  if (strcmp(d->view, "flat")) snprintf(b, sizeof b, ", \"depth\": %d", d->depth), append(h, b);
  snprintf(b, sizeof b, "%d", d->run), json_member_raw(h, "base_run", b);
  result_context(r, d->other_run, NULL, 0, -1);
  json_member_str(h, "base_title", d->title);
  json_member_str(h, "title", d->other_title);
  result_context(r, 0, d->center, d->ncenter, d->granularity);
  json_member_str(h, "sort", d->sort_change ? "change" : "inclusive");
  append(h, ", \"metrics\": [");
  for (size_t m = 0; m < d->nmetrics; m++) {
    char *o = NULL;
    json_member_str(&o, "name", d->metrics[m]);
    json_member_str(&o, "unit", d->units ? d->units[m] : NULL);
    json_member_str(&o, "other_name", d->other_metrics[m]);
    json_member_str(&o, "other_unit", d->other_units ? d->other_units[m] : NULL);
    json_number_member(&o, "scale", d->scale[m]);
    json_number_member(&o, "total", d->total[m]);
    json_number_member(&o, "other_total", d->other_total[m]);
    if (o) append(h, m ? ", {" : "{"), append(h, o + 2), append(h, "}");
    free(o);
  }
  append(h, "]");
  if (d->note) json_member_str(h, "note", d->note);
  /* Columns. */
  add_col(r, "handle", CCT_T_INT, CCT_ROLE_HANDLE, CCT_IN_ALL);
  int other_handle = add_col(r, "other_handle", CCT_T_INT, CCT_ROLE_PLAIN, CCT_IN_DATA);
  colp(r, add_col(r, "depth", CCT_T_INT, CCT_ROLE_DEPTH, CCT_IN_TABLE | CCT_IN_DATA))->order = 3;
  int status = add_col(r, "status", CCT_T_TEXT, CCT_ROLE_PLAIN, CCT_IN_TABLE | CCT_IN_DATA);
  colp(r, status)->order = 4;
  int rowc = (int)r->ncols; /* kind .. center, as row_cols without handle and depth */
  r->path_col = add_col(r, "kind", CCT_T_TEXT, CCT_ROLE_PLAIN, CCT_IN_DATA);
  r->name_col = add_col(r, "name", CCT_T_TEXT, CCT_ROLE_PLAIN, CCT_IN_DATA);
  add_col(r, "inlined", CCT_T_BOOL, CCT_ROLE_PLAIN, CCT_IN_DATA);
  add_col(r, "file", CCT_T_TEXT, CCT_ROLE_PLAIN, CCT_IN_DATA);
  add_col(r, "line", CCT_T_INT, CCT_ROLE_PLAIN, CCT_IN_DATA);
  add_col(r, "module", CCT_T_TEXT, CCT_ROLE_PLAIN, CCT_IN_DATA);
  add_col(r, "callsite", CCT_T_TEXT, CCT_ROLE_PLAIN, CCT_IN_DATA);
  cct_col *cc = colp(r, add_col(r, "center", CCT_T_BOOL, CCT_ROLE_MARK, CCT_IN_ALL));
  cc->title = "*", cc->order = 50;
  static const char *const keys[6] = {"inclusive", "exclusive", "other_inclusive", "other_exclusive", "change",
                                      "exclusive_change"};
  static const int orders[6] = {10, 13, 11, 14, 12, 15};
  static const int ins[6] = {CCT_IN_ALL, CCT_IN_TABLE | CCT_IN_DATA, CCT_IN_ALL, CCT_IN_TABLE | CCT_IN_DATA,
                             CCT_IN_ALL, CCT_IN_ALL};
  int first = (int)r->ncols;
  char run[2][32];
  snprintf(run[0], sizeof run[0], "run %d", d->run);
  snprintf(run[1], sizeof run[1], "run %d", d->other_run);
  const char *titles[6] = {keep(r, strdup(run[0])), keep(r, strdup(run[0])), keep(r, strdup(run[1])),
                           keep(r, strdup(run[1])), "change", "change"};
  for (size_t m = 0; m < d->nmetrics; m++) {
    const char *span[2] = {"inclusive", "exclusive"};
    if (m) {
      span[0] = keep(r, xprintf("%s inclusive", d->metrics[m]));
      span[1] = keep(r, xprintf("%s exclusive", d->metrics[m]));
    }
    for (int k = 0; k < 6; k++) {
      cct_col *c = colp(r, add_col(r, keys[k], CCT_T_REAL, k >= 4 ? CCT_ROLE_CHANGE : CCT_ROLE_VALUE, ins[k]));
      c->group = d->metrics[m];
      c->title = titles[k];
      c->span = span[k == 1 || k == 3 || k == 5];
      c->metric = (int)m;
      c->order = orders[k] + 10 * (int)m;
      if (k == 0) c->base = d->total ? d->total[m] : 0;
      if (k == 2) c->base = d->other_total ? d->other_total[m] : 0;
    }
  }
  int label = add_col(r, "name", CCT_T_TEXT, CCT_ROLE_NAME, CCT_IN_TEXT);
  colp(r, label)->order = 60;
  int loc = add_col(r, "location", CCT_T_TEXT, CCT_ROLE_PLAIN, CCT_IN_TABLE);
  colp(r, loc)->order = 70;
  int flat = !strcmp(d->view, "flat");
  r->nfold = 2;
  r->fold_value[0] = first + (flat ? 1 : 0), r->fold_sub[0] = flat ? -1 : first;
  r->fold_value[1] = first + (flat ? 3 : 2), r->fold_sub[1] = flat ? -1 : first + 2;
  for (size_t i = 0; i < d->nrows && !r->failed; i++) {
    const cct_diff_row *dr = &d->rows[i];
    cct_cell *x = add_row(r);
    if (!x) break;
    r->bold[r->nrows - 1] = (unsigned char)dr->row->center;
    if (dr->handle) set_int(&x[0], dr->handle);
    if (dr->other_handle) set_int(&x[other_handle], dr->other_handle);
    set_int(&x[2], dr->depth);
    set_text(&x[status], status_name(dr->status));
    cct_cell tmp[C_ROW];
    for (int k = 0; k < C_ROW; k++) memset(&tmp[k], 0, sizeof tmp[k]), tmp[k].null = 1;
    row_cells(r, tmp, dr->row, 0, 0);
    for (int k = C_KIND; k < C_ROW; k++) x[rowc + k - C_KIND] = tmp[k];
    for (size_t m = 0; m < d->nmetrics; m++) {
      const double v[6] = {dr->inclusive[m],       dr->exclusive[m], dr->other_inclusive[m],
                           dr->other_exclusive[m], dr->change[m],    dr->exclusive_change[m]};
      for (int k = 0; k < 6; k++) set_real(&x[first + 6 * (int)m + k], v[k]);
    }
    const char *suffix =
        dr->status == CCT_DIFF_ADDED ? " (added)" : dr->status == CCT_DIFF_REMOVED ? " (removed)" : NULL;
    set_text(&x[label], keep(r, cct_out_label(dr->row, 0, suffix)));
    set_text(&x[loc], keep(r, row_location(dr->row)));
  }
}

/* ------------------------------------------------------------ entry points */

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

int cct_out_view_to(cct_shell *p, const cct_view *v, FILE *f, int mode) {
  cct_result r;
  if (!f) keep_handles(p, v);
  view_result(&r, v);
  int rc = cct_out_result(p, &r, f, mode);
  cct_result_release(&r);
  return rc;
}

int cct_out_view(cct_shell *p, const cct_view *v) { return cct_out_view_to(p, v, NULL, 0); }

int cct_out_diff(cct_shell *p, const cct_diff *d, FILE *f, int mode) {
  if (!f) { /* '@N' completion: the rows that have a base handle */
    forget_shell_handles(p);
    p->handles = calloc(d->nrows + 1, sizeof *p->handles);
    for (size_t i = 0; p->handles && i < d->nrows; i++) {
      if (!d->rows[i].handle) continue;
      p->handles[p->nhandles].handle = d->rows[i].handle;
      p->handles[p->nhandles++].name = strdup(d->rows[i].row->name ? d->rows[i].row->name : "");
    }
  }
  cct_result r;
  diff_result(&r, d);
  int rc = cct_out_result(p, &r, f, mode);
  cct_result_release(&r);
  return rc;
}

int cct_out_center(cct_shell *p) {
  size_t n = cct_center_count(p->q);
  cct_result r;
  result_init(&r, "center");
  r.rows_key = "items";
  r.empty_text = "no center (views start at the program root)";
  result_context(&r, cct_query_run(p->q), NULL, 0, -1);
  add_col(&r, "item", CCT_T_TEXT, CCT_ROLE_PLAIN, CCT_IN_DATA);
  add_col(&r, "occurrences", CCT_T_INT, CCT_ROLE_PLAIN, CCT_IN_DATA);
  add_col(&r, "center", CCT_T_TEXT, CCT_ROLE_NAME, CCT_IN_TEXT); /* 'ITEM  (N occurrences)' */
  r.no_header = 1;
  for (size_t i = 0; i < n; i++) {
    cct_cell *x = add_row(&r);
    if (!x) break;
    long long c = cct_center_occurrences(p->q, i);
    set_text(&x[0], cct_center_item(p->q, i));
    set_int(&x[1], c);
    set_text(&x[2], keep(&r, xprintf("%s  (%lld occurrence%s)", cct_center_item(p->q, i), c, c == 1 ? "" : "s")));
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
  view_result(&r, &v);
  r.no_header = 1, r.empty_text = message, r.note = NULL;
  int rc = cct_out_result(p, &r, NULL, 0);
  cct_result_release(&r);
  return rc;
}

/* ----------------------------------------------------------------- stats */

/* ', "count": N, "sum": ..., ..., "imbalance": ...' of a distribution (appended to *h). */
static void json_dist(char **h, size_t count, const double v[6]) {
  static const char *const names[] = {"sum", "min", "max", "mean", "stddev", "imbalance"};
  char b[40];
  snprintf(b, sizeof b, "%zu", count);
  json_member_raw(h, "count", b);
  for (int k = 0; k < 6; k++) json_number_member(h, names[k], v[k]);
}

/* A number for people: whole numbers in full, others to 7 significant digits. */
static const char *human_text(char *buf, size_t n, double d) {
  if (isfinite(d) && d == floor(d) && fabs(d) < 1e15) snprintf(buf, n, "%.0f", d);
  else snprintf(buf, n, "%.7g", d);
  return buf;
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
  static const char *const names[] = {"sum", "min", "max", "mean", "stddev"};
  const double v[] = {d->sum, d->min, d->max, d->mean, d->stddev};
  char b[40];
  for (int k = 0; k < 5; k++) fprintf(o, "%s  %-10s %s\n", ind, names[k], human_text(b, sizeof b, v[k]));
  fprintf(o, "%s  imbalance  %.3f (max / mean)\n", ind, d->imbalance);
}

/* Bin k of bins equal bins from min to max: its low and high ends. */
static void bin_range(double min, double max, size_t bins, size_t k, double *lo, double *hi) {
  double width = (max - min) / (double)bins;
  *lo = min + width * (double)k;
  *hi = k + 1 == bins ? max : min + width * (double)(k + 1);
}

/* The histogram of one distribution, its title indented by ind. */
static void stats_histogram(FILE *o, const cct_stats *s, const cct_stats_dist *d, const char *ind) {
  char lo[40], hi[40];
  if (!s->bins || !d->count) return;
  size_t most = 1;
  for (size_t k = 0; k < s->bins; k++)
    if (d->histogram[k] > most) most = d->histogram[k];
  fprintf(o, "%shistogram (%zu bins):\n", ind, s->bins);
  for (size_t k = 0; k < s->bins; k++) {
    double l, h;
    bin_range(d->min, d->max, s->bins, k, &l, &h);
    int bar = (int)(40.0 * (double)d->histogram[k] / (double)most + 0.5);
    fprintf(o, "%s  %14s .. %-14s %6zu %.*s\n", ind, human_text(lo, sizeof lo, l), human_text(hi, sizeof hi, h),
            d->histogram[k], bar, "########################################");
  }
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
  out_text(o, s->metric ? s->metric : "?");
  fputs(" inclusive of ", o);
  if (!nc) fputs("the program", o);
  for (size_t i = 0; i < nc; i++) { /* items as typed: quoted ones keep their own quotes */
    int quoted = center[i][0] == '\'' || center[i][0] == '"';
    fputs(i ? ", " : "", o);
    if (!quoted) fputc('\'', o);
    out_text(o, center[i]);
    if (!quoted) fputc('\'', o);
  }
  fprintf(o, " over %zu profile%s\n", s->count, s->count == 1 ? "" : "s");
  if (!s->count) return;
  if (only) {
    stats_figures(o, only, "");
  } else { /* CPU threads and GPU streams apart: one imbalance over both would mean nothing */
    for (int k = 0; k < 2; k++) {
      fprintf(o, "%s (%zu):\n", k ? "GPU streams" : "CPU threads", s->kinds[k].count);
      stats_figures(o, &s->kinds[k], "  ");
      stats_histogram(o, s, &s->kinds[k], "  ");
    }
  }
  if (order == CCT_STATS_BY_VALUE) fprintf(o, "top %zu:\n", top);
  else fprintf(o, "profiles by %s:\n", order == CCT_STATS_BY_RANK ? "rank" : "thread");
}

/* Stats as a result: one row per profile (its ids, kind and value); the
 * distributions and the histogram are metadata (json members; in tree and
 * table the summary above the list of the top profiles, or of all of them
 * in order by rank or thread, and the histogram below it). */
static void stats_result(cct_result *r, cct_shell *p, const cct_stats *s, int order) {
  size_t nc = cct_center_count(p->q), top = order == CCT_STATS_BY_VALUE && s->count > 5 ? 5 : s->count;
  const char **center = calloc(nc + 1, sizeof *center);
  result_init(r, "stats");
  r->rows_key = "profiles";
  r->note = s->note;
  r->no_header = 1;
  r->text_rows = top;
  r->indent = 2;
  r->hide_empty = 1;
  if (!center) r->failed = 1;
  for (size_t i = 0; center && i < nc; i++) center[i] = cct_center_item(p->q, i);
  int mixed = s->kinds[0].count && s->kinds[1].count;
  const cct_stats_dist *only = mixed ? NULL : &s->kinds[s->kinds[0].count ? 0 : 1];
  /* Metadata: the json members, the text above and below the list. */
  char **h = &r->json_head;
  result_context(r, cct_query_run(p->q), center, center ? nc : 0, -1);
  const cct_filter *fl = NULL;
  size_t nf = cct_query_filters(p->q, &fl);
  const char **ft = calloc(nf + 1, sizeof *ft); /* the session's filters, as views name them */
  for (size_t i = 0; ft && i < nf; i++)
    ft[i] = keep(r, xprintf(fl[i].item ? "%s %s" : "%s", cct_filter_name(fl[i].kind), fl[i].item));
  if (ft) result_filters(r, ft, nf);
  else r->failed = 1;
  free(ft);
  json_member_str(h, "metric", s->metric);
  json_member_str(h, "note", s->note);
  json_number_member(h, "program_sum", s->program_sum);
  json_number_member(h, "program_total", s->program_total);
  append(h, ", \"kinds\": {");
  for (int k = 0, first = 1; k < 2; k++) {
    const cct_stats_dist *d = &s->kinds[k];
    if (!d->count) continue;
    char *m = NULL;
    json_dist(&m, d->count, (double[]){d->sum, d->min, d->max, d->mean, d->stddev, d->imbalance});
    char *o = xprintf("%s\"%s\": {%s}", first ? "" : ", ", k ? "gpu" : "cpu", m ? m + 2 : "");
    if (o) append(h, o);
    free(o), free(m);
    first = 0;
  }
  append(h, "}");
  json_dist(h, s->count, (double[]){s->sum, s->min, s->max, s->mean, s->stddev, s->imbalance});
  append(&r->json_tail, ", \"histogram\": [");
  for (size_t k = 0; k < s->bins; k++) {
    double lo, hi;
    bin_range(s->min, s->max, s->bins, k, &lo, &hi);
    char *m = NULL, b[40];
    json_number_member(&m, "low", lo);
    json_number_member(&m, "high", hi);
    snprintf(b, sizeof b, "%zu", s->histogram[k]);
    json_member_raw(&m, "count", b);
    if (m) append(&r->json_tail, k ? ", {" : "{"), append(&r->json_tail, m + 2), append(&r->json_tail, "}");
    free(m);
  }
  append(&r->json_tail, "]");
  char *t = NULL;
  size_t tn = 0;
  FILE *o = open_memstream(&t, &tn);
  if (o) stats_summary(o, s, only, center, center ? nc : 0, order, top);
  if (!o || fclose(o)) r->failed = 1;
  if (r->title) append(&r->title, t ? t : ""), free(t); /* below the filters line */
  else r->title = t;
  if (s->count && only) r->tail = text_of(stats_histogram, s, only, "");
  if (s->count && only && s->bins && !r->tail) r->failed = 1;
  free(center);
  /* Columns: csv/json the ids, kind and value; tree/table 'profile 3', the
   * ids as text, the value, '(GPU)' in a run of both kinds. */
  static const char *const ids[] = {"node", "rank", "thread", "gpucontext", "gpustream"};
  add_col(r, "profile", CCT_T_INT, CCT_ROLE_PLAIN, CCT_IN_DATA);
  for (int k = 0; k < 5; k++) add_col(r, ids[k], CCT_T_INT, CCT_ROLE_PLAIN, CCT_IN_DATA);
  add_col(r, "kind", CCT_T_TEXT, CCT_ROLE_PLAIN, CCT_IN_DATA);
  int value = add_col(r, "value", CCT_T_REAL, CCT_ROLE_VALUE, CCT_IN_ALL);
  int label = add_col(r, "label", CCT_T_TEXT, CCT_ROLE_PLAIN, CCT_IN_TEXT);
  int id = add_col(r, "id", CCT_T_TEXT, CCT_ROLE_PLAIN, CCT_IN_TEXT);
  int gpu = add_col(r, "gpu", CCT_T_TEXT, CCT_ROLE_PLAIN, CCT_IN_TEXT);
  colp(r, label)->order = 0, colp(r, id)->order = 1, colp(r, value)->order = 2, colp(r, gpu)->order = 3;
  for (size_t i = 0; i < s->count && !r->failed; i++) {
    const struct cct_stats_profile *pr = &s->profiles[i];
    const long long v[] = {pr->node, pr->rank, pr->thread, pr->gpucontext, pr->gpustream};
    cct_cell *x = add_row(r);
    if (!x) break;
    char idt[256];
    set_int(&x[0], pr->profile);
    for (int k = 0; k < 5; k++)
      if (v[k] >= 0) set_int(&x[1 + k], v[k]);
    set_text(&x[6], pr->kind ? "gpu" : "cpu");
    set_real(&x[value], pr->value);
    profile_id_text(pr, idt, sizeof idt);
    set_text(&x[label], keep(r, xprintf("profile %d", pr->profile)));
    set_text(&x[id], keep(r, strdup(idt)));
    if (mixed && pr->kind) set_text(&x[gpu], "(GPU)");
  }
}

int cct_out_stats(cct_shell *p, const cct_stats *s, FILE *f, int mode, int order) {
  cct_result r;
  stats_result(&r, p, s, order);
  int rc = cct_out_result(p, &r, f, mode);
  cct_result_release(&r);
  return rc;
}


/* ------------------------------------------------------------ statements */

int cct_out_stmt(cct_shell *p, sqlite3_stmt *st, const char *view, const char *value_col) {
  int nc = sqlite3_column_count(st), rc;
  cct_result r;
  result_init(&r, view);
  if (p->q) result_context(&r, cct_query_run(p->q), NULL, 0, -1);
  for (int c = 0; c < nc; c++) {
    const char *name = sqlite3_column_name(st, c);
    int role = value_col && !strcmp(name, value_col) ? CCT_ROLE_VALUE : CCT_ROLE_PLAIN;
    add_col(&r, keep(&r, strdup(name)), CCT_T_TEXT, role, CCT_IN_ALL);
  }
  while (!cct_shell_interrupted && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    cct_cell *x = add_row(&r);
    if (!x) {
      rc = SQLITE_NOMEM;
      break;
    }
    for (int c = 0; c < nc; c++) {
      int t = sqlite3_column_type(st, c);
      if (r.nrows == 1 && (t == SQLITE_INTEGER || t == SQLITE_FLOAT)) r.cols[c].type = CCT_T_REAL; /* right-aligned */
      switch (t) {
      case SQLITE_NULL: break;
      case SQLITE_INTEGER: set_int(&x[c], (long long)sqlite3_column_int64(st, c)); break;
      case SQLITE_FLOAT: set_real(&x[c], sqlite3_column_double(st, c)); break;
      case SQLITE_BLOB: set_text(&x[c], keep(&r, xprintf("<blob %d bytes>", sqlite3_column_bytes(st, c)))); break;
      default: set_text(&x[c], keep(&r, strdup((const char *)sqlite3_column_text(st, c)))); break;
      }
    }
  }
  if (cct_shell_interrupted) rc = SQLITE_INTERRUPT;
  if (rc == SQLITE_DONE && (nc > 0 || p->mode == CCT_MODE_JSON) && cct_out_result(p, &r, NULL, 0))
    rc = cct_shell_interrupted ? SQLITE_INTERRUPT : SQLITE_NOMEM;
  cct_result_release(&r);
  return rc;
}
