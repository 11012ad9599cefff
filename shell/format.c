/* format.c: the five formatters of the cctq shell (SPEC section 6) and the
 * result shape they print.  Every result the shell prints - a view, a diff,
 * stats, a statement ('sql', 'runs', 'metrics'), the center listing - is a
 * cct_result (built in shell_output.c): a table of typed columns (text,
 * integer, real, boolean) with roles (handle, depth, name, value, change,
 * mark) and metadata (the JSON members around the rows, a title, a note, the
 * folded columns).  Five formatters print any result, as SQLite's shell
 * prints everything through one callback:
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
 * digits (cct_out_value), zero as '0'.  The metadata every result names (run,
 * center, granularity, filters) is written by cct_result_context and
 * cct_result_filters, here too.  Every text goes through the escaper of
 * common/cct_escape.h. */
#include "shell_int.h"

#include "cct_escape.h"
#include "cct_shorten.h"
#include "cct_util.h"

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

/* The decimal digits of v (|v| < 1e18) into buf (at least 21 bytes), as "%lld" prints them. */
static char *int_text(char *buf, long long v) {
  char t[24];
  size_t k = 0;
  unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
  do t[k++] = (char)('0' + u % 10); while (u /= 10);
  char *o = buf;
  if (v < 0) *o++ = '-';
  while (k) *o++ = t[--k];
  *o = 0;
  return buf;
}

const char *cct_out_value(char *buf, size_t n, double d, int integral) {
  double a = fabs(d);
  if (!isfinite(d)) snprintf(buf, n, "-");
  else if (d == 0) snprintf(buf, n, "0");
  else if (integral && a < 1e15 && d == floor(d) && n >= 24) int_text(buf, (long long)d); /* what %.0f prints of it */
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
 * characters, valid UTF-8: a cut can open no escape sequence), cut by the
 * rules of cct_shorten.h (the module first, then parameter lists, template
 * arguments, qualifiers, then the middle). */
static int fit_clean(FILE *f, const char *s, int width, int pad) {
  int w = clean_width(s);
  if (width < 0) width = 0;
  if (w <= width) {
    fputs(s, f);
    if (pad) fprintf(f, "%*s", width - w, "");
    return pad ? width : w;
  }
  char *t = cct_shorten(s, width);
  if (!t) { /* out of memory: the first columns */
    fwrite(s, 1, byte_at(s, width), f);
    return width;
  }
  fputs(t, f);
  w = clean_width(t);
  if (pad) fprintf(f, "%*s", width - w, "");
  free(t);
  return pad ? width : w;
}

int cct_out_fit(FILE *f, const char *s, int width, int pad) {
  if (cct_text_clean(s)) return fit_clean(f, s, width, pad);
  char *e = cct_escape_dup(s, CCT_ESC_TERM);
  int w = fit_clean(f, e ? e : "?", width, pad);
  free(e);
  return w;
}

/* Writes s for the terminal (control characters visible, bad UTF-8 as U+FFFD). */
void cct_out_text(FILE *f, const char *s) { cct_escape_write(f, s, CCT_ESC_TERM); }

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

/* ---------------------------------------------------------------- results */

void cct_result_init(cct_result *r, const char *view) {
  memset(r, 0, sizeof *r);
  r->view = view;
  r->json_head = sqlite3_str_new(NULL); /* never NULL: an out-of-memory builder says so later */
  r->json_tail = sqlite3_str_new(NULL);
  r->title = sqlite3_str_new(NULL);
  r->tail = sqlite3_str_new(NULL);
  r->rows_key = "rows";
  r->depth_col = r->name_col = r->path_col = r->fold_name_col = -1;
  r->fold_sub[0] = r->fold_sub[1] = -1;
}

void cct_result_release(cct_result *r) {
  for (size_t i = 0; i < r->nowned; i++) free(r->owned[i]);
  free(r->owned);
  free(r->cols);
  free(r->cells);
  free(r->bold);
  sqlite3_str *text[] = {r->json_head, r->json_tail, r->title, r->tail};
  for (int i = 0; i < 4; i++)
    if (text[i]) sqlite3_free(sqlite3_str_finish(text[i]));
  memset(r, 0, sizeof *r);
}

/* Keeps s (malloc'ed, may be NULL) owned by r.  Returns s. */
const char *cct_result_keep(cct_result *r, char *s) {
  if (!s) return NULL;
  if (CCT_GROW(r->owned, r->nowned + 1, r->capowned)) {
    free(s);
    r->failed = 1;
    return NULL;
  }
  return r->owned[r->nowned++] = s;
}

const char *cct_result_keepf(cct_result *r, const char *fmt, ...) {
  sqlite3_str *b = sqlite3_str_new(NULL);
  va_list ap;
  va_start(ap, fmt);
  sqlite3_str_vappendf(b, fmt, ap);
  va_end(ap);
  char *s = cct_str_take(b);
  if (!s) r->failed = 1;
  return cct_result_keep(r, s);
}

/* The text of b (NULL when empty or out of memory). */
static const char *text_of(sqlite3_str *b) { return b && sqlite3_str_length(b) ? sqlite3_str_value(b) : NULL; }

/* Adds a column (before any row).  Returns its index. */
int cct_result_col(cct_result *r, const char *key, int type, int role, int in) {
  if (CCT_GROW(r->cols, r->ncols + 1, r->capcols)) return r->failed = 1, 0;
  cct_col *c = &r->cols[r->ncols];
  memset(c, 0, sizeof *c);
  c->key = key, c->type = type, c->role = role, c->in = in, c->metric = -1;
  c->order = (int)r->ncols;
  if (role == CCT_ROLE_DEPTH) r->depth_col = (int)r->ncols;
  return (int)r->ncols++;
}

/* Column i of r (a dummy after a failed allocation). */
cct_col *cct_result_colp(cct_result *r, int i) {
  static cct_col dummy;
  return r->failed || (size_t)i >= r->ncols ? &dummy : &r->cols[i];
}

void cct_result_reserve(cct_result *r, size_t rows) {
  size_t w = (r->ncols ? r->ncols : 1) * sizeof *r->cells, cap;
  if (r->failed || rows > SIZE_MAX - r->nrows || (cap = r->nrows + rows) <= r->caprows) return;
  cct_cell *c = cct_reallocarray(r->cells, cap, w);
  if (!c) return; /* cct_result_row tries again, and says so */
  r->cells = c;
  unsigned char *b = realloc(r->bold, cap);
  if (!b) return;
  r->bold = b, r->caprows = cap;
}

/* Appends a row of null cells.  Returns them, or NULL when out of memory. */
cct_cell *cct_result_row(cct_result *r) {
  if (r->failed) return NULL;
  if (r->nrows == r->caprows) { /* cells and bold grow together, by rows of ncols cells */
    size_t w = (r->ncols ? r->ncols : 1) * sizeof *r->cells, cap = cct_grow_cap(r->caprows, r->nrows + 1, w);
    cct_cell *c = cap ? cct_reallocarray(r->cells, cap, w) : NULL;
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

void cct_cell_int(cct_cell *c, long long v) { c->null = 0, c->t = CCT_T_INT, c->i = v; }
void cct_cell_bool(cct_cell *c, int v) { c->null = 0, c->t = CCT_T_BOOL, c->i = v != 0; }
void cct_cell_real(cct_cell *c, double v) { c->null = 0, c->t = CCT_T_REAL, c->d = v; }
void cct_cell_text(cct_cell *c, const char *s) { c->null = s == NULL, c->t = CCT_T_TEXT, c->s = s; }

/* Appends e (an escaped copy, freed here; '?' when NULL: out of memory) to s. */
static void append_escaped(sqlite3_str *s, char *e) {
  sqlite3_str_appendall(s, e ? e : "?");
  free(e);
}

/* Appends ', "key": ' and the JSON of a string (NULL: null) to s. */
void cct_json_str(sqlite3_str *s, const char *key, const char *v) {
  sqlite3_str_appendf(s, ", \"%s\": ", key);
  if (!v) {
    sqlite3_str_appendall(s, "null");
    return;
  }
  sqlite3_str_appendchar(s, 1, '"');
  append_escaped(s, cct_escape_dup(v, CCT_ESC_JSON));
  sqlite3_str_appendchar(s, 1, '"');
}

/* Appends ', "key": ' and raw JSON text to s. */
void cct_json_raw(sqlite3_str *s, const char *key, const char *raw) { sqlite3_str_appendf(s, ", \"%s\": %s", key, raw); }

/* Appends a JSON array of strings to s. */
void cct_json_strings(sqlite3_str *s, const char *const *v, size_t n) {
  sqlite3_str_appendchar(s, 1, '[');
  for (size_t i = 0; i < n; i++) {
    sqlite3_str_appendall(s, i ? ", \"" : "\"");
    append_escaped(s, cct_escape_dup(v[i] ? v[i] : "", CCT_ESC_JSON));
    sqlite3_str_appendchar(s, 1, '"');
  }
  sqlite3_str_appendchar(s, 1, ']');
}

int cct_json_object(sqlite3_str *s, sqlite3_str *m) {
  int failed = sqlite3_str_errcode(m) != SQLITE_OK, n = sqlite3_str_length(m);
  const char *t = sqlite3_str_value(m);
  sqlite3_str_appendf(s, "{%s}", !failed && n > 2 ? t + 2 : "");
  sqlite3_free(sqlite3_str_finish(m));
  return failed ? -1 : 0;
}

/* Shortest round-trip JSON number. */
void cct_json_number(sqlite3_str *s, const char *key, double d) {
  char b[40];
  cct_json_raw(s, key, number_text(b, sizeof b, d));
}

void cct_json_window(sqlite3_str *s, const char *key, const cct_window *w) {
  char a[40], b[40];
  sqlite3_str_appendf(s, ", \"%s\": {\"from\": %s, \"to\": %s}", key, number_text(a, sizeof a, w->from),
                      number_text(b, sizeof b, w->to));
}

/* ------------------------------------------------------------ formatters */

/* The shared context of the formatters. */
typedef struct cct_fmt {
  cct_shell *p;
  FILE *out;
  int mode, color, limit; /* limit: width for tree/table, 0 = nothing cut */
  const int *show;        /* per column: 1 when shown in this mode */
} fmt;

/* 1 when column c of r shows in a text grid of mode tree (tree) or table. */
static int col_shown(const cct_result *r, size_t c, int tree) {
  const cct_col *k = &r->cols[c];
  if (!(k->in & (tree ? CCT_IN_TREE : CCT_IN_TABLE))) return 0;
  return k->metric <= 0 || (size_t)k->metric < r->nshown; /* the view's columns, not the session's now */
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

/* The cell texts of a grid, copied into blocks that are freed together: no
 * allocation per cell (a view of 10,000 rows has 60,000 cells). */
typedef struct arena {
  char **blk;        /* the blocks */
  size_t nblk, cap;
  char *cur;         /* the last block, used bytes of it, its size */
  size_t used, size;
} arena;

static void arena_free(arena *a) {
  for (size_t i = 0; i < a->nblk; i++) free(a->blk[i]);
  free(a->blk);
  memset(a, 0, sizeof *a);
}

/* A copy of s[0..n) with a NUL in a's blocks; NULL when out of memory. */
static const char *arena_put(arena *a, const char *s, size_t n) {
  if (a->used + n + 1 > a->size) {
    size_t size = n + 1 > 65536 ? n + 1 : 65536;
    char *b = malloc(size);
    if (!b || CCT_GROW(a->blk, a->nblk + 1, a->cap)) return free(b), NULL;
    a->blk[a->nblk++] = b;
    a->cur = b, a->used = 0, a->size = size;
  }
  char *d = a->cur + a->used;
  memcpy(d, s, n);
  d[n] = 0;
  a->used += n + 1;
  return d;
}

/* " %5.1f%%" of p as SQLite's printf writes it (the views' percentages always
 * went through it) into buf (at least 32 bytes): done here for values in
 * [0, 1e6) whose first decimal is not within 1e-6 of a tie, where SQLite's
 * rounding (add 0.05, cut) and the exact one agree; SQLite's own otherwise. */
static void pct_text(char *buf, size_t n, double p) {
  double x = p * 10, r = floor(x), f = x - r;
  if (!(p >= 0 && p < 1e6) || fabs(f - 0.5) < 1e-6 || n < 32) {
    sqlite3_snprintf((int)n, buf, " %5.1f%%", p);
    return;
  }
  long long t = (long long)r + (f > 0.5);
  char d[24];
  int_text(d, t / 10);
  size_t len = strlen(d) + 2; /* 'I.F' */
  char *o = buf;
  *o++ = ' ';
  for (size_t k = len; k < 5; k++) *o++ = ' ';
  memcpy(o, d, len - 2);
  o += len - 2;
  *o++ = '.';
  *o++ = (char)('0' + t % 10);
  *o++ = '%';
  *o = 0;
}

/* The text of a cell for tree/table ("" for null; a text that needs no
 * escaping as it is, others in a); NULL when out of memory.  Numbers go
 * through SQLite's printf, as they always did (its rounding is the output's). */
static const char *cell_text(const cct_result *r, size_t c, const cct_cell *x, int tree, int integral, arena *a) {
  const cct_col *k = &r->cols[c];
  char v[64], b[512];
  double d = x->t == CCT_T_REAL ? x->d : (double)x->i;
  if (x->null) return "";
  if (k->role == CCT_ROLE_MARK) return x->i ? (k->title ? k->title : "*") : "";
  if (k->role == CCT_ROLE_HANDLE) {
    char *o = b;
    if (tree) *o++ = '[';
    int_text(o, x->i);
    if (tree) o += strlen(o), *o++ = ']', *o = 0;
  } else if (k->role == CCT_ROLE_RELATIVE) {
    if (!isfinite(d)) return "-";
    sqlite3_snprintf(sizeof b, b, fabs(d) < 0.0005 ? "%.1f%%" : "%+.1f%%", 100.0 * d);
  } else if (k->role == CCT_ROLE_VALUE || k->role == CCT_ROLE_CHANGE) {
    cct_out_value(v, sizeof v, k->role == CCT_ROLE_CHANGE ? fabs(d) : d, integral || x->t == CCT_T_INT);
    const char *sign = k->role == CCT_ROLE_CHANGE && isfinite(d) && d != 0 ? d > 0 ? "+" : "-" : "";
    char pc[400];
    const char *tail = pc;
    if (k->base > 0 && isfinite(d)) pct_text(pc, sizeof pc, 100.0 * d / k->base);
    else tail = k->base > 0 ? "      -" : "";
    size_t ls = strlen(sign), lv = strlen(v), lt = strlen(tail);
    memcpy(b, sign, ls), memcpy(b + ls, v, lv), memcpy(b + ls + lv, tail, lt + 1); /* < 512 bytes */
  } else if (x->t == CCT_T_INT) {
    sqlite3_snprintf(sizeof b, b, "%lld", x->i);
  } else if (x->t == CCT_T_BOOL) {
    return x->i ? "1" : "0";
  } else if (x->t == CCT_T_REAL) {
    const char *t = number_text(v, sizeof v, x->d);
    return arena_put(a, t, strlen(t));
  } else {
    if (!x->s || cct_text_clean(x->s)) return x->s ? x->s : "";
    char *e = cct_escape_dup(x->s, CCT_ESC_TERM);
    const char *t = e ? arena_put(a, e, strlen(e)) : NULL;
    free(e);
    return t;
  }
  return arena_put(a, b, strlen(b));
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
/* The layout of a text grid: which columns show, their widths and texts, and
 * the tree's connectors.  Made by grid_layout, freed by grid_free. */
typedef struct grid {
  size_t n;               /* rows printed */
  int *cols, ng;          /* the columns shown, in order, and their count */
  int *w;                 /* per column of r: width */
  int *integral;          /* per column of r: values all whole */
  const char **text;      /* n * ncols cell texts (in cells, or in texts) */
  arena texts;            /* the texts made for the grid */
  unsigned char *next;    /* per row: a later sibling follows it (tree) */
  unsigned char *anc;     /* per depth, while printing: the ancestor there has a later sibling */
  int maxdepth, drawn;    /* deepest row; 1 when tree connectors are drawn */
  int gw;                 /* columns of connectors per level: 3 ('|- '), 2 ('|-') in deep trees */
  int spans;              /* header line of spans: 0 none */
  int namec, namew;       /* the name column (-1 none) and its width (0: as wide as it needs) */
  char **shown;           /* per row: its name cut to its room (namew set), or NULL */
} grid;

static void grid_free(grid *g, const cct_result *r) {
  (void)r;
  free(g->text);
  arena_free(&g->texts);
  for (size_t i = 0; g->shown && i < g->n; i++) free(g->shown[i]);
  free(g->shown);
  free(g->cols);
  free(g->w);
  free(g->integral);
  free(g->next);
  free(g->anc);
}

/* The tree: next[i] = a later sibling follows row i (backward pass).  Returns 0 or -1. */
static int grid_tree(grid *g, const cct_result *r) {
  for (size_t i = 0; i < g->n; i++) {
    long long d = r->cells[i * r->ncols + (size_t)r->depth_col].i;
    if (d > g->maxdepth) g->maxdepth = (int)d;
  }
  unsigned char *seen = calloc((size_t)g->maxdepth + 2, 1);
  g->anc = calloc((size_t)g->maxdepth + 2, 1);
  if (!seen || !g->anc) return free(seen), -1;
  for (size_t k = g->n; k-- > 0;) {
    int d = (int)r->cells[k * r->ncols + (size_t)r->depth_col].i;
    if (d < 0) d = 0;
    g->next[k] = seen[d];
    seen[d] = 1;
    memset(seen + d + 1, 0, (size_t)(g->maxdepth - d));
  }
  free(seen);
  return 0;
}

/* Span widths, then the name column's share of the width limit. */
static void grid_widths(grid *g, const fmt *f, const cct_result *r, int tree) {
  const char *span1 = NULL; /* distinct spans: tree mode names even one, table mode from two on */
  for (int x = 0; x < g->ng; x++) {
    const char *sp = r->cols[g->cols[x]].span;
    if (sp && (!span1 || strcmp(sp, span1))) g->spans++, span1 = sp;
  }
  if (!tree && g->spans < 2) g->spans = 0;
  for (int x = 0; x < g->ng;) { /* a span wider than its columns widens the last of them */
    const char *sp = r->cols[g->cols[x]].span;
    int h = x + 1, span = g->w[g->cols[x]];
    for (; sp && h < g->ng && r->cols[g->cols[h]].span && !strcmp(r->cols[g->cols[h]].span, sp); h++)
      span += (int)strlen(sep_between(r, g->cols[h - 1], g->cols[h])) + g->w[g->cols[h]];
    if (g->spans && sp && r->cols[g->cols[h - 1]].role != CCT_ROLE_NAME && cct_out_width(sp) > span)
      g->w[g->cols[h - 1]] += cct_out_width(sp) - span;
    x = h;
  }
  int used = 0; /* the name column gets what the others leave of the limit */
  for (int x = 0; x < g->ng; x++) {
    size_t c = (size_t)g->cols[x];
    used += (int)strlen(sep_between(r, x ? g->cols[x - 1] : -1, (int)c));
    if (r->cols[c].role == CCT_ROLE_NAME && g->namec < 0) g->namec = (int)c;
    else used += g->w[c];
  }
  if (g->namec >= 0 && f->limit > 0) {
    g->namew = f->limit - used;
    if (g->namew < 20) g->namew = 20;
    /* A deep tree too deep for its width (the deepest name would get under 24
     * columns: a hot path of a dozen rows at 80 columns) draws its connectors narrower. */
    if (g->drawn && g->maxdepth > 6 && g->namew - 3 * g->maxdepth < 24) g->gw = 2;
    int need = g->w[g->namec] + (g->drawn ? g->gw * g->maxdepth : 0); /* no wider than the widest name needs */
    if (need < g->namew) g->namew = need;
  }
}

/* Room of row i's name: the name column less the row's tree connectors
 * (never under 12 columns: the line grows instead). */
static int name_room(const grid *g, const cct_result *r, size_t i) {
  int d = g->drawn ? (int)r->cells[i * r->ncols + (size_t)r->depth_col].i : 0;
  int left = g->namew - g->gw * (d < 0 ? 0 : d);
  return left < 12 ? 12 : left;
}

/* Cuts every row's name to its room at once (cct_shorten_all: names that
 * differ stay apart).  Returns 0 or -1. */
static int grid_names(grid *g, const cct_result *r) {
  const char **names = calloc(g->n + 1, sizeof *names);
  int *widths = calloc(g->n + 1, sizeof *widths);
  g->shown = calloc(g->n + 1, sizeof *g->shown);
  int rc = names && widths && g->shown ? 0 : -1;
  for (size_t i = 0; !rc && i < g->n; i++) {
    names[i] = g->text[i * r->ncols + (size_t)g->namec];
    widths[i] = name_room(g, r, i);
  }
  if (!rc) rc = cct_shorten_all(names, widths, g->n, g->shown);
  free(names);
  free(widths);
  return rc;
}

/* Measures r for a grid: columns shown, cell texts, widths.  Returns 0 or -1 (g to free either way). */
static int grid_layout(grid *g, const fmt *f, const cct_result *r, int tree) {
  memset(g, 0, sizeof *g);
  g->n = r->text_rows && r->text_rows < r->nrows ? r->text_rows : r->nrows;
  g->namec = -1;
  g->drawn = tree && r->depth_col >= 0;
  g->gw = 3;
  g->cols = calloc(r->ncols + 1, sizeof *g->cols);
  g->w = calloc(r->ncols + 1, sizeof *g->w);
  g->integral = calloc(r->ncols + 1, sizeof *g->integral);
  g->text = calloc(g->n * r->ncols + 1, sizeof *g->text);
  g->next = calloc(g->n + 1, 1);
  if (!g->cols || !g->w || !g->integral || !g->text || !g->next) return -1;
  for (size_t c = 0; c < r->ncols; c++)
    if (col_shown(r, c, tree) && !(r->hide_empty && col_empty(r, c, g->n))) g->cols[g->ng++] = (int)c;
  if (!g->ng) return 0;
  if (sort_cols(r, g->cols, g->ng)) return -1;
  for (int x = 0; x < g->ng; x++) {
    size_t c = (size_t)g->cols[x];
    if (r->cols[c].role == CCT_ROLE_VALUE || r->cols[c].role == CCT_ROLE_CHANGE) g->integral[c] = col_integral(r, c);
    g->w[c] = cct_out_width(col_title(r, c, tree));
    if (r->cols[c].role == CCT_ROLE_MARK) g->w[c] = 1;
    for (size_t i = 0; i < g->n; i++) {
      const char *t = cell_text(r, c, &r->cells[i * r->ncols + c], tree, g->integral[c], &g->texts);
      if (!t) return -1;
      g->text[i * r->ncols + c] = t;
      int l = clean_width(t);
      if (l > g->w[c]) g->w[c] = l;
    }
  }
  if (g->drawn && grid_tree(g, r)) return -1;
  grid_widths(g, f, r, tree);
  return g->namew ? grid_names(g, r) : 0;
}

/* The header lines: spans (metric names) over their columns, then titles.  Returns 0 or -1. */
static int grid_header(const grid *g, const fmt *f, const cct_result *r, int tree) {
  FILE *o = f->out;
  char *line0 = NULL; /* the span line, trimmed before it is printed */
  size_t line0len = 0;
  FILE *head = g->spans ? open_memstream(&line0, &line0len) : NULL;
  if (g->spans && !head) return -1;
  for (int line = g->spans ? 0 : 1; line < 2; line++) {
    FILE *lo = line ? o : head;
    fprintf(lo, "%*s", r->indent, "");
    for (int x = 0; x < g->ng; x++) {
      size_t c = (size_t)g->cols[x];
      const cct_col *k = &r->cols[c];
      fputs(sep_between(r, x ? g->cols[x - 1] : -1, (int)c), lo);
      int last = x == g->ng - 1, right = k->role != CCT_ROLE_NAME && k->type != CCT_T_TEXT && k->role != CCT_ROLE_MARK;
      if (line == 0) {
        if (k->span && (x == 0 || !r->cols[g->cols[x - 1]].span || strcmp(r->cols[g->cols[x - 1]].span, k->span))) {
          int span = g->w[c], h = x + 1;
          for (; h < g->ng && r->cols[g->cols[h]].span && !strcmp(r->cols[g->cols[h]].span, k->span); h++)
            span += (int)strlen(sep_between(r, g->cols[h - 1], g->cols[h])) + g->w[g->cols[h]];
          cct_out_fit(lo, k->span, span, h < g->ng);
          x = h - 1;
        } else if (!last) {
          fprintf(lo, "%*s", c == (size_t)g->namec && g->namew ? 0 : g->w[c], "");
        }
        continue;
      }
      const char *t = col_title(r, c, tree);
      if (right) fprintf(o, "%*s", g->w[c] - cct_out_width(t), ""), cct_out_text(o, t);
      else cct_out_fit(o, t, c == (size_t)g->namec && g->namew ? g->namew : g->w[c], !last);
    }
    if (line == 0) { /* the span line without its trailing blanks */
      fclose(head);
      while (line0len && line0[line0len - 1] == ' ') line0len--;
      fwrite(line0, 1, line0len, o);
      free(line0);
    }
    fputc('\n', o);
  }
  return 0;
}

/* Writes |n| blanks, as fprintf(o, "%*s", n, "") does. */
static void pad(FILE *o, int n) {
  static const char blanks[] = "                                                                ";
  if (n < 0) n = -n;
  for (; n > 0; n -= (int)sizeof blanks - 1) fwrite(blanks, 1, n < (int)sizeof blanks - 1 ? (size_t)n : sizeof blanks - 1, o);
}

/* Prints row i of the grid (g->anc is updated for the rows below it). */
static void grid_row(grid *g, const fmt *f, const cct_result *r, size_t i) {
  FILE *o = f->out;
  int d = g->drawn ? (int)r->cells[i * r->ncols + (size_t)r->depth_col].i : 0;
  if (d < 0) d = 0;
  if (g->drawn) g->anc[d] = g->next[i];
  pad(o, r->indent);
  for (int x = 0; x < g->ng; x++) {
    size_t c = (size_t)g->cols[x];
    const cct_col *k = &r->cols[c];
    const char *s = g->text[i * r->ncols + c];
    int last = x == g->ng - 1;
    fputs(sep_between(r, x ? g->cols[x - 1] : -1, (int)c), o);
    if (k->role == CCT_ROLE_NAME) {
      if (g->drawn) {
        int wide = g->gw == 3;
        for (int a = 1; a < d; a++) fputs(g->anc[a] ? (wide ? "|  " : "| ") : (wide ? "   " : "  "), o);
        if (d > 0) fputs(g->next[i] ? (wide ? "|- " : "|-") : (wide ? "`- " : "`-"), o);
      }
      int bold = f->color && r->bold[i];
      if (bold) fputs(BOLD, o);
      if (g->namew && c == (size_t)g->namec) fit_clean(o, g->shown[i], name_room(g, r, i), !last);
      else if (g->namew) fit_clean(o, s, name_room(g, r, i), !last);
      else fputs(s, o);
      if (bold) fputs(PLAIN, o);
      if (!g->namew && !last) pad(o, g->w[c] - clean_width(s) + (g->drawn ? g->gw * (g->maxdepth - d) : 0));
      continue;
    }
    int right = k->type != CCT_T_TEXT && k->role != CCT_ROLE_MARK;
    const char *color = NULL;
    if (f->color && (k->role == CCT_ROLE_CHANGE || k->role == CCT_ROLE_RELATIVE) && !r->cells[i * r->ncols + c].null) {
      double v = cell_value(&r->cells[i * r->ncols + c]);
      if (isfinite(v) && v != 0) color = v > 0 ? RED : GREEN;
    }
    if (color) fputs(color, o);
    if (right) pad(o, g->w[c] - clean_width(s)), fputs(s, o);
    else fit_clean(o, s, g->w[c], !last);
    if (color) fputs(PLAIN, o);
  }
  fputc('\n', o);
}

/* Tree or table output: the layout, the title, the header, the rows, the tail. */
static int print_grid(const fmt *f, const cct_result *r, int tree) {
  FILE *o = f->out;
  grid g;
  int rc = -1;
  if (grid_layout(&g, f, r, tree)) goto out;
  if (text_of(r->title)) fputs(text_of(r->title), o); /* already escaped, with its line ends */
  if (g.ng && !r->no_header && grid_header(&g, f, r, tree)) goto out;
  if (!g.n && r->empty_text) fprintf(o, "%s\n", r->empty_text);
  for (size_t i = 0; g.ng && i < g.n; i++) {
    if (cct_shell_interrupted) goto out;
    grid_row(&g, f, r, i);
  }
  if (text_of(r->tail)) fputs(text_of(r->tail), o);
  rc = 0;
out:
  grid_free(&g, r);
  return rc;
}

/* The names from the top row down to row i (pre-order rows with a depth
 * column): stack[0..depth] of the last rows seen at each depth.  Returns the
 * depth of row i, or -1 without a depth or name column. */
static int path_at(const cct_result *r, size_t i, int name_col, const char **stack, int maxdepth) {
  if (r->depth_col < 0 || name_col < 0) return -1;
  int d = (int)r->cells[i * r->ncols + (size_t)r->depth_col].i;
  if (d < 0) d = 0;
  if (d > maxdepth) d = maxdepth;
  const cct_cell *x = &r->cells[i * r->ncols + (size_t)name_col];
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
  sqlite3_str *b = sqlite3_str_new(NULL);
  sqlite3_str_appendf(b, "%s %s", k->group, k->key);
  char *s = cct_str_take(b);
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
    if (!(r->cols[c].in & (CCT_IN_DATA | CCT_IN_CSV))) continue;
    if ((int)c == r->path_col && path) fputs(first ? "path" : ",path", o), first = 0;
    if (!first) fputc(',', o);
    first = 0;
    char *h = csv_name(&r->cols[c]);
    cct_out_csv_field(o, h ? h : "?");
    free(h);
  }
  fputs("\r\n", o);
  for (size_t i = 0; i < r->nrows && !cct_shell_interrupted; i++) {
    int d = path_at(r, i, r->name_col, stack, md);
    first = 1;
    for (size_t c = 0; c < r->ncols; c++) {
      const cct_col *k = &r->cols[c];
      const cct_cell *x = &r->cells[i * r->ncols + c];
      if (!(k->in & (CCT_IN_DATA | CCT_IN_CSV))) continue;
      if ((int)c == r->path_col && path) { /* the path of names down to the row */
        sqlite3_str *ps = sqlite3_str_new(NULL);
        for (int a = 0; a <= d; a++) {
          if (a) sqlite3_str_appendchar(ps, 1, ';');
          sqlite3_str_appendall(ps, stack[a] ? stack[a] : "");
        }
        if (!first) fputc(',', o);
        first = 0;
        cct_out_csv_field(o, text_of(ps) ? text_of(ps) : "");
        sqlite3_free(sqlite3_str_finish(ps));
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
  if (text_of(r->json_head)) fputs(text_of(r->json_head), o);
  fprintf(o, ", \"%s\": [", r->rows_key);
  for (size_t i = 0; i < r->nrows && !cct_shell_interrupted; i++) {
    int d = path_at(r, i, r->name_col, stack, md), first = 1;
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
  if (text_of(r->json_tail)) fputs(text_of(r->json_tail), o);
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
    int nc = r->fold_name_col >= 0 ? r->fold_name_col : r->name_col;
    int d = nc >= 0 ? path_at(r, i, nc, stack, md) : -1;
    if (!any || nc < 0) continue;
    if (d < 0) d = 0, stack[0] = r->cells[i * r->ncols + (size_t)nc].s;
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

static int print_tree(const fmt *f, const cct_result *r) { return print_grid(f, r, 1); }

static int print_table(const fmt *f, const cct_result *r) { return print_grid(f, r, 0); }

/* Folded lines of a result with call paths; a table of any other. */
static int print_folded_or_table(const fmt *f, const cct_result *r) {
  return r->nfold ? print_folded(f, r) : print_grid(f, r, 0);
}

const cct_mode_def cct_modes[CCT_MODE_COUNT] = {
    {"tree", "txt", "indented tree with |- connectors, inclusive and exclusive with % of the total", print_tree},
    {"table", NULL, "aligned columns, one row per line", print_table},
    {"csv", "csv", "RFC 4180, full precision", print_csv},
    {"json", "json", "one JSON object per command", print_json},
    {"folded", "folded", "'a;b;c value' lines for flame graphs", print_folded_or_table},
};

int cct_mode_find(const char *word) {
  size_t n = strlen(word);
  int found = -1;
  for (int i = 0; n && i < CCT_MODE_COUNT; i++) {
    if (!strcmp(cct_modes[i].name, word)) return i;
    if (!strncmp(cct_modes[i].name, word, n)) found = found == -1 ? i : -2;
  }
  return found;
}

int cct_mode_of_ext(const char *ext) {
  for (int i = 0; i < CCT_MODE_COUNT; i++)
    if (cct_modes[i].ext && !strcasecmp(cct_modes[i].ext, ext)) return i;
  return -1;
}

int cct_out_result(cct_shell *p, const cct_result *r, FILE *out, int mode) {
  fmt f = {p, out ? out : p->out, out ? mode : p->mode, out ? 0 : p->color, out ? 0 : cct_out_limit(p), NULL};
  sqlite3_str *text[] = {r->json_head, r->json_tail, r->title, r->tail};
  for (int i = 0; i < 4; i++)
    if (r->failed || !text[i] || sqlite3_str_errcode(text[i])) return -1; /* out of memory while building */
  int rc = cct_modes[f.mode >= 0 && f.mode < CCT_MODE_COUNT ? f.mode : CCT_MODE_TREE].print(&f, r);
  if (r->note && (f.mode == CCT_MODE_TREE || f.mode == CCT_MODE_TABLE || (f.mode == CCT_MODE_FOLDED && !r->nfold)))
    fputs("note: ", f.out), cct_out_text(f.out, r->note), fputc('\n', f.out);
  fflush(f.out);
  return cct_shell_interrupted ? -1 : rc;
}


/* -------------------------------------------------------------- metadata */

/* The context every result names, in one place: json ', "run": N' (run > 0),
 * ', "center": [...]' (center not NULL, or n 0 with gran >= 0) and
 * ', "granularity": "..."' (gran >= 0, a CCT_GRAN_*). */
void cct_result_context(cct_result *r, int run, const char *const *center, size_t n, int gran) {
  sqlite3_str *h = r->json_head;
  if (run > 0) sqlite3_str_appendf(h, ", \"run\": %d", run);
  if (center || gran >= 0) {
    sqlite3_str_appendall(h, ", \"center\": ");
    cct_json_strings(h, center, n);
  }
  if (gran >= 0) cct_json_str(h, "granularity", gran == CCT_GRAN_LINE ? "line" : "function");
}

/* Names the filters a result went through: tree/table a 'filters: a; b' line
 * above the grid, json '"filters": [...]'. */
void cct_result_filters(cct_result *r, const char *const *filters, size_t n) {
  if (!n) return;
  sqlite3_str_appendall(r->json_head, ", \"filters\": ");
  cct_json_strings(r->json_head, filters, n);
  sqlite3_str_appendall(r->title, "filters: ");
  for (size_t i = 0; i < n; i++) {
    if (i) sqlite3_str_appendall(r->title, "; ");
    append_escaped(r->title, cct_escape_dup(filters[i], CCT_ESC_TERM));
  }
  sqlite3_str_appendchar(r->title, 1, '\n');
}

