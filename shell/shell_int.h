/* shell_int.h: private interface of the cctq shell (the files of
 * shell/).  The shell is a client of the public cct_query API only; it
 * owns the command splitter, the command table, the output modes and the
 * completion logic.  Nothing here depends on readline: main.c wires readline
 * (line editing, history, completion display) to these functions.
 *
 * Ownership: a cct_shell owns its cct_query session and the last view it
 * showed (cct_shown); strings passed in are copied when kept. */
#ifndef CCT_SHELL_INT_H
#define CCT_SHELL_INT_H

#include "cct_diff.h"
#include "cct_query.h"

#include <signal.h>
#include <stdio.h>


/* Output modes, in the order of the table cct_modes (format.c). */
enum { CCT_MODE_TREE = 0, CCT_MODE_TABLE, CCT_MODE_CSV, CCT_MODE_JSON, CCT_MODE_FOLDED, CCT_MODE_COUNT };

/* Command handler results (as SQLite's do_meta_command). */
enum { CCT_CMD_OK = 0, CCT_CMD_ERROR = 1, CCT_CMD_QUIT = 2 };

/* What the last command that showed a view showed (issue 24): the spec it
 * computed and the value it printed, rows with their handles.  '@N' (through
 * cct_query_remember), 'export', 'diff' and '@N' completion use this value;
 * an export computes again from the spec only when it needs what the value
 * lacks (metrics, a picture's other half).  The spec owns what it points to,
 * so it describes the view shown whatever the session's settings become. */
typedef struct cct_shown {
  int view;             /* CCT_VIEW_* (CCT_VIEW_STATS for stats), CCT_VIEW_NONE before any */
  cct_view_spec spec;   /* as computed: metric, file, columns, center, filters and window
                           point to the copies below */
  char *metric, *file;  /* spec's (owned) */
  char **columns;       /* spec's (owned) */
  size_t ncolumns;
  cct_center *center;   /* spec's (shared with the session: cct_center_share) */
  cct_filter *filters;  /* spec's (owned, items too) */
  cct_window window;    /* spec's, when it has one */
  cct_view *v;          /* the rows shown, with their handles (owned), NULL for stats */
  cct_view *from;       /* 'source @N': the view @N named (owned; spec.last) */
  cct_stats *s;         /* stats shown (owned) */
  size_t bins;          /* stats: histogram bins */
  int order;            /* stats: CCT_STATS_BY_* */
  cct_diff *d;          /* the diff shown after the view above (owned), NULL if none */
  int diff_run, diff_flags; /* its other run and CCT_DIFF_* flags */
  size_t timeline;      /* 'timeline N' shown after the view above: N + 1 (0: none; export writes it) */
  char *timeline_key;   /* its center and window (owned), for export to see they are still the session's */
} cct_shown;

/* The state of one shell session. */
typedef struct cct_shell {
  cct_query *q;              /* open archive session, NULL before 'open' */
  char *path;                /* path of the open archive (owned), NULL if none */
  int mode;                  /* CCT_MODE_* */
  int color;                 /* 1: ANSI escapes (bold center rows) on out */
  int width;                 /* 'width N': cut names to N columns (0: the terminal's, nothing cut off one) */
  char **columns;            /* 'columns': metrics shown besides the display metric (owned) */
  size_t ncolumns;
  int pager;                 /* 1: long output on a terminal goes through $PAGER ('pager on') */
  int paged;                 /* 1: out is the pager of a terminal (widths are the terminal's) */
  int timer;                 /* 1: 'timer on': each command's elapsed and CPU time after it */
  int keep_going;            /* 1: a script runs on after a failing command (--keep-going) */
  int interactive;           /* 1: input from a terminal (errors do not end the session) */
  FILE *out;                 /* where views go (stdout) */
  FILE *err;                 /* where errors go (stderr) */
  int failed;                /* 1 once a command has failed */
  cct_shown shown;           /* the last view shown */
} cct_shell;

/* Set from a SIGINT handler (main.c); commands and printers stop early when set.
 * Cleared by the input loop before each command. */
extern volatile sig_atomic_t cct_shell_interrupted;

/* ---- Splitter (shell_split.c) ---- */

/* The words of one command. */
typedef struct cct_words {
  int argc;       /* number of words */
  char **argv;    /* words with quotes removed, argv[argc] == NULL (owned) */
  size_t *offset; /* byte offset in the command text where each word starts (owned) */
  const char *text; /* the command text (not owned) */
  size_t len;     /* length of text */
} cct_words;

/* Finds the next command in text[*pos..len).  Commands end at ';' or a newline
 * outside single or double quotes (inside quotes both are ordinary characters;
 * a quote is closed by the same character; no backslash escapes, as in SQL).
 * Empty commands and comments (a command whose first non-blank character is
 * '#', up to the end of the line) are skipped.  On return *start.. *end is the
 * command with surrounding blanks trimmed and *pos is past its terminator.
 * *open_quote (if not NULL) is set to the quote character when the command
 * runs to the end of text inside a quote, else 0.
 * Returns 1 when a command was found, 0 when text has no more commands. */
int cct_shell_split(const char *text, size_t len, size_t *pos, size_t *start, size_t *end, char *open_quote);

/* Where input read so far stands for cct_shell_split: between commands, in a
 * comment, or in a command (inside the quote 'quote' when not 0).  Start
 * from {0}. */
typedef struct cct_split_state {
  int in_cmd, in_comment;
  char quote;
} cct_split_state;

/* Feeds text[0..len), the input that follows what st has seen, to st.
 * Returns 1 when all the input so far ends inside a quote (the command
 * continues on the next line), as cct_shell_split would report for it: input
 * read line by line is scanned once, not again at every line. */
int cct_shell_scan(cct_split_state *st, const char *text, size_t len);

/* Splits the command text[0..len) into blank-separated words; a quoted part
 * ('...' or "...") may hold blanks and the quotes are removed.  w is
 * overwritten (its previous contents are not freed).
 * Returns 0, -1 on an unterminated quote (w then holds the words up to the end,
 * the last one unterminated), or -2 when out of memory (w empty). */
int cct_shell_words(const char *text, size_t len, cct_words *w);

/* Frees the contents of w and empties it.  An empty w is a no-op. */
void cct_words_release(cct_words *w);

/* ---- Files the user names (shell_file.c) ---- */

/* Checks that path may be written by cct_file_replace: absent, or a regular
 * file this process may write (a symbolic link, a directory, a device, a
 * read-only file are refused).  Returns 0, or -1
 * with the message ("cannot write 'PATH': ...") in msg[0..n). */
int cct_file_check(const char *path, char *msg, size_t n);

/* Writes path with fill(f, arg), never leaving it partial or destroyed: fill
 * writes to a temporary file beside path ('.NAME.cctq-XXXXXX', the mode of the
 * file it replaces, else 0666 less the umask), which is flushed to disk and
 * renamed over path only when fill returned 0 and every write succeeded;
 * otherwise the temporary is removed and path is as it was.  Refuses what
 * cct_file_check refuses, before writing.  Returns 0; 1 when fill returned
 * nonzero (it reported its own error; msg empty); -1 with the message in msg. */
int cct_file_replace(const char *path, int (*fill)(FILE *f, void *arg), void *arg, char *msg, size_t n);

/* ---- Commands (shell.c) ---- */

/* The spec of view (CCT_VIEW_*) with the session's settings and the shell's
 * 'columns'; only_display unless mode is csv or json (the modes that carry the
 * run's other metrics).  Points into p and its session: valid until they change.
 * The shell's views and the TUI's panes are computed from it. */
void cct_shell_spec(cct_shell *p, int view, int mode, cct_view_spec *spec);

/* Initializes p for output on out/err (mode tree, width from the terminal or
 * $COLUMNS).  Returns nothing; p owns no resources yet. */
void cct_shell_init(cct_shell *p, FILE *out, FILE *err);

/* Closes the archive and frees everything p owns; p can be initialized again. */
void cct_shell_release(cct_shell *p);

/* Opens the archive at path, replacing the open one only on success.
 * Returns CCT_OK, or the library's code with the message in err. */
int cct_shell_open(cct_shell *p, const char *path, cct_err *err);

/* Runs every command of text[0..len) (split by cct_shell_split), printing
 * results and errors.  A failing command sets p->failed; the rest is skipped
 * unless p->interactive or p->keep_going (a script stops at its first error,
 * as sqlite3 -bail).  Returns CCT_CMD_OK, CCT_CMD_ERROR when a command failed,
 * or CCT_CMD_QUIT when 'quit' was run. */
int cct_shell_exec(cct_shell *p, const char *text, size_t len);

/* Runs one command given as words.  Returns CCT_CMD_OK, _ERROR or _QUIT. */
int cct_shell_command(cct_shell *p, cct_words *w);

/* Reports an error as 'cctq: error: ...' on p->err.  Returns CCT_CMD_ERROR. */
int cct_shell_error(cct_shell *p, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Finds a command by name or unambiguous prefix.  Returns its index in the
 * command table, -1 when unknown, -2 when ambiguous. */
int cct_shell_find_command(const char *name);

/* Name of the i-th command of the table, NULL past the end. */
const char *cct_shell_command_name(int i);

/* Writes the 'help' text (all commands, or the one named cmd) to out.
 * Returns 0, or -1 when cmd names no command. */
int cct_shell_help(FILE *out, const char *cmd);

/* What to complete in line[0..point): kinds 'c' command names, 'f' function
 * names, 'F' file paths of the run, 'm' metric names, 'M' output modes (cct_modes), '@' handles of the last
 * view, 'w' a fixed word list (*words set, NULL-terminated), 'o' file names of
 * the file system, 0 nothing.  *word_start is set to where the word being
 * completed starts (after an opening quote, if any; *quote set to it or 0).
 * Returns the kind. */
int cct_shell_complete_kind(const char *line, size_t point, size_t *word_start, char *quote,
                            const char *const **words);

/* Calls fn(arg, name) for every candidate of kind (see cct_shell_complete_kind;
 * not 'o') starting with prefix, until fn returns non-zero.  words is the list
 * for kind 'w'.  Returns 0, or -1 when the library failed. */
int cct_shell_candidates(cct_shell *p, int kind, const char *const *words, const char *prefix,
                         int (*fn)(void *arg, const char *name), void *arg);

/* ---- Output (shell_output.c: results of the commands; format.c: formatters) ---- */

/* Prints a view in p->mode.  Returns 0, or -1 when interrupted or out of memory. */
int cct_out_view(cct_shell *p, const cct_view *v);

/* Prints v to f in mode (CCT_MODE_*; no color, nothing shortened), or, when
 * f is NULL, as cct_out_view does.  Returns as cct_out_view. */
int cct_out_view_to(cct_shell *p, const cct_view *v, FILE *f, int mode);

/* Prints stats, computed from spec (its run, center and filters name them),
 * to f in mode, or, when f is NULL, to p->out in p->mode; the profiles listed
 * in order CCT_STATS_BY_* (in tree and table, by value: the top 5; by rank or
 * thread: all of them).  Returns 0, or -1 when interrupted or out of memory. */
int cct_out_stats(cct_shell *p, const cct_stats *s, const cct_view_spec *spec, FILE *f, int mode, int order);

/* Prints a diff (cct_view_diff) to f in mode, or, when f is NULL, to p->out
 * in p->mode.  Tree and
 * table show the display metric (both runs, % of each run's own total, the
 * change signed, red / green on a terminal), csv and json every metric,
 * folded 'a;b;c base other' lines (differential flame graphs).
 * Returns 0, or -1 when interrupted or out of memory. */
int cct_out_diff(cct_shell *p, const cct_diff *d, FILE *f, int mode);

/* Prints the rows of a prepared statement in p->mode (tree mode prints a
 * table); view names the JSON object ("sql", "runs", "metrics").  A listing
 * (any view but "sql") leaves out columns empty in every row and prints its
 * 'note' column below the grid in tree and table (csv and json keep it).  The column
 * named value_col (NULL: none) holds metric values, printed by the views'
 * number rule in tree and table modes.  Steps st to the end.  Returns
 * SQLITE_DONE, or the SQLite error code of the step. */
int cct_out_stmt(cct_shell *p, sqlite3_stmt *st, const char *view, const char *value_col);

/* Writes s as a JSON string (quotes included) to f; NULL writes null. */
void cct_out_json_string(FILE *f, const char *s);

/* Writes s as a CSV field (quoted when it holds ',', '"', CR or LF) to f. */
void cct_out_csv_field(FILE *f, const char *s);

/* Writes a double as the shortest text that reads back the same ('null'
 * for NaN or infinity) to f. */
void cct_out_number(FILE *f, double d);

/* Writes at most width display columns of s to f, cutting the middle out
 * with '...' when s is wider (the module of a 'name [module]' is cut
 * instead, when the name fits); pads with blanks to width when pad is set.
 * s is escaped for the terminal first (cct_escape.h), so a cut never leaves
 * an escape sequence open.  Widths count UTF-8 code points.  Returns the
 * columns written. */
int cct_out_fit(FILE *f, const char *s, int width, int pad);

/* Display width of s in columns, as cct_out_fit prints it. */
int cct_out_width(const char *s);

/* What tells homonyms apart in a label (cct_out_dups' bits). */
enum { CCT_DUP_FILE = 1, CCT_DUP_MODULE = 2 };

/* The label of a view row as tree and table print it: name, ' @ callsite',
 * ' [inlined]', with dup's bits set where it is the definition's
 * ' (file:line)' (CCT_DUP_FILE) and the module (CCT_DUP_MODULE, or when the
 * file is unknown: ' (file.c:3, libc.so)', ' (libmpich.so)'), then suffix
 * (NULL: none); the top row of a center of several items is titled by
 * members (cct_out_members) instead of its name '<multiple contexts>'
 * (members NULL: the name).  Returns a malloc'ed string, or NULL when out of
 * memory. */
char *cct_out_label(const cct_row *r, int dup, const char *suffix, const char *members);

/* The title of a center of n items (as typed) for tree, table and the TUI:
 * NULL for fewer than 2 items, else 'a + b', 'a + b + c', 'a + b (+N)' from
 * 4 items on (json and csv keep SPEC's '<multiple contexts>' as the name).
 * Returns a malloc'ed string (NULL also when out of memory). */
char *cct_out_members(const char *const *items, size_t n);

/* Marks the function rows of v whose name another function row of v has
 * with another identity (SPEC section 5: file, line, module): dup[i] gets
 * CCT_DUP_FILE when their definitions' places differ, CCT_DUP_MODULE when
 * only their modules do (dup holds v->nrows bytes, others untouched).
 * Returns 0, or -1 when out of memory. */
int cct_out_dups(const cct_view *v, unsigned char *dup);

/* Prints the center's items and occurrence counts in p->mode.  Returns 0, or -1. */
int cct_out_center(cct_shell *p);

/* Prints a view named view without rows, because of message (e.g. bottomup
 * without a center): tree and table print the message alone, json has it as
 * "note", csv prints the header.  Returns 0, or -1. */
int cct_out_empty(cct_shell *p, const char *view, const char *message);

/* ---- Results (format.c) ---- */

/* Cell types and column roles of a cct_result. */
enum { CCT_T_TEXT = 0, CCT_T_INT, CCT_T_REAL, CCT_T_BOOL };
enum {
  CCT_ROLE_PLAIN = 0, /* shown as it is */
  CCT_ROLE_HANDLE,    /* a row handle: '[N]' in tree mode */
  CCT_ROLE_DEPTH,     /* the row's depth (pre-order rows): tree mode draws it, folded paths use it */
  CCT_ROLE_NAME,      /* the name column: the only one ever cut, after the tree connectors */
  CCT_ROLE_VALUE,     /* a metric value: significant digits, and '% of base' when base > 0 */
  CCT_ROLE_CHANGE,    /* a signed change: '+'/'-', red/green on a terminal */
  CCT_ROLE_RELATIVE,  /* a signed fraction, shown as a percentage: 0.25 is '+25.0%' */
  CCT_ROLE_MARK       /* a boolean shown as the column's title ('*', '>') when true */
};
/* Where a column shows (bits). */
enum { CCT_IN_TREE = 1, CCT_IN_TABLE = 2, CCT_IN_DATA = 4, CCT_IN_TEXT = 3, CCT_IN_ALL = 7,
       CCT_IN_CSV = 8 /* csv only (a value json gives once in its head) */ };

/* One column.  Strings belong to the result. */
typedef struct cct_col {
  const char *key;   /* csv header and json key; with a group, csv 'GROUP KEY' and json values.GROUP.KEY */
  const char *title; /* tree/table header (NULL: key) */
  const char *span;  /* tree/table header line above, shared by neighbours with the same span, or NULL */
  const char *group; /* json "values" group (a metric name), or NULL */
  int type, role, in;
  int metric;        /* metric index for 'columns' (0: the display metric, always shown), -1 none */
  double base;       /* value columns: % of base shown in tree/table when > 0 */
  int order;         /* tree/table show columns by ascending order (stable), csv/json by index */
} cct_col;

typedef struct cct_cell {
  int null;          /* 1: no value (csv empty, json null, text blank) */
  int t;             /* CCT_T_* of this cell (a 'sql' column may mix types) */
  long long i;       /* CCT_T_INT, CCT_T_BOOL */
  double d;          /* CCT_T_REAL */
  const char *s;     /* CCT_T_TEXT */
} cct_cell;

/* A result: rows of cells, columns, metadata.  Built by cct_result_add_* and
 * freed by cct_result_release. */
typedef struct cct_result {
  const char *view;    /* json "view" */
  /* Text built piece by piece (owned; made by cct_result_init, empty until appended to; an
   * allocation failure in any of them fails the output, as r->failed does): */
  sqlite3_str *json_head; /* json members after "view", each ', "key": value' */
  sqlite3_str *json_tail; /* json members after the rows */
  const char *rows_key; /* json key of the rows ("rows") */
  sqlite3_str *title;  /* tree/table: lines printed above the grid (escaped, with their line ends) */
  sqlite3_str *tail;   /* tree/table: lines printed below the grid */
  const char *note;    /* tree/table: a 'note: ...' line at the end, or NULL */
  size_t text_rows;    /* tree/table: print at most this many rows (0: all) */
  const char *empty_text; /* tree/table: the line printed when there are no rows ('(no rows)'), or NULL */
  int indent;          /* tree/table: blanks before each line of the grid */
  int hide_empty;      /* tree/table: leave out columns without any value */
  size_t nshown;       /* tree/table: the value columns of metrics 0 .. nshown - 1 show (the display
                          metric and the view's columns: cct_view.nshown); 0 counts as 1 */
  int no_header;       /* tree/table: no header lines */
  cct_col *cols;
  size_t ncols, capcols;
  cct_cell *cells;     /* nrows * ncols */
  unsigned char *bold; /* per row: 1 for a center row */
  size_t nrows, caprows;
  int depth_col, name_col; /* the depth column and the data name column (csv/json paths), -1 */
  int fold_name_col;   /* folded: the column naming frames (labels that tell homonyms apart), -1: name_col */
  int path_col;        /* csv/json: the path of names goes before this column, -1 for no path */
  int fold_value[2], fold_sub[2], nfold; /* folded: value columns, and the column whose children's
                                            values are subtracted from a row's (-1 none) */
  char **owned;        /* strings the result owns */
  size_t nowned, capowned;
  int failed;          /* 1 after an allocation failed */
} cct_result;

/* One output mode: all that 'mode', its help, completion and 'export' know of
 * it (adding a mode is a CCT_MODE_* name, a row of cct_modes and its formatter). */
struct cct_fmt;
typedef struct cct_mode_def {
  const char *name;  /* 'mode NAME' */
  const char *ext;   /* 'export FILE.EXT' writes this mode, NULL: none */
  const char *about; /* one line of 'help mode' */
  int (*print)(const struct cct_fmt *f, const cct_result *r); /* the formatter (format.c) */
} cct_mode_def;
extern const cct_mode_def cct_modes[CCT_MODE_COUNT];

/* The mode named word (exact or unique prefix).  Returns its CCT_MODE_*, -1
 * when unknown, -2 when ambiguous. */
int cct_mode_find(const char *word);

/* The mode an export to FILE.ext writes (ext without the dot, any case), -1 none. */
int cct_mode_of_ext(const char *ext);

/* Prints r in mode to f (NULL: the shell's output; color and width limit only
 * there).  Returns 0, or -1 when interrupted or out of memory. */
int cct_out_result(cct_shell *p, const cct_result *r, FILE *f, int mode);

/* Building a result (format.c).  An allocation failure sets r->failed, which
 * later calls and cct_out_result honour: builders need not check each call. */

/* Empties r for a result whose json "view" is view (a static string). */
void cct_result_init(cct_result *r, const char *view);

/* Frees what r owns. */
void cct_result_release(cct_result *r);

/* Gives s (malloc'ed, may be NULL) to r.  Returns s, or NULL (s freed) when out of memory. */
const char *cct_result_keep(cct_result *r, char *s);

/* A string r owns, printed by SQLite's printf from fmt.  Returns it, or NULL
 * when out of memory (r then fails). */
const char *cct_result_keepf(cct_result *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Adds a column (before any row): key (static or kept), CCT_T_*, CCT_ROLE_*,
 * CCT_IN_* bits; order = its index, metric -1.  Returns its index. */
int cct_result_col(cct_result *r, const char *key, int type, int role, int in);

/* Column i of r to adjust (a dummy after a failed allocation). */
cct_col *cct_result_colp(cct_result *r, int i);

/* Appends a row of null cells.  Returns them, or NULL when out of memory. */
/* Makes room for rows more rows (after the last column is added): one allocation
 * instead of a doubling series for a result whose size is known. */
void cct_result_reserve(cct_result *r, size_t rows);
cct_cell *cct_result_row(cct_result *r);

/* Set a cell to a value (text: not copied; NULL makes it null). */
void cct_cell_int(cct_cell *c, long long v);
void cct_cell_bool(cct_cell *c, int v);
void cct_cell_real(cct_cell *c, double v);
void cct_cell_text(cct_cell *c, const char *s);

/* The metadata every result names: json ', "run": N' (run > 0), ', "center":
 * [...]' (center not NULL, or gran >= 0), ', "granularity": "..."' (gran >= 0,
 * a CCT_GRAN_*), appended to r->json_head. */
void cct_result_context(cct_result *r, int run, const char *const *center, size_t n, int gran);

/* Names the filters a result went through: tree/table a 'filters: a; b' line
 * in r->title, json '"filters": [...]' (nothing when n is 0). */
void cct_result_filters(cct_result *r, const char *const *filters, size_t n);

/* JSON pieces appended to a builder (sqlite3_str: the one string builder of
 * cctq; an allocation failure stays in s, sqlite3_str_errcode). */
void cct_json_str(sqlite3_str *s, const char *key, const char *v); /* ', "key": "v"' (NULL: null) */
void cct_json_raw(sqlite3_str *s, const char *key, const char *raw); /* ', "key": raw' */
void cct_json_number(sqlite3_str *s, const char *key, double d); /* ', "key": d' (shortest round trip) */
void cct_json_window(sqlite3_str *s, const char *key, const cct_window *w); /* ', "key": {"from": a, "to": b}' */
void cct_json_strings(sqlite3_str *s, const char *const *v, size_t n); /* '["a", "b"]' */
/* Appends '{...}' to s: the members m holds (each ', "key": value', as the helpers above
 * write them) without the first ', '; frees m.  Returns 0, or -1 when m ran out of memory. */
int cct_json_object(sqlite3_str *s, sqlite3_str *m);

/* Writes s for the terminal (control characters visible, bad UTF-8 as U+FFFD). */
void cct_out_text(FILE *f, const char *s);

/* A metric value for people: '0', integers in full when integral, else
 * significant digits ('12.346', '0.0490', '4.90e-05', '1.235e+07'), '-' for
 * NaN.  Writes buf and returns it. */
const char *cct_out_value(char *buf, size_t n, double d, int integral);

/* The width limit of p's own output: the 'width' setting, else on a terminal
 * $COLUMNS or the terminal's width; 0 (nothing is cut) off a terminal. */
int cct_out_limit(cct_shell *p);

/* ---- Full-screen interface (tui.c) ---- */

/* Runs the full-screen interface on p's session until 'q' (the terminal is
 * restored; the session keeps the center, metric and granularity chosen
 * there).  Needs an open archive and a terminal on stdin and stdout.
 * Returns CCT_CMD_OK, or CCT_CMD_ERROR (message printed) when it cannot start. */
int cct_tui_run(cct_shell *p);

/* ---- Traces (shell_trace.c): the 'window' and 'timeline' commands ---- */
int cct_shell_cmd_window(cct_shell *p, cct_words *w);
int cct_shell_cmd_timeline(cct_shell *p, cct_words *w);
/* Writes the timeline shown (p->shown.timeline) to f: mode CCT_MODE_TREE (text)
 * or CCT_MODE_JSON as the command prints it, or mode -1 and ext "svg" / "html"
 * the picture; for the session's center and window now.  Returns a CCT_CMD_* code. */
int cct_shell_timeline_export(cct_shell *p, FILE *f, int mode, const char *ext);

#endif
