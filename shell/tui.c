/* tui.c: the full-screen interface of cctq ('cctq --tui ARCHIVE', 'tui' in
 * the shell), with ncurses (wide-character build).  Three panes around one
 * center: the flat view on top, the tree (top-down or bottom-up of the
 * center) below it, and the source of the selected row's file (shown when the
 * terminal is tall enough, or asked for with 's'), then a status line and a
 * line for help, messages and prompts.
 *
 * Every pane is a view of the library's pure view core (cct_view_compute)
 * for one spec of the session's settings (center, metric, granularity,
 * threshold: cct_view_spec_init), so the numbers are the shell's and all panes
 * show the same center; computing a pane changes nothing in the session (the
 * shell's '@N' rows stay as they were).  A pane keeps its own rows.  Views are computed
 * lazily: the flat pane asks for a few hundred rows and more when the cursor
 * gets near the end; the tree is computed two levels below its deepest
 * expanded row and again, deeper, when a row at the edge is expanded; the
 * source view only when the file shown changes.
 *
 * Centering on a row is the library's '@N' item on the pane's own view
 * (cct_center_edit), exactly as 'flat; center @3' in the shell; the new
 * center value becomes the session's (cct_query_swap_center), which hands
 * the previous one back: those are the history 'u' goes back through. */
#include "cct_util.h"
#include "shell_int.h"

#include "cct_escape.h"
#include "cct_shorten.h"
#include "cct_picture.h"

#define NCURSES_WIDECHAR 1
#include <curses.h>
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <regex.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>
#include <wctype.h>

/* ------------------------------------------------------------ settings */

enum { P_FLAT = 0, P_TREE = 1, P_SOURCE = 2, P_COUNT = 3 };

/* How a pane's view is computed (the session's settings do the rest). */
typedef struct vspec {
  int view;   /* CCT_VIEW_* */
  int arg;    /* flat: CCT_FLAT_* kind; tree: depth */
  int n;      /* flat: row count */
  char *file; /* source: file path (owned), NULL for the center's file */
} vspec;

/* One pane: its view, which rows are open (tree) and shown, the cursor. */
typedef struct pane {
  vspec spec;           /* how v was computed */
  cct_view *v;          /* the rows (owned), NULL when the view failed */
  char *note;           /* why there are no rows, or the view's note (owned) */
  unsigned char *open;  /* tree: per row of v, 1 when expanded */
  int *parent;          /* per row: index of the parent row, -1 for top rows */
  int *nkids;           /* per row: children in v */
  unsigned char *dup;   /* per row: 1 when the label needs the row's place (see find_dups) */
  size_t *vis;          /* rows shown, in order (indexes into v->rows) */
  size_t nvis;
  long sel, top;        /* cursor and first shown entry of vis */
  int y, h;             /* screen: title line at y, rows y+1 .. y+h-1 (h == 0: hidden) */
  int numw, pctw;       /* value column widths */
  int integral;         /* the display metric's values are all whole (cct_out_value) */
} pane;

typedef struct tui {
  cct_shell *p;
  cct_query *q;
  pane pn[P_COUNT];
  int focus;          /* P_* of the pane with the cursor */
  int bottomup;       /* 1: the tree pane shows the bottom-up view */
  int flat_kind;      /* CCT_FLAT_* */
  int src_on;         /* source pane: -1 automatic (tall terminals), 0 hidden, 1 shown */
  int color;          /* colours in use */
  int utf8;           /* the terminal's encoding is UTF-8 (tree markers) */
  cct_center **undo; /* the centers before each change (owned; NULL: no center) */
  size_t nundo, capundo;
  char msg[512];      /* message for the bottom line ("" shows the key help) */
  int msg_err;        /* the message is an error */
  regex_t re;         /* last search */
  int have_re;
  struct tline {      /* the timeline pane ('T'): when the center was on each profile's sampled stack */
    int on, focus;    /* shown; has the keys */
    cct_timeline *t;  /* every lane, columns of the pane's width over the whole run (NULL: see note) */
    char note[300];   /* why there is no timeline */
    long lane, col;   /* the cursor: a lane (row of t) and a column */
    long mark;        /* the first mark's column (space), -1: none */
    long top;         /* first lane shown */
    int y, h;         /* screen: title line at y, h lines (0: hidden) */
  } tl;
} tui;

enum { C_CENTER = 1, C_ERROR, C_MARK, C_TITLE };

static volatile sig_atomic_t tui_sigint;
static sqlite3 *volatile tui_db;

static void on_sigint(int sig) {
  (void)sig;
  tui_sigint = 1;
  if (tui_db) sqlite3_interrupt(tui_db);
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void say(tui *t, int err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(t->msg, sizeof t->msg, fmt, ap);
  va_end(ap);
  t->msg_err = err;
}

static void spec_release(vspec *s) {
  free(s->file);
  s->file = NULL;
}

/* Computes the view of s with the session's settings and the shell's columns,
 * through the spec the shell's own views use (the pure core: the session is
 * not changed).  Ctrl-C interrupts it.  Returns CCT_OK with *out
 * set, or the library's error (message in err). */
static int compute(tui *t, const vspec *s, cct_view **out, cct_err *err) {
  cct_view_spec spec;
  cct_shell_spec(t->p, s->view, CCT_MODE_TREE, &spec);
  spec.depth = s->arg;
  spec.flat_kind = s->arg;
  spec.flat_n = s->n;
  spec.file = s->file;
  if (s->view == CCT_VIEW_FLAT) spec.depth = 0;
  else spec.flat_kind = 0;
  tui_sigint = 0;
  tui_db = cct_query_db(t->q);
  int rc = cct_view_compute(t->q, &spec, out, err);
  tui_db = NULL;
  return rc;
}

/* ------------------------------------------------------------ text */

/* Expands the tabs of s to the next multiple of 8 columns (columns counted
 * as UTF-8 code points).  Returns a malloc'ed string, NULL when out of memory. */
static char *expand_tabs(const char *s) {
  size_t tabs = 0;
  for (const char *c = s; *c; c++) tabs += *c == '\t';
  char *o = malloc(strlen(s) + 8 * tabs + 1);
  if (!o) return NULL;
  size_t k = 0, col = 0;
  for (const char *c = s; *c; c++) {
    if (*c == '\t') {
      do o[k++] = ' ';
      while (++col % 8);
      continue;
    }
    o[k++] = *c;
    if (((unsigned char)*c & 0xC0) != 0x80) col++;
  }
  o[k] = 0;
  return o;
}

/* Wide text of s for the screen: s goes through the shared escaper
 * (cct_escape.h: control characters shown as '\x1b', bad UTF-8 as U+FFFD),
 * after tabs are expanded when tabs is set (source text).  Characters the
 * locale cannot convert or print show as '?'.  Returns a malloc'ed string
 * (NULL when out of memory). */
static wchar_t *widen(const char *s, int tabs) {
  char *x = tabs ? expand_tabs(s) : NULL;
  char *e = cct_escape_dup(x ? x : s, CCT_ESC_TERM);
  free(x);
  if (!e) return NULL;
  size_t n = strlen(e), k = 0;
  wchar_t *w = malloc((n + 1) * sizeof *w);
  mbstate_t st;
  memset(&st, 0, sizeof st);
  for (const char *c = e; w && *c;) {
    wchar_t wc;
    size_t r = mbrtowc(&wc, c, strlen(c), &st);
    if (r == (size_t)-1 || r == (size_t)-2 || r == 0) {
      memset(&st, 0, sizeof st);
      r = 1;
      wc = L'?';
    } else if (!iswprint((wint_t)wc) || wcwidth(wc) < 0) {
      wc = L'?';
    }
    w[k++] = wc;
    c += r;
  }
  if (w) w[k] = 0;
  free(e);
  return w;
}

static int wwidth(const wchar_t *w) {
  int n = 0;
  for (; *w; w++) n += wcwidth(*w) > 0 ? wcwidth(*w) : 0;
  return n;
}

/* Number of leading characters of w that fit in cols columns. */
static size_t wfit(const wchar_t *w, int cols) {
  size_t i = 0;
  int c = 0;
  for (; w[i]; i++) {
    int cw = wcwidth(w[i]) > 0 ? wcwidth(w[i]) : 0;
    if (c + cw > cols) break;
    c += cw;
  }
  return i;
}

/* How put() shortens text: the middle ('a...z'), the end, or the start
 * ('...path/file.c', for paths). */
enum { CUT_MIDDLE = 0, CUT_END = 1, CUT_START = 2 };

/* Draws s at (y, x) in at most width columns, shortened with '...' (cut:
 * CUT_*) when it is wider.  Returns the columns drawn. */
static int put(int y, int x, const char *s, int width, int tabs, int cut) {
  if (width <= 0 || !s) return 0;
  wchar_t *w = widen(s, tabs);
  if (!w) return 0;
  int ww = wwidth(w), drawn;
  if (ww <= width) {
    mvaddwstr(y, x, w);
    drawn = ww;
  } else if (cut == CUT_END || width < 8) {
    size_t n = wfit(w, width);
    mvaddnwstr(y, x, w, (int)n);
    drawn = width;
  } else {
    int head = cut == CUT_START ? 0 : (width - 3 + 1) / 2, tail = width - 3 - head;
    size_t hn = wfit(w, head);
    size_t len = wcslen(w), ts = len;
    int tc = 0;
    while (ts > 0) {
      int cw = wcwidth(w[ts - 1]) > 0 ? wcwidth(w[ts - 1]) : 0;
      if (tc + cw > tail) break;
      tc += cw;
      ts--;
    }
    mvaddnwstr(y, x, w, (int)hn);
    addstr("...");
    addwstr(w + ts);
    drawn = width;
  }
  free(w);
  return drawn;
}

/* --------------------------------------------------------- numbers */

/* A value as the shell prints it (cct_out_value, format.c): whole numbers
 * when every value of the column is one, else 3 significant digits. */
static void fmt_value(const pane *pn, double d, char *buf, size_t n) { cct_out_value(buf, n, d, pn->integral); }

static void fmt_percent(double d, double total, char *buf, size_t n) {
  if (!(total > 0) || !isfinite(d)) snprintf(buf, n, "-");
  else snprintf(buf, n, "%.1f%%", 100.0 * d / total);
}

/* Sets the number format and column widths of pn from its rows. */
static void measure(pane *pn) {
  pn->integral = 1;
  pn->numw = 9; /* 'inclusive' */
  pn->pctw = 6; /* '100.0%' */
  if (!pn->v || !pn->v->nmetrics) return;
  for (size_t i = 0; i < pn->v->nrows; i++)
    for (int e = 0; e < 3; e++) {
      const cct_row *r = &pn->v->rows[i];
      double d = e == 2 ? (r->share ? r->share[0] : 0) : e ? r->exclusive[0] : r->inclusive[0];
      if (!isfinite(d)) continue;
      if (fabs(d) >= 1e15 || d != floor(d)) pn->integral = 0;
    }
  char buf[64];
  for (size_t i = 0; i < pn->v->nrows; i++)
    for (int e = 0; e < 3; e++) {
      const cct_row *r = &pn->v->rows[i];
      fmt_value(pn, e == 2 ? (r->share ? r->share[0] : 0) : e ? r->exclusive[0] : r->inclusive[0], buf, sizeof buf);
      if ((int)strlen(buf) > pn->numw) pn->numw = (int)strlen(buf);
    }
}

/* ------------------------------------------------------------ labels */

/* The title of the center's top row when it has several items ('a + b',
 * cct_out_members), else NULL.  Returns a malloc'ed string. */
static char *members(const tui *t) {
  size_t n = cct_center_count(t->q);
  const char **items = calloc(n + 1, sizeof *items);
  if (!items) return NULL;
  for (size_t i = 0; i < n; i++) items[i] = cct_center_item(t->q, i);
  char *m = cct_out_members(items, n);
  free(items);
  return m;
}

/* Row label as the shell prints it (cct_out_label), new; NULL out of memory. */
static char *label_of(const tui *t, const cct_row *r, int dup) {
  char *m = r->kind == CCT_ROW_CENTER ? members(t) : NULL;
  char *s = cct_out_label(r, dup, NULL, m);
  free(m);
  return s;
}

/* Row label as the shell prints it (cct_out_label) into buf. */
static void row_label(const tui *t, const cct_row *r, int dup, char *buf, size_t n) {
  char *s = label_of(t, r, dup);
  snprintf(buf, n, "%s", s ? s : "?");
  free(s);
}

/* ------------------------------------------------------------ panes */

static void pane_clear(pane *pn) {
  cct_view_free(pn->v);
  pn->v = NULL;
  free(pn->note);
  free(pn->open);
  free(pn->parent);
  free(pn->nkids);
  free(pn->dup);
  free(pn->vis);
  pn->note = NULL;
  pn->open = NULL;
  pn->parent = pn->nkids = NULL;
  pn->dup = NULL;
  pn->vis = NULL;
  pn->nvis = 0;
}

/* Rebuilds the list of shown rows: every row of a flat or source pane; for the
 * tree, the rows whose ancestors are all open.  Keeps the cursor on row keep
 * (an index into v->rows) when it is shown, else on its nearest shown ancestor. */
static void pane_relist(pane *pn, long keep) {
  pn->nvis = 0;
  if (!pn->v) return;
  size_t n = pn->v->nrows;
  for (size_t i = 0; i < n;) {
    pn->vis[pn->nvis++] = i;
    if (pn->open && !pn->open[i]) { /* skip the subtree */
      int d = pn->v->rows[i].depth;
      size_t j = i + 1;
      while (j < n && pn->v->rows[j].depth > d) j++;
      i = j;
    } else {
      i++;
    }
  }
  pn->sel = 0;
  while (keep >= 0) {
    for (size_t k = 0; k < pn->nvis; k++)
      if ((long)pn->vis[k] == keep) {
        pn->sel = (long)k;
        return;
      }
    keep = pn->parent ? pn->parent[keep] : -1;
  }
}

/* Installs view v (owned) in pn, with note when v is NULL; allocates the per-row arrays. */
static int pane_set(pane *pn, cct_view *v, const char *note) {
  pane_clear(pn);
  pn->v = v;
  if (note || (v && v->note)) pn->note = strdup(note ? note : v->note);
  size_t n = v ? v->nrows : 0;
  pn->vis = calloc(n + 1, sizeof *pn->vis);
  pn->parent = calloc(n + 1, sizeof *pn->parent);
  pn->nkids = calloc(n + 1, sizeof *pn->nkids);
  pn->dup = calloc(n + 1, 1);
  if (!pn->vis || !pn->parent || !pn->nkids || !pn->dup) return -1;
  int *stack = calloc(n + 2, sizeof *stack);
  if (!stack) return -1;
  for (size_t i = 0; i < n; i++) { /* parents from depths (pre-order) */
    int d = v->rows[i].depth < 0 ? 0 : v->rows[i].depth;
    pn->parent[i] = d > 0 ? stack[d - 1] : -1;
    if (pn->parent[i] >= 0) pn->nkids[pn->parent[i]]++;
    if ((size_t)d <= n) stack[d] = (int)i;
  }
  free(stack);
  if (v && cct_out_dups(v, pn->dup)) return -1;
  measure(pn);
  return 0;
}

/* The row under the cursor of pn, or NULL. */
static const cct_row *pane_row(const pane *pn) {
  if (!pn->v || pn->sel < 0 || (size_t)pn->sel >= pn->nvis) return NULL;
  return &pn->v->rows[pn->vis[pn->sel]];
}

static long pane_row_index(const pane *pn) {
  return pn->v && pn->sel >= 0 && (size_t)pn->sel < pn->nvis ? (long)pn->vis[pn->sel] : -1;
}

/* Deepest level (cct_row.level: the levels of the depth a row uses) of an open row
 * of the tree pane (-1 when none). */
static int open_depth(const pane *pn) {
  int d = -1;
  for (size_t i = 0; pn->v && pn->open && i < pn->v->nrows; i++)
    if (pn->open[i] && pn->v->rows[i].level > d) d = pn->v->rows[i].level;
  return d;
}

/* Opens the default rows of a new tree: the top row, the rows of the hot path
 * (as hpcviewer's hot-path button), and below an open row its only child (chains
 * of single calls unfold at once, as '<program root>' > main).  Returns 1 when a
 * row at the edge of the computed levels opened. */
static int auto_open(pane *pn) {
  int edge = 0;
  for (size_t i = 0; pn->v && i < pn->v->nrows; i++) {
    int par = pn->parent[i];
    if (pn->nkids[i] && (par < 0 || (pn->open[par] && (pn->nkids[par] == 1 || pn->v->rows[i].hot)))) {
      pn->open[i] = 1;
      if (pn->v->rows[i].level >= pn->spec.arg - 1) edge = 1;
    }
  }
  return edge;
}

/* Computes the tree pane again with depth levels, keeping what was open and
 * the cursor (rows of depth <= the old depth come in the same order in both
 * views).  fresh: open the default rows instead.  Returns 0 or -1 (message set). */
static int tree_compute(tui *t, int depth, int fresh) {
  pane *pn = &t->pn[P_TREE];
  vspec s = {t->bottomup ? CCT_VIEW_BOTTOMUP : CCT_VIEW_TOPDOWN, depth, 0, NULL};
  if (t->bottomup && cct_center_count(t->q) == 0) {
    pane_set(pn, NULL, "no center: bottom-up shows the callers of a center ('c' on a row)");
    pn->spec = s;
    return 0;
  }
  cct_view *v = NULL;
  cct_err err = CCT_ERR_INIT;
  int rc = compute(t, &s, &v, &err);
  if (rc) {
    say(t, 1, "%s", err.msg[0] ? err.msg : cct_errstr(rc));
    pane_set(pn, NULL, err.msg[0] ? err.msg : cct_errstr(rc));
    return -1;
  }
  unsigned char *old_open = pn->open;
  long old_sel = pane_row_index(pn);
  int old_depth = pn->spec.arg;
  cct_view *old = pn->v; /* kept for the mapping below */
  pn->open = NULL;
  pn->v = NULL;
  if (pane_set(pn, v, NULL) || !(pn->open = calloc(v->nrows + 1, 1))) {
    free(old_open);
    cct_view_free(old);
    say(t, 1, "out of memory");
    return -1;
  }
  pn->spec = s;
  long new_sel = 0;
  if (!fresh && old && old_open) {
    size_t j = 0;
    for (size_t i = 0; i < v->nrows && j < old->nrows; i++) {
      if (v->rows[i].level > old_depth) continue; /* rows of level <= old_depth: the old view's, in order */
      if (strcmp(v->rows[i].name ? v->rows[i].name : "", old->rows[j].name ? old->rows[j].name : "")) break;
      pn->open[i] = old_open[j];
      if ((long)j == old_sel) new_sel = (long)i;
      j++;
    }
  }
  free(old_open);
  cct_view_free(old);
  if (fresh) auto_open(pn);
  pane_relist(pn, new_sel);
  return 0;
}

/* A new tree for the current settings: three levels, deeper while chains
 * of single calls open to the edge (at most 12 levels at once). */
static void tree_new(tui *t) {
  if (tree_compute(t, 3, 1)) return;
  pane *pn = &t->pn[P_TREE];
  for (int k = 0; k < 3 && pn->v && open_depth(pn) >= pn->spec.arg - 1 && pn->spec.arg < 12; k++) {
    if (tree_compute(t, pn->spec.arg + 3, 0)) return;
    if (!auto_open(pn)) break;
  }
  pane_relist(pn, 0);
}

/* Makes the tree deep enough for its open rows (two levels below the deepest),
 * computing it again when needed. */
static void tree_deepen(tui *t) {
  pane *pn = &t->pn[P_TREE];
  if (!pn->v) return;
  int need = open_depth(pn) + 2;
  if (need > pn->spec.arg) tree_compute(t, need, 0);
}

/* Computes the flat pane with n rows, keeping the cursor when more rows come. */
static void flat_compute(tui *t, int n, int keep) {
  pane *pn = &t->pn[P_FLAT];
  vspec s = {CCT_VIEW_FLAT, t->flat_kind, n, NULL};
  cct_view *v = NULL;
  cct_err err = CCT_ERR_INIT;
  long sel = keep ? pn->sel : 0, top = keep ? pn->top : 0;
  int rc = compute(t, &s, &v, &err);
  pn->spec = s;
  if (rc) {
    pane_set(pn, NULL, err.msg[0] ? err.msg : cct_errstr(rc));
    return;
  }
  pane_set(pn, v, NULL);
  pn->spec = s;
  pane_relist(pn, -1);
  pn->sel = sel < (long)pn->nvis ? sel : 0;
  pn->top = top;
}

/* Shows file (NULL: the center's file) in the source pane, cursor on line
 * (-1: the first marked line).  Keeps the view when the file is the same. */
static void source_show(tui *t, const char *file, long long line) {
  pane *pn = &t->pn[P_SOURCE];
  int same = pn->v && file && pn->spec.file && !strcmp(file, pn->spec.file);
  if (!same) {
    vspec s = {CCT_VIEW_SOURCE, 0, 0, file ? strdup(file) : NULL};
    cct_view *v = NULL;
    cct_err err = CCT_ERR_INIT;
    int rc = compute(t, &s, &v, &err);
    spec_release(&pn->spec);
    pn->spec = s;
    if (rc) {
      pane_set(pn, NULL, err.msg[0] ? err.msg : cct_errstr(rc));
      return;
    }
      pane_set(pn, v, NULL);
    pane_relist(pn, -1);
    if (!pn->spec.file && v->nrows && v->rows[0].file) pn->spec.file = strdup(v->rows[0].file);
  }
  if (!pn->v) return;
  long best = -1;
  for (size_t i = 0; i < pn->nvis; i++) {
    const cct_row *r = &pn->v->rows[pn->vis[i]];
    if (line >= 0 ? r->line == line : r->mark != 0) {
      best = (long)i;
      break;
    }
    if (line >= 0 && r->line > line && best < 0) best = (long)i;
  }
  if (best >= 0) {
    pn->sel = best;
    pn->top = best - (pn->h > 2 ? (pn->h - 1) / 3 : 0);
    if (pn->top < 0) pn->top = 0;
  }
}

static int src_visible(const tui *t) { return t->src_on == 1 || (t->src_on < 0 && LINES >= 40); }

static void tl_compute(tui *t);

/* Computes every pane again for the current settings (after a change of the
 * center, metric or granularity): the tree from its default open rows; the
 * flat cursor stays where it was with keep_flat (a new center does not
 * change the flat rows, only their marks). */
static void refresh_all(tui *t, int keep_flat) {
  flat_compute(t, t->pn[P_FLAT].spec.n > 0 ? t->pn[P_FLAT].spec.n : 200, keep_flat);
  tree_new(t);
  pane *sp = &t->pn[P_SOURCE];
  char *file = sp->spec.file ? strdup(sp->spec.file) : NULL;
  long long line = pane_row(sp) ? pane_row(sp)->line : -1;
  pane_clear(sp);
  if (file || cct_center_count(t->q)) source_show(t, file, file ? line : -1);
  else pane_set(sp, NULL, "no file yet: 's' on a row shows its source");
  free(file);
  if (t->tl.on) tl_compute(t);
}

/* The source file of a row: NULL when it has none ('<unknown file>'). */
static const char *row_file(const cct_row *r) {
  return r && r->file && r->file[0] != '<' ? r->file : NULL;
}

/* The source pane follows the cursor of the flat and tree panes. */
static void follow(tui *t) {
  if (t->focus == P_SOURCE || !src_visible(t)) return;
  const cct_row *r = pane_row(&t->pn[t->focus]);
  if (row_file(r)) source_show(t, r->file, r->line);
}

/* ------------------------------------------------------------ center */

/* Makes c (owned; NULL: no center) the session's center, the previous one
 * going onto the undo history.  Every pane is computed again. */
static void center_set(tui *t, cct_center *c) {
  if (t->nundo == t->capundo) {
    size_t cap = t->capundo ? 2 * t->capundo : 16;
    cct_center **u = realloc(t->undo, cap * sizeof *u);
    if (!u) {
      cct_center_free(c);
      return say(t, 1, "out of memory");
    }
    t->undo = u;
    t->capundo = cap;
  }
  cct_center *old = NULL;
  cct_err err = CCT_ERR_INIT;
  if (cct_query_swap_center(t->q, c, &old, &err)) {
    cct_center_free(c);
    return say(t, 1, "%s", err.msg);
  }
  t->undo[t->nundo++] = old;
  t->msg[0] = 0;
  refresh_all(t, 1);
}

/* Changes the center by op (CCT_CENTER_*) with the row under the cursor of
 * pane pi: 'center [+|-] @N' on the pane's own view. */
static void center_change(tui *t, int pi, int op) {
  pane *pn = &t->pn[pi];
  const cct_row *r = pane_row(pn);
  if (!r) return say(t, 1, "no row here to center on");
  if (r->kind == CCT_ROW_ROOT) return say(t, 1, "'%s' is the whole program: 'r' resets the center", r->name);
  char h[32];
  snprintf(h, sizeof h, "@%d", r->handle);
  cct_center *c = NULL;
  cct_err err = CCT_ERR_INIT;
  int rc = cct_center_edit(t->q, 0, cct_query_center(t->q), op, h, pn->v, &c, &err);
  if (rc) return say(t, 1, "%s", err.msg[0] ? err.msg : cct_errstr(rc));
  if (!c) return say(t, 0, "this row is the center");
  center_set(t, c);
}

static void center_reset(tui *t) {
  if (!cct_center_count(t->q)) return say(t, 0, "no center to reset");
  center_set(t, NULL);
}

/* Goes back to the center before the last change. */
static void center_undo(tui *t) {
  if (!t->nundo) return say(t, 0, "nothing to undo");
  cct_center *prev = t->undo[--t->nundo], *cur = NULL;
  cct_err err = CCT_ERR_INIT;
  if (cct_query_swap_center(t->q, prev, &cur, &err)) {
    cct_center_free(prev);
    return say(t, 1, "undo: %s", err.msg);
  }
  cct_center_free(cur);
  t->msg[0] = 0;
  refresh_all(t, 1);
}

/* The center's items joined with ' + ' into buf (the first one only, and
 * '+ N more', when they do not fit). */
static void center_items(tui *t, char *buf, size_t n) {
  size_t c = cct_center_count(t->q), k = 0;
  buf[0] = 0;
  for (size_t i = 0; i < c; i++) {
    int w = snprintf(buf + k, n - k, "%s%s", i ? " + " : "", cct_center_item(t->q, i));
    if (w < 0 || (size_t)w >= n - k) {
      snprintf(buf, n, "%s + %zu more", cct_center_item(t->q, 0), c - 1);
      return;
    }
    k += (size_t)w;
  }
}

/* The center as the status line shows it: items and occurrences, then the
 * filters the panes' values went through ('filter' in the shell sets them). */
static void center_text(tui *t, char *buf, size_t n) {
  size_t c = cct_center_count(t->q), len;
  if (!c) {
    snprintf(buf, n, "no center (program root)");
  } else {
    long long occ = 0;
    for (size_t i = 0; i < c; i++) occ += cct_center_occurrences(t->q, i);
    char items[512];
    center_items(t, items, sizeof items);
    snprintf(buf, n, "center %s (%lld occurrence%s)", items, occ, occ == 1 ? "" : "s");
  }
  const cct_filter *f = NULL;
  size_t nf = cct_query_filters(t->q, &f);
  for (size_t i = 0; i < nf && (len = strlen(buf)) + 1 < n; i++) {
    char *ft = cct_filter_text(&f[i]);
    snprintf(buf + len, n - len, "%s%s", i ? "; " : "; filters: ", ft ? ft : "?");
    free(ft);
  }
  const cct_window *w = cct_query_window(t->q); /* 'window' in the shell sets it */
  char *wt = w ? cct_window_text(w) : NULL;
  if (wt && (len = strlen(buf)) + 1 < n) snprintf(buf + len, n - len, "; %s", wt);
  free(wt);
}

/* ------------------------------------------------------------ timeline pane */

/* The timeline pane ('T'): per traced profile (lane, the most time on the center in the window first) one
 * character per column of equal time over the whole run, as 'timeline' prints it (' .:=#': on the center for 0,
 * <25, <50, <75, >=75% of the column's time; '-': busy elsewhere), the window under '=' on the axis line, a time
 * cursor ('^') on the selected lane; the line below names what that lane sampled at the cursor (the middle of the
 * column).  Keys: Left/Right move the cursor (H/L ten columns), Up/Down the lane, space marks a time and a second
 * space makes the two marks the window, 'w' resets the window, 'c' centers on the innermost frame sampled at the
 * cursor ('center #ID'). */

enum { TL_LABEL = 18, TL_FIG = 16 }; /* ' 1.59s  33.9%' and a margin */

static void bar(int y, int focused);

/* Columns of the strip at the screen's width. */
static long tl_width(void) { return COLS - TL_LABEL - TL_FIG - 3 > 10 ? COLS - TL_LABEL - TL_FIG - 3 : 10; } /* '|' x2 */

/* Computes the timeline again for the session and the screen, keeping the cursor's lane (by number) and time. */
static void tl_compute(tui *t) {
  struct tline *p = &t->tl;
  long long lane = p->t && p->lane < (long)p->t->nlanes ? p->t->lane[p->lane] : -1;
  double at = p->t ? (double)p->col / (double)p->t->ncols : 0.5, mark = p->t && p->mark >= 0 ? (double)p->mark / (double)p->t->ncols : -1;
  cct_timeline_free(p->t);
  p->t = NULL;
  p->note[0] = 0;
  cct_err err = CCT_ERR_INIT;
  tui_sigint = 0;
  tui_db = cct_query_db(t->q);
  if (cct_timeline_compute(t->q, 0, (size_t)tl_width(), CCT_TIMELINE_RUN, &p->t, &err))
    snprintf(p->note, sizeof p->note, "%s", err.msg[0] ? err.msg : "no timeline");
  tui_db = NULL;
  if (!p->t) return;
  p->col = (long)(at * (double)p->t->ncols);
  p->mark = mark >= 0 ? (long)(mark * (double)p->t->ncols) : -1;
  p->lane = 0;
  for (size_t i = 0; i < p->t->nlanes; i++)
    if (p->t->lane[i] == lane) p->lane = (long)i;
}

/* Seconds at the middle of column c of the timeline. */
static double tl_time(const cct_timeline *tl, long c) {
  return tl->from + ((double)c + 0.5) * (tl->to - tl->from) / (double)tl->ncols;
}

/* What the selected lane sampled at the cursor: 'thread 6 at 4.003 s: f < g < main (c: center #12)'. */
static void tl_info(const struct tline *p, char *buf, size_t n) {
  const cct_timeline *tl = p->t;
  int k = tl->at[p->lane * (long)tl->ncols + p->col];
  size_t at = (size_t)snprintf(buf, n, "%s at %.4g s: ", tl->label[p->lane], tl_time(tl, p->col));
  if (k < 0) {
    snprintf(buf + at, n - at, "idle");
    return;
  }
  for (int f = k; f >= 0 && at < n; f = tl->frame_caller[f])
    at += (size_t)snprintf(buf + at, n - at, "%s%s", f == k ? "" : " < ", tl->frame_name[f]);
  if (at < n) snprintf(buf + at, n - at, "  (c: center #%lld)", tl->frame_id[k]);
}

static void tl_draw(tui *t) {
  struct tline *p = &t->tl;
  if (p->h <= 0) return;
  bar(p->y, p->focus);
  char title[700];
  const cct_window *w = cct_query_window(t->q);
  if (p->t) {
    char win[96] = "";
    if (w) snprintf(win, sizeof win, ", window %.4g s - %.4g s", w->from, w->to);
    else if (p->mark >= 0) snprintf(win, sizeof win, ", mark at %.4g s", tl_time(p->t, p->mark));
    if (w && p->mark >= 0) snprintf(win + strlen(win), sizeof win - strlen(win), ", mark at %.4g s", tl_time(p->t, p->mark));
    snprintf(title, sizeof title, "%s Timeline of %s: %zu lanes, the most on it first%s", p->focus ? ">" : " ",
             p->t->center, p->t->nlanes, win);
  } else {
    snprintf(title, sizeof title, "%s Timeline", p->focus ? ">" : " ");
  }
  put(p->y, 1, title, COLS - 2, 0, CUT_MIDDLE);
  attrset(A_NORMAL);
  if (!p->t) {
    put(p->y + 1, 2, p->note, COLS - 3, 0, CUT_END);
    return;
  }
  const cct_timeline *tl = p->t;
  long rows = p->h - 3, nc = (long)tl->ncols;
  if (p->lane < p->top) p->top = p->lane;
  if (p->lane >= p->top + rows) p->top = p->lane - rows + 1;
  double wlen = tl->win_to - tl->win_from;
  for (long r = 0; r < rows && p->top + r < (long)tl->nlanes; r++) {
    long i = p->top + r;
    int y = p->y + 1 + (int)r, sel = i == p->lane;
    attrset(sel && p->focus ? A_BOLD : A_NORMAL);
    put(y, 1, tl->label[i], TL_LABEL, 0, CUT_END);
    mvaddch(y, TL_LABEL + 1, '|');
    for (long c = 0; c < nc; c++) {
      double on = tl->frac[i * nc + c], busy = tl->busyfrac[i * nc + c];
      chtype ch = on > 0 ? (chtype)(on < 0.25 ? '.' : on < 0.5 ? ':' : on < 0.75 ? '=' : '#') : busy >= 0.5 ? '-' : ' ';
      if (on > 0 && t->color) ch |= COLOR_PAIR(C_CENTER);
      if (sel && c == p->col) ch |= A_REVERSE;
      mvaddch(y, TL_LABEL + 2 + (int)c, ch);
    }
    addch('|');
    printw(" %6.3gs %5.1f%%", tl->on[i], wlen > 0 ? 100 * tl->on[i] / wlen : 0);
  }
  /* the axis: its ends in seconds, the window under '=', the mark 'm', the cursor '^' */
  int ya = p->y + p->h - 2;
  attrset(A_NORMAL);
  char end[32];
  snprintf(end, sizeof end, "%.4g s", tl->to);
  mvprintw(ya, 1, "%*s", TL_LABEL, "0 s");
  for (long c = 0; c < nc; c++) {
    double a = tl->from + (double)c * (tl->to - tl->from) / (double)nc, b = a + (tl->to - tl->from) / (double)nc;
    int in = tl->windowed && b > tl->win_from && a < tl->win_to;
    mvaddch(ya, TL_LABEL + 2 + (int)c, c == p->col ? '^' : c == p->mark ? 'm' : in ? '=' : ' ');
  }
  mvprintw(ya, TL_LABEL + 3 + (int)nc, " %s", end);
  char info[1024];
  tl_info(p, info, sizeof info);
  put(ya + 1, 1, info, COLS - 2, 0, CUT_END);
}

/* Makes the marks at columns a and b the session's window: [start of the earlier, end of the later). */
static void tl_window(tui *t, long a, long b) {
  const cct_timeline *tl = t->tl.t;
  if (a > b) {
    long x = a;
    a = b;
    b = x;
  }
  double colw = (tl->to - tl->from) / (double)tl->ncols;
  char from[40], to[40];
  snprintf(from, sizeof from, "%.9g", tl->from + (double)a * colw);
  snprintf(to, sizeof to, "%.9g", tl->from + (double)(b + 1) * colw);
  cct_err err = CCT_ERR_INIT;
  if (cct_query_set_window(t->q, from, to, &err)) return say(t, 1, "%s", err.msg);
  say(t, 0, "window %s s - %s s: the panes show 'trace (sec)' over it ('w' resets it)", from, to);
  refresh_all(t, 1);
}

/* Handles key c (k: get_wch's code) in the focused timeline pane; returns 0 when the key is not the pane's. */
static int tl_key(tui *t, int k, wint_t c) {
  struct tline *p = &t->tl;
  long nc = p->t ? (long)p->t->ncols : 1, nl = p->t ? (long)p->t->nlanes : 1;
  if (k == KEY_CODE_YES) {
    switch (c) {
    case KEY_LEFT: p->col--; break;
    case KEY_RIGHT: p->col++; break;
    case KEY_UP: p->lane--; break;
    case KEY_DOWN: p->lane++; break;
    case KEY_PPAGE: p->lane -= p->h > 4 ? p->h - 3 : 1; break;
    case KEY_NPAGE: p->lane += p->h > 4 ? p->h - 3 : 1; break;
    case KEY_HOME: p->col = 0; break;
    case KEY_END: p->col = nc - 1; break;
    default: return 0;
    }
  } else {
    switch (c) {
    case L'h': p->col--; break;
    case L'l': p->col++; break;
    case L'H': p->col -= 10; break;
    case L'L': p->col += 10; break;
    case L'k': p->lane--; break;
    case L'j': p->lane++; break;
    case L' ':
      if (!p->t) break;
      if (p->mark < 0) {
        p->mark = p->col;
        say(t, 0, "mark at %.4g s: move to the window's other end and press space again", tl_time(p->t, p->col));
      } else {
        long m = p->mark;
        p->mark = -1;
        tl_window(t, m, p->col);
      }
      break;
    case 27: p->mark = -1; break;
    case L'w':
      if (!cct_query_window(t->q)) return say(t, 0, "no window to reset"), 1;
      cct_query_set_window(t->q, NULL, NULL, NULL);
      say(t, 0, "the whole run");
      refresh_all(t, 1);
      break;
    case L'c': {
      int f = p->t ? p->t->at[p->lane * nc + p->col] : -1;
      if (f < 0) return say(t, 1, "%s is idle here: nothing to center on", p->t ? p->t->label[p->lane] : "this lane"), 1;
      char item[40], name[200];
      snprintf(item, sizeof item, "#%lld", p->t->frame_id[f]);
      snprintf(name, sizeof name, "%s", p->t->frame_name[f]);
      cct_center *cn = NULL;
      cct_err err = CCT_ERR_INIT;
      if (cct_center_edit(t->q, 0, cct_query_center(t->q), CCT_CENTER_SET, item, NULL, &cn, &err))
        return say(t, 1, "%s", err.msg), 1;
      if (!cn) return say(t, 0, "this frame is the center"), 1;
      center_set(t, cn);
      if (!t->msg[0]) say(t, 0, "center %s: %s as sampled here ('u' goes back)", item, name); /* else center_set's error */
      break;
    }
    default: return 0;
    }
  }
  if (p->col < 0) p->col = 0;
  if (p->col >= nc) p->col = nc - 1;
  if (p->lane >= nl) p->lane = nl - 1;
  if (p->lane < 0) p->lane = 0;
  return 1;
}

/* 'T': shows the timeline pane with the keys, or hides it when it has them. */
static void tl_toggle(tui *t) {
  struct tline *p = &t->tl;
  if (p->on && p->focus) {
    p->on = p->focus = 0;
    return;
  }
  if (!p->on) {
    p->on = 1;
    p->mark = -1;
    tl_compute(t);
  }
  p->focus = 1;
}

/* ------------------------------------------------------------ drawing */

static const char *const flat_names[] = {"functions", "loops", "lines", "files", "modules"};

/* Lays the panes out for the screen size: flat, tree and (when shown) source
 * stacked, the status and message lines at the bottom. */
static void layout(tui *t) {
  int avail = LINES - 2, src = src_visible(t), top = 0;
  if (t->tl.on && t->tl.t && (long)t->tl.t->ncols != tl_width()) tl_compute(t); /* the terminal's width changed */
  if (t->tl.on) { /* the timeline pane on top: its lanes, the axis and the cursor's line */
    int want = t->tl.t ? (int)t->tl.t->nlanes + 3 : 3, most = avail / 3 > 5 ? avail / 3 : 5;
    t->tl.y = 0;
    t->tl.h = top = want < most ? want : most;
    avail -= top;
  } else {
    t->tl.h = 0;
  }
  if (avail < 6) avail = 6;
  int hf, ht, hs = 0;
  if (src) {
    hf = avail * 3 / 10;
    hs = avail * 3 / 10;
    if (hf < 3) hf = 3;
    if (hs < 3) hs = 3;
    ht = avail - hf - hs;
  } else {
    hf = avail * 2 / 5;
    if (hf < 3) hf = 3;
    ht = avail - hf;
  }
  t->pn[P_FLAT].y = top;
  t->pn[P_FLAT].h = hf;
  t->pn[P_TREE].y = top + hf;
  t->pn[P_TREE].h = ht;
  t->pn[P_SOURCE].y = top + hf + ht;
  t->pn[P_SOURCE].h = hs;
  if (!src && t->focus == P_SOURCE) t->focus = P_TREE;
}

/* Keeps the cursor of pn inside its rows and on the screen. */
static void scroll_into_view(pane *pn) {
  long rows = pn->h - 1;
  if (pn->sel >= (long)pn->nvis) pn->sel = (long)pn->nvis - 1;
  if (pn->sel < 0) pn->sel = 0;
  if (rows < 1) return;
  if (pn->sel < pn->top) pn->top = pn->sel;
  if (pn->sel >= pn->top + rows) pn->top = pn->sel - rows + 1;
  if (pn->top > (long)pn->nvis - rows) pn->top = (long)pn->nvis - rows;
  if (pn->top < 0) pn->top = 0;
}

static void bar(int y, int focused) {
  attrset(A_REVERSE | (focused ? A_BOLD : 0));
  mvhline(y, 0, ' ', COLS);
}

/* Whether pn is a source view with the center's share of each line (a center is set). */
static int has_share(const pane *pn) { return pn->v && pn->v->nrows && pn->v->rows[0].share; }

/* Narrow terminals (under 100 columns) show the exclusive value as a
 * percentage only, to leave room for the names. */
static int narrow(void) { return COLS < 100; }

/* Column layout of a pane: x of the name column. */
static int names_x(const pane *pn, int source) {
  int x = 1 + (source ? 7 : 0);
  return x + pn->numw + 1 + pn->pctw + 2 + (narrow() ? 0 : pn->numw + 1) + pn->pctw + 3 +
         (has_share(pn) ? pn->numw + 2 : 0);
}

/* Columns a tree row is indented by (2 per level, at most half the names' room). */
static int tree_indent(const cct_row *r, int nx) {
  int indent = 2 * r->depth;
  return indent > (COLS - nx) / 2 ? (COLS - nx) / 2 : indent;
}

/* The labels of the rows pane pn shows from its top, cut to their room at
 * once as the shell cuts them (cct_shorten_all: the module first, names that
 * differ kept apart; paths are cut at their start by put instead).  Returns
 * rows strings (NULL entries for paths), or NULL out of memory: put cuts then. */
static char **shown_labels(const tui *t, const pane *pn, int rows, int nx) {
  char **out = calloc((size_t)rows + 1, sizeof *out), **labels = calloc((size_t)rows + 1, sizeof *labels);
  int *widths = calloc((size_t)rows + 1, sizeof *widths), n = 0, rc = out && labels && widths ? 0 : -1;
  for (; !rc && n < rows && pn->top + n < (long)pn->nvis; n++) {
    const cct_row *r = &pn->v->rows[pn->vis[pn->top + n]];
    widths[n] = COLS - nx - (pn == &t->pn[P_TREE] ? tree_indent(r, nx) + 2 : 0);
    if (r->kind == CCT_ROW_FILE || r->kind == CCT_ROW_MODULE) labels[n] = strdup("");
    else labels[n] = label_of(t, r, pn->dup[pn->vis[pn->top + n]]);
    if (!labels[n]) rc = -1;
  }
  if (!rc) rc = cct_shorten_all((const char *const *)labels, widths, (size_t)n, out);
  for (int k = 0; labels && k < n; k++) free(labels[k]);
  free(labels);
  free(widths);
  if (rc) {
    free(out);
    return NULL;
  }
  for (int k = 0; k < n; k++)
    if (!*out[k]) free(out[k]), out[k] = NULL; /* a path: put keeps its end */
  return out;
}

static void draw_pane(tui *t, int pi) {
  pane *pn = &t->pn[pi];
  if (pn->h <= 0) return;
  int focused = t->focus == pi, src = pi == P_SOURCE;
  scroll_into_view(pn);
  int x0 = 1 + (src ? 7 : 0), nx = names_x(pn, src);
  /* Title: the column headings, then what the pane shows. */
  bar(pn->y, focused);
  if (src) mvaddstr(pn->y, 1, "  line");
  if (narrow()) mvprintw(pn->y, x0, "%*s %*s  %*s", pn->numw, "inclusive", pn->pctw, "%", pn->pctw, "excl%");
  else mvprintw(pn->y, x0, "%*s %*s  %*s %*s", pn->numw, "inclusive", pn->pctw, "%", pn->numw, "exclusive", pn->pctw, "%");
  if (has_share(pn)) printw("  %*s", pn->numw, "center");
  char title[1024], cl[600];
  if (pi == P_FLAT) {
    snprintf(title, sizeof title, "%s Flat %s%s", focused ? ">" : " ", flat_names[t->flat_kind],
             pn->v && pn->spec.n && pn->v->nrows == (size_t)pn->spec.n ? " (more below)" : "");
  } else if (pi == P_TREE) {
    center_items(t, cl, sizeof cl);
    snprintf(title, sizeof title, "%s %s of %s", focused ? ">" : " ", t->bottomup ? "Bottom-up" : "Top-down",
             cct_center_count(t->q) ? cl : "the program");
  } else {
    const char *note = pn->v && pn->v->nrows && !pn->v->rows[0].text ? " (no stored copy: figures only)" : "";
    int room = COLS - nx + 1, w = put(pn->y, nx - 2, focused ? "> Source " : "  Source ", room, 0, CUT_END);
    int nw = (int)strlen(note) < (room - w) / 2 ? (int)strlen(note) : 0;
    w += put(pn->y, nx - 2 + w, pn->spec.file ? pn->spec.file : "", room - w - nw, 0, CUT_START);
    if (nw) put(pn->y, nx - 2 + w, note, nw, 0, CUT_END);
    title[0] = 0;
  }
  if (title[0]) put(pn->y, nx - 2, title, COLS - nx + 1, 0, CUT_MIDDLE);
  attrset(A_NORMAL);
  int rows = pn->h - 1;
  if (!pn->v || !pn->nvis) {
    if (pn->note) put(pn->y + 1, 2, pn->note, COLS - 3, 0, CUT_END);
    else if (pn->v) put(pn->y + 1, 2, "(no rows)", COLS - 3, 0, CUT_END);
    return;
  }
  double total = pn->v->total ? pn->v->total[0] : 0;
  char **shown = src ? NULL : shown_labels(t, pn, rows, nx);
  for (int k = 0; k < rows; k++) {
    long vi = pn->top + k;
    if (vi >= (long)pn->nvis) break;
    size_t ri = pn->vis[vi];
    const cct_row *r = &pn->v->rows[ri];
    int y = pn->y + 1 + k, sel = vi == pn->sel;
    attr_t a = A_NORMAL;
    if (r->center) a |= A_BOLD | (t->color ? COLOR_PAIR(src ? C_MARK : C_CENTER) : 0);
    if (sel) a |= focused ? A_REVERSE : A_UNDERLINE;
    attrset(a);
    mvhline(y, 0, ' ', COLS);
    char iv[64], ip[16], ev[64], ep[16];
    fmt_value(pn, r->inclusive[0], iv, sizeof iv);
    fmt_percent(r->inclusive[0], total, ip, sizeof ip);
    fmt_value(pn, r->exclusive[0], ev, sizeof ev);
    fmt_percent(r->exclusive[0], total, ep, sizeof ep);
    if (src) mvprintw(y, 1, "%c%5lld", r->mark ? r->mark : ' ', r->line);
    int empty = src && r->inclusive[0] == 0 && r->exclusive[0] == 0 && (!r->share || r->share[0] == 0);
    if (empty) {
    } else if (narrow()) {
      mvprintw(y, x0, "%*s %*s  %*s", pn->numw, iv, pn->pctw, ip, pn->pctw, ep);
    } else {
      mvprintw(y, x0, "%*s %*s  %*s %*s", pn->numw, iv, pn->pctw, ip, pn->numw, ev, pn->pctw, ep);
    }
    if (!empty && has_share(pn)) { /* the line's cost inside the center */
      fmt_value(pn, r->share[0], iv, sizeof iv);
      printw("  %*s", pn->numw, iv);
    }
    if (!src) mvaddstr(y, nx - 2, r->center ? "*" : " ");
    int x = nx;
    if (pi == P_TREE) {
      x += tree_indent(r, nx);
      const char *mk = pn->nkids[ri] ? (pn->open[ri] ? (t->utf8 ? "\u25be " : "- ") : (t->utf8 ? "\u25b8 " : "+ "))
                       : r->level >= pn->spec.arg ? (t->utf8 ? "\u25b8 " : "+ ") : "  ";
      put(y, x, mk, 2, 0, CUT_END);
      x += 2;
    }
    char label[2048];
    if (src) snprintf(label, sizeof label, "%s", r->text ? r->text : "");
    else if (shown && shown[k]) snprintf(label, sizeof label, "%s", shown[k]);
    else row_label(t, r, pn->dup[ri], label, sizeof label);
    int paths = r->kind == CCT_ROW_FILE || r->kind == CCT_ROW_MODULE; /* keep the file name of a path */
    put(y, x, label, COLS - x, src, src ? CUT_END : paths ? CUT_START : CUT_MIDDLE);
  }
  attrset(A_NORMAL);
  long listed = (long)pn->nvis - pn->top; /* the view's note on the first free line below its rows */
  if (pn->note && !src && listed < rows) put(pn->y + 1 + (int)listed, 2, pn->note, COLS - 3, 0, CUT_END);
  for (int k = 0; shown && k < rows; k++) free(shown[k]);
  free(shown);
}

/* The key help of the bottom line, as many items as fit. */
static const char *const help_items[] = {"?:keys", "q:quit", "Tab:pane", "c:center", "r:reset", "t/b:tree",
                                         "s:source", "/:find", "u:undo", "+/-:add/del", "m:metric", "g:gran",
                                         "f:flat", "e:export", "T:timeline", NULL};

static void draw(tui *t) {
  layout(t);
  erase();
  for (int i = 0; i < P_COUNT; i++) draw_pane(t, i);
  tl_draw(t);
  /* Status line: the center on the left, metric, granularity, tree view and
   * run on the right; the center's label gives way when the line is full. */
  char cl[600], right[3][400];
  center_text(t, cl, sizeof cl);
  const char *metric = cct_query_metric(t->q) ? cct_query_metric(t->q) : "-";
  snprintf(right[0], sizeof right[0], " %s | %s | %s | run %d ", metric,
           cct_query_granularity(t->q) == CCT_GRAN_LINE ? "line" : "function", t->bottomup ? "bottom-up" : "top-down",
           cct_query_run(t->q));
  snprintf(right[1], sizeof right[1], " %s | %s ", metric, cct_query_granularity(t->q) == CCT_GRAN_LINE ? "line" : "function");
  snprintf(right[2], sizeof right[2], " %s ", metric);
  int k = 0, cw = (int)strlen(cl) + 2; /* the fullest right part that leaves the center whole */
  while (k < 2 && cw + (int)strlen(right[k]) > COLS) k++;
  int rw = (int)strlen(right[k]) <= COLS - 30 ? (int)strlen(right[k]) : 0;
  attrset(A_REVERSE);
  mvhline(LINES - 2, 0, ' ', COLS);
  if (rw) put(LINES - 2, COLS - rw, right[k], rw, 0, CUT_END);
  put(LINES - 2, 1, cl, COLS - rw - 2, 0, CUT_MIDDLE);
  attrset(t->msg[0] && t->msg_err && t->color ? COLOR_PAIR(C_ERROR) | A_BOLD : A_NORMAL);
  if (t->msg[0]) {
    put(LINES - 1, 0, t->msg, COLS - 1, 0, CUT_END);
  } else {
    int x = 0;
    for (int i = 0; help_items[i] && x + (int)strlen(help_items[i]) < COLS; i++)
      x += put(LINES - 1, x, help_items[i], COLS - x, 0, CUT_END) + 1;
  }
  attrset(A_NORMAL);
  refresh();
}

/* Asks for a line of text on the bottom line.  Returns a malloc'ed string
 * (empty when only Enter), or NULL when cancelled with Esc or Ctrl-C. */
static char *prompt(tui *t, const char *question) {
  wchar_t buf[1024];
  size_t n = 0;
  curs_set(1);
  for (;;) {
    buf[n] = 0;
    attrset(A_NORMAL);
    mvhline(LINES - 1, 0, ' ', COLS);
    int qw = put(LINES - 1, 0, question, COLS / 2, 0, CUT_END);
    int room = COLS - qw - 2;
    size_t first = 0;
    while (first < n && wwidth(buf + first) > room) first++;
    mvaddwstr(LINES - 1, qw, buf + first);
    refresh();
    wint_t c;
    int k = get_wch(&c);
    if (k == ERR) {
      if (tui_sigint) break;
      continue;
    }
    if (k == KEY_CODE_YES) {
      if (c == KEY_BACKSPACE && n) n--;
      else if (c == KEY_ENTER) goto done;
      else if (c == KEY_RESIZE) draw(t);
      continue;
    }
    if (c == 27 || c == 3 || c == 7) break; /* Esc, Ctrl-C, Ctrl-G */
    if (c == L'\n' || c == L'\r') goto done;
    if ((c == 127 || c == 8) && n) n--;
    else if (c == 21) n = 0; /* Ctrl-U */
    else if (c >= 0x20 && c != 127 && n + 1 < sizeof buf / sizeof *buf) buf[n++] = (wchar_t)c;
  }
  curs_set(0);
  return NULL;
done:
  curs_set(0);
  buf[n] = 0;
  size_t len = wcstombs(NULL, buf, 0);
  if (len == (size_t)-1) return NULL;
  char *s = malloc(len + 1);
  if (s) wcstombs(s, buf, len + 1);
  return s;
}

/* Shows a list of choices in a box (cursor: with a cursor on the current
 * one; without, a text to read that scrolls); returns the index chosen or -1. */
static int choose(tui *t, const char *title, char **items, size_t n, size_t cur, int cursor) {
  long sel = (long)cur;
  for (;;) {
    draw(t);
    int w = (int)strlen(title) + 4;
    for (size_t i = 0; i < n; i++)
      if ((int)strlen(items[i]) + 6 > w) w = (int)strlen(items[i]) + 6;
    if (w > COLS - 2) w = COLS - 2;
    int h = (int)n + 2;
    if (h > LINES - 4) h = LINES - 4;
    int y0 = (LINES - h) / 2, x0 = (COLS - w) / 2, rows = h - 2;
    long top = sel >= rows ? sel - rows + 1 : 0;
    attrset(A_REVERSE);
    for (int y = 0; y < h; y++) mvhline(y0 + y, x0, ' ', w);
    put(y0, x0 + 2, title, w - 4, 0, CUT_END);
    for (int k = 0; k < rows && top + k < (long)n; k++) {
      attrset(top + k == sel && cursor ? A_NORMAL | A_BOLD : A_REVERSE);
      mvhline(y0 + 1 + k, x0 + 1, ' ', w - 2);
      put(y0 + 1 + k, x0 + 2, items[top + k], w - 4, 0, CUT_MIDDLE);
    }
    attrset(A_NORMAL);
    refresh();
    wint_t c;
    int k = get_wch(&c);
    if (k == ERR) {
      if (tui_sigint) return -1;
      continue;
    }
    if (k == KEY_CODE_YES) {
      if (c == KEY_UP && sel > 0) sel--;
      else if (c == KEY_DOWN && sel + 1 < (long)n) sel++;
      else if (c == KEY_ENTER) return (int)sel;
      continue;
    }
    if (c == L'k' && sel > 0) sel--;
    else if (c == L'j' && sel + 1 < (long)n) sel++;
    else if (c == L'\n' || c == L'\r') return (int)sel;
    else if (c == 27 || c == L'q' || c == 3) return -1;
  }
}

static const char *const key_help[] = {
    "Up Down j k      move (PgUp PgDn Home End: page, first, last)",
    "Enter Right      expand a tree row",
    "Left             collapse a tree row, or go to its parent",
    "Tab              next pane: flat, tree, source",
    "c                center on the selected row (source: that line)",
    "+ -              add the row to the center, remove it",
    "r                reset the center",
    "u                undo the last center change",
    "t b              tree pane: top-down, bottom-up",
    "s                source of the row (in the source pane: hide it)",
    "/ n N            find (regular expression), next, previous",
    "m                choose the metric",
    "g                granularity: function or line",
    "f                flat view: functions, loops, lines, files, modules",
    "e                export the picture to FILE.svg or FILE.html",
    "T                timeline pane (T again, or Tab, leaves it): per traced profile",
    "                 when the center was on its sampled stack ('-': busy elsewhere)",
    "  Left Right     move the time cursor (H L: ten columns); Up Down: the profile",
    "  space          mark a time; space again: the two marks are the window",
    "  w              reset the window (the whole run)",
    "  c              center on the innermost frame sampled at the cursor",
    "q                quit",
    "mouse            click selects, double click centers",
};

static void show_help(tui *t) {
  size_t n = sizeof key_help / sizeof *key_help;
  char **items = malloc(n * sizeof *items);
  if (!items) return;
  for (size_t i = 0; i < n; i++) items[i] = cct_unconst(key_help[i]);
  choose(t, "Keys (Esc or q closes)", items, n, 0, 0);
  free(items);
}

/* ------------------------------------------------------------ actions */

typedef struct names {
  char **v;
  size_t n, cap;
} names;

static int add_name(void *arg, const char *name) {
  names *m = arg;
  if (m->n == m->cap) {
    size_t c = m->cap ? 2 * m->cap : 16;
    char **v = realloc(m->v, c * sizeof *v);
    if (!v) return 1;
    m->v = v;
    m->cap = c;
  }
  if (!(m->v[m->n] = strdup(name))) return 1;
  m->n++;
  return 0;
}

static void choose_metric(tui *t) {
  names m = {0};
  cct_query_complete(t->q, 'm', "", add_name, &m);
  size_t cur = 0;
  for (size_t i = 0; i < m.n; i++)
    if (cct_query_metric(t->q) && !strcmp(m.v[i], cct_query_metric(t->q))) cur = i;
  int k = m.n ? choose(t, "Metric (Enter chooses, Esc cancels)", m.v, m.n, cur, 1) : -1;
  if (!m.n) say(t, 1, "this run has no metrics");
  if (k >= 0) {
    cct_err err = CCT_ERR_INIT;
    if (cct_query_set_metric(t->q, m.v[k], &err)) say(t, 1, "%s", err.msg);
    else refresh_all(t, 0);
  }
  for (size_t i = 0; i < m.n; i++) free(m.v[i]);
  free(m.v);
}

/* A picture the TUI writes, for cct_file_replace. */
typedef struct tui_picture {
  tui *t;
  int svg;     /* 1: .svg, 0: .html */
  cct_err err; /* the library's error */
  int rc;      /* its code */
} tui_picture;

static int tui_picture_fill(FILE *f, void *arg) {
  tui_picture *j = arg;
  cct_view_spec spec; /* the tree pane's settings */
  cct_shell_spec(j->t->p, CCT_VIEW_TOPDOWN, CCT_MODE_TREE, &spec);
  spec.depth = j->t->pn[P_TREE].spec.arg > 3 ? j->t->pn[P_TREE].spec.arg : 3;
  j->rc = (j->svg ? cct_picture_svg : cct_picture_html)(j->t->q, &spec, NULL, f, &j->err);
  return j->rc;
}

/* Writes the picture of the current center (cct_picture_svg / _html) to a
 * file named by the user, replacing it only once complete (shell_file.c). */
static void export_picture(tui *t) {
  char *path = prompt(t, "export the picture to (FILE.svg or FILE.html): ");
  if (!path || !*path) {
    free(path);
    return say(t, 0, "export cancelled");
  }
  const char *dot = strrchr(path, '.');
  int svg = dot && !strcasecmp(dot, ".svg"), html = dot && !strcasecmp(dot, ".html");
  if (!svg && !html) {
    say(t, 1, "export: name a FILE ending in .svg or .html ('%s')", path);
    free(path);
    return;
  }
  tui_picture job = {t, svg, CCT_ERR_INIT, 0};
  char msg[512];
  int rc = cct_file_replace(path, tui_picture_fill, &job, msg, sizeof msg);
  if (rc > 0) say(t, 1, "%s", job.err.msg[0] ? job.err.msg : cct_errstr(job.rc));
  else if (rc < 0) say(t, 1, "%s", msg);
  else say(t, 0, "wrote %s", path);
  free(path);
}

/* How deep a search of the tree pane looks. */
#define FIND_DEPTH 24

/* Finds the next row (dir 1) or previous (-1) of the focused pane whose label
 * matches the last search, from the cursor on; opens tree rows to show it. */
static void find_next(tui *t, int dir) {
  if (!t->have_re) return say(t, 0, "no search yet: '/' finds");
  pane *pn = &t->pn[t->focus];
  if (!pn->v || !pn->v->nrows) return say(t, 1, "nothing to search in this pane");
  for (;;) {
    long n = (long)pn->v->nrows, start = pane_row_index(pn);
    for (long k = 1; k <= n; k++) {
      long i = ((start + dir * k) % n + n) % n;
      const cct_row *r = &pn->v->rows[i];
      char label[2048];
      if (t->focus == P_SOURCE) snprintf(label, sizeof label, "%s", r->text ? r->text : "");
      else row_label(t, r, pn->dup[i], label, sizeof label);
      if (!cct_regmatch(&t->re, label)) continue;
      if (pn->open)
        for (int a = pn->parent[i]; a >= 0; a = pn->parent[a]) pn->open[a] = 1;
      pane_relist(pn, i);
      pn->top = pn->sel - (pn->h - 1) / 2;
      if (pn->top < 0) pn->top = 0;
      t->msg[0] = 0;
      if (t->focus == P_TREE) tree_deepen(t);
      return;
    }
    /* Not in the levels computed so far: the tree looks deeper (to 24 levels). */
    if (t->focus != P_TREE || pn->spec.arg >= FIND_DEPTH || tree_compute(t, FIND_DEPTH, 0)) break;
  }
  say(t, 1, "not found in the %s pane%s", t->focus == P_FLAT ? "flat" : t->focus == P_TREE ? "tree" : "source",
      t->focus == P_TREE ? " (searched 24 levels deep)" : t->focus == P_FLAT ? " (rows computed so far)" : "");
}

static void find(tui *t) {
  char *s = prompt(t, "find (regular expression): ");
  if (!s || !*s) {
    free(s);
    return;
  }
  regex_t re;
  char e[300];
  if (cct_regcomp(&re, s, REG_EXTENDED | REG_NOSUB | REG_ICASE, e, sizeof e)) {
    say(t, 1, "%s", e);
    free(s);
    return;
  }
  if (t->have_re) regfree(&t->re);
  t->re = re;
  t->have_re = 1;
  free(s);
  find_next(t, 1);
}

/* Expands (open 1) or collapses (0) the tree row under the cursor. */
static void tree_open(tui *t, int open) {
  pane *pn = &t->pn[P_TREE];
  long i = pane_row_index(pn);
  if (i < 0 || !pn->open) return;
  if (open) {
    if (!pn->nkids[i] && pn->v->rows[i].level < pn->spec.arg) return;
    if (pn->open[i] && pn->nkids[i]) { /* already open: go to the first child */
      pn->sel++;
      return;
    }
    pn->open[i] = 1;
    tree_deepen(t);
    pn = &t->pn[P_TREE];
    i = pane_row_index(pn);
    if (i >= 0 && !pn->nkids[i]) pn->open[i] = 0, say(t, 0, "no callees below this row");
  } else if (pn->open[i]) {
    pn->open[i] = 0;
  } else if (pn->parent[i] >= 0) {
    i = pn->parent[i];
  }
  pane_relist(pn, i);
}

static void go(tui *t, long by) {
  pane *pn = &t->pn[t->focus];
  pn->sel += by;
  if (pn->sel < 0) pn->sel = 0;
  if (pn->sel >= (long)pn->nvis) pn->sel = (long)pn->nvis - 1;
  /* The flat pane asks for more rows near its end. */
  if (t->focus == P_FLAT && pn->v && pn->spec.n && pn->v->nrows == (size_t)pn->spec.n &&
      pn->sel + pn->h >= (long)pn->nvis)
    flat_compute(t, pn->spec.n * 2, 1);
  follow(t);
}

/* Which pane holds screen line y (-1 for none). */
static int pane_at(tui *t, int y) {
  for (int i = 0; i < P_COUNT; i++)
    if (t->pn[i].h > 0 && y >= t->pn[i].y && y < t->pn[i].y + t->pn[i].h) return i;
  return -1;
}

static void mouse(tui *t) {
  MEVENT e;
  if (getmouse(&e) != OK) return;
  int pi = pane_at(t, e.y);
  if (pi < 0) return;
  pane *pn = &t->pn[pi];
  if (e.bstate & BUTTON4_PRESSED) {
    t->focus = pi;
    return go(t, -3);
  }
#ifdef BUTTON5_PRESSED
  if (e.bstate & BUTTON5_PRESSED) {
    t->focus = pi;
    return go(t, 3);
  }
#endif
  if (!(e.bstate & (BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED | BUTTON1_PRESSED | BUTTON1_RELEASED))) return;
  if (e.bstate & BUTTON1_RELEASED && !(e.bstate & BUTTON1_CLICKED)) return;
  t->tl.focus = 0;
  t->focus = pi;
  long row = pn->top + (e.y - pn->y - 1);
  if (e.y > pn->y && row < (long)pn->nvis) pn->sel = row;
  follow(t);
  if (e.bstate & BUTTON1_DOUBLE_CLICKED && e.y > pn->y) center_change(t, pi, CCT_CENTER_SET);
}

/* Handles one key; returns 1 to quit. */
static int key(tui *t, int k, wint_t c) {
  if (t->tl.focus) { /* the timeline pane's keys; of the others, those that are not about a pane's rows */
    if (k != KEY_CODE_YES) t->msg[0] = 0;
    if (tl_key(t, k, c)) return 0;
    if (k == KEY_CODE_YES ? c != KEY_RESIZE && c != KEY_BTAB : !wcschr(L"qmgrueT?\t\f", (wchar_t)c)) return 0;
  }
  pane *pn = &t->pn[t->focus];
  int page = pn->h > 2 ? pn->h - 2 : 1;
  if (k == KEY_CODE_YES) {
    switch (c) {
    case KEY_UP: go(t, -1); break;
    case KEY_DOWN: go(t, 1); break;
    case KEY_PPAGE: go(t, -page); break;
    case KEY_NPAGE: go(t, page); break;
    case KEY_HOME: go(t, -(long)pn->nvis); break;
    case KEY_END: go(t, (long)pn->nvis); break;
    case KEY_RIGHT:
    case KEY_ENTER:
      if (t->focus == P_TREE) tree_open(t, 1);
      break;
    case KEY_LEFT:
      if (t->focus == P_TREE) tree_open(t, 0);
      break;
    case KEY_BTAB: t->tl.focus = 0; t->focus = (t->focus + P_COUNT - 1) % P_COUNT; if (t->focus == P_SOURCE && !src_visible(t)) t->focus = P_TREE; break;
    case KEY_MOUSE: mouse(t); break;
    case KEY_RESIZE: break;
    }
    return 0;
  }
  t->msg[0] = 0;
  switch (c) {
  case L'q': return 1;
  case L'k': go(t, -1); break;
  case L'j': go(t, 1); break;
  case L'\n':
  case L'\r':
    if (t->focus == P_TREE) tree_open(t, 1);
    break;
  case L'\t':
    if (t->tl.focus) { /* the timeline hands the keys to the flat pane */
      t->tl.focus = 0;
      t->focus = P_FLAT;
      break;
    }
    t->focus = (t->focus + 1) % P_COUNT;
    if (t->focus == P_SOURCE && !src_visible(t)) t->focus = P_FLAT;
    if (t->focus == P_FLAT && t->tl.on) t->tl.focus = 1; /* the timeline comes first */
    follow(t);
    break;
  case L'T': tl_toggle(t); break;
  case L'c': center_change(t, t->focus, CCT_CENTER_SET); break;
  case L'+': center_change(t, t->focus, CCT_CENTER_ADD); break;
  case L'-': center_change(t, t->focus, CCT_CENTER_REMOVE); break;
  case L'r': center_reset(t); break;
  case L'u': center_undo(t); break;
  case L't':
  case L'b':
    if (t->bottomup != (c == L'b')) {
      t->bottomup = c == L'b';
      tree_new(t);
    }
    t->focus = P_TREE;
    break;
  case L's':
    if (t->focus == P_SOURCE) {
      t->src_on = 0;
      t->focus = P_TREE;
    } else {
      const cct_row *r = pane_row(pn);
      if (r && r->kind == CCT_ROW_CENTER && !row_file(r)) { /* the center's own file */
        t->src_on = 1;
        layout(t);
        source_show(t, NULL, -1);
        t->focus = P_SOURCE;
        break;
      }
      if (!row_file(r)) {
        say(t, 1, "this row has no source file");
        break;
      }
      char *file = strdup(r->file);
      long long line = r->line;
      t->src_on = 1;
      layout(t);
      if (file) source_show(t, file, line);
      free(file);
      t->focus = P_SOURCE;
    }
    break;
  case L'/': find(t); break;
  case L'n': find_next(t, 1); break;
  case L'N': find_next(t, -1); break;
  case L'm': choose_metric(t); break;
  case L'g':
    cct_query_set_granularity(t->q, cct_query_granularity(t->q) == CCT_GRAN_LINE ? CCT_GRAN_FUNCTION : CCT_GRAN_LINE);
    refresh_all(t, 0);
    break;
  case L'f':
    t->flat_kind = (t->flat_kind + 1) % 5;
    flat_compute(t, 200, 0);
    t->focus = P_FLAT;
    break;
  case L'e': export_picture(t); break;
  case L'?': show_help(t); break;
  case 12: clearok(stdscr, TRUE); break; /* Ctrl-L */
  default: break;
  }
  return 0;
}

/* ------------------------------------------------------------ entry */

/* What cct_tui_run changes in the process and puts back. */
typedef struct saved {
  struct sigaction winch, sigint; /* the caller's handlers */
  char *ctype;                    /* the caller's LC_CTYPE (owned) */
} saved;

static void restore(saved *sv) {
  sigaction(SIGWINCH, &sv->winch, NULL);
  sigaction(SIGINT, &sv->sigint, NULL);
  if (sv->ctype) setlocale(LC_CTYPE, sv->ctype);
  free(sv->ctype);
  sv->ctype = NULL;
}

int cct_tui_run(cct_shell *p) {
  if (!p->q) return cct_shell_error(p, "no archive open (use 'open FILE')");
  if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) return cct_shell_error(p, "tui needs a terminal");
  saved sv;
  memset(&sv, 0, sizeof sv);
  const char *ct = setlocale(LC_CTYPE, NULL);
  sv.ctype = ct ? strdup(ct) : NULL;
  setlocale(LC_CTYPE, "");
  /* ncurses installs its SIGWINCH handler only over the default one. */
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = SIG_DFL;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGWINCH, &sa, &sv.winch);
  sa.sa_handler = on_sigint;
  sigaction(SIGINT, &sa, &sv.sigint);
  fflush(stdout);
  const char *term = getenv("TERM");
  SCREEN *scr = newterm(NULL, stdout, stdin);
  if (!scr) {
    restore(&sv);
    return cct_shell_error(p, "cannot start the full-screen interface on terminal type '%s'", term ? term : "");
  }
  set_term(scr);
  const char *cup = tigetstr("cup"); /* a terminal that cannot move the cursor ('dumb') cannot show panes */
  if (!cup || cup == (const char *)-1) {
    endwin();
    delscreen(scr);
    restore(&sv);
    return cct_shell_error(p, "the terminal (TERM '%s') cannot move the cursor: the full-screen interface needs one",
                           term ? term : "");
  }
  cbreak();
  noecho();
  nonl();
  keypad(stdscr, TRUE);
  set_escdelay(25);
  curs_set(0);
  tui t;
  memset(&t, 0, sizeof t);
  t.p = p;
  t.q = p->q;
  t.src_on = -1;
  t.flat_kind = CCT_FLAT_FUNCTIONS;
  const char *cs = setlocale(LC_CTYPE, NULL);
  t.utf8 = cs && (strstr(cs, "UTF-8") || strstr(cs, "utf8") || strstr(cs, "UTF8"));
  t.color = has_colors() && !(getenv("NO_COLOR") && *getenv("NO_COLOR"));
  if (t.color && start_color() == OK) {
    use_default_colors();
    init_pair(C_CENTER, COLOR_MAGENTA, -1);
    init_pair(C_ERROR, COLOR_RED, -1);
    init_pair(C_MARK, COLOR_MAGENTA, -1);
  } else {
    t.color = 0;
  }
  mousemask(BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED | BUTTON4_PRESSED
#ifdef BUTTON5_PRESSED
                | BUTTON5_PRESSED
#endif
            ,
            NULL);
  mouseinterval(300);
  t.pn[P_FLAT].spec.n = 200;
  layout(&t);
  refresh_all(&t, 0);
  pane *fp = &t.pn[P_FLAT]; /* the flat cursor starts on the center's first row */
  for (size_t i = 0; fp->v && i < fp->nvis; i++)
    if (fp->v->rows[fp->vis[i]].center) {
      fp->sel = (long)i;
      break;
    }
  for (;;) {
    draw(&t);
    wint_t c;
    int k = get_wch(&c);
    if (k == ERR) continue; /* a signal (Ctrl-C interrupts a long view, not the interface) */
    if (key(&t, k, c)) break;
  }
  endwin();
  delscreen(scr);
  restore(&sv);
  for (int i = 0; i < P_COUNT; i++) {
    pane_clear(&t.pn[i]);
    spec_release(&t.pn[i].spec);
  }
  cct_timeline_free(t.tl.t);
  for (size_t i = 0; i < t.nundo; i++) cct_center_free(t.undo[i]);
  free(t.undo);
  if (t.have_re) regfree(&t.re);
  return CCT_CMD_OK;
}
