/* shell.c: the cctq shell's command table, dispatcher and commands.  One table
 * (commands[] below) drives dispatch, unambiguous-prefix matching, 'help',
 * 'help CMD' and completion.  Every command is a handler
 *   int cmd_x(cct_shell *p, cct_words *w)
 * returning CCT_CMD_OK, CCT_CMD_ERROR (message already printed) or CCT_CMD_QUIT.
 * Commands talk to the archive only through the public cct_query API, plus the
 * library calls of cct_query.h (no SQL of its own); output goes through shell_output.c.
 * No readline here: main.c owns the terminal. */
#include "shell_int.h"

#include "cct_escape.h"
#include "cct_util.h"


#if defined(__has_include)
#if __has_include("cct_picture.h")
#include "cct_picture.h"
#define CCT_HAVE_PICTURE 1
#endif
#endif
#ifndef CCT_HAVE_PICTURE
#define CCT_HAVE_PICTURE 0 /* the pictures (query/picture.c) are not in this build */
#endif

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

enum { CMD_NEEDS_DB = 1, CMD_HIDDEN = 2, CMD_LIST_MODES = 4, CMD_LIST_EXPORTS = 8 }; /* LIST: help lists cct_modes */

/* One command of the shell. */
typedef struct cct_cmd {
  const char *name;                      /* full name */
  int (*fn)(cct_shell *p, cct_words *w); /* handler */
  int flags;                             /* CMD_* */
  const char *usage;                     /* synopsis, e.g. 'topdown [DEPTH]' */
  const char *summary;                   /* one line for 'help' */
  const char *details;                   /* further lines for 'help CMD', or NULL */
} cct_cmd;

static int cmd_open(cct_shell *p, cct_words *w);
static int cmd_runs(cct_shell *p, cct_words *w);
static int cmd_run(cct_shell *p, cct_words *w);
static int cmd_center(cct_shell *p, cct_words *w);
static int cmd_topdown(cct_shell *p, cct_words *w);
static int cmd_bottomup(cct_shell *p, cct_words *w);
static int cmd_flat(cct_shell *p, cct_words *w);
static int cmd_source(cct_shell *p, cct_words *w);
static int cmd_stats(cct_shell *p, cct_words *w);
static int cmd_metric(cct_shell *p, cct_words *w);
static int cmd_metrics(cct_shell *p, cct_words *w);
static int cmd_granularity(cct_shell *p, cct_words *w);
static int cmd_threshold(cct_shell *p, cct_words *w);
static int cmd_hotpath(cct_shell *p, cct_words *w);
static int cmd_filter(cct_shell *p, cct_words *w);
static int cmd_percent(cct_shell *p, cct_words *w);
static int cmd_mode(cct_shell *p, cct_words *w);
static int cmd_width(cct_shell *p, cct_words *w);
static int cmd_columns(cct_shell *p, cct_words *w);
static int cmd_pager(cct_shell *p, cct_words *w);
static int cmd_timer(cct_shell *p, cct_words *w);
static int cmd_sql(cct_shell *p, cct_words *w);
static int cmd_diff(cct_shell *p, cct_words *w);
static int cmd_export(cct_shell *p, cct_words *w);
static int cmd_help(cct_shell *p, cct_words *w);
static int cmd_quit(cct_shell *p, cct_words *w);
static int cmd_tui(cct_shell *p, cct_words *w);

static const cct_cmd commands[] = {
    {"open", cmd_open, 0, "open FILE", "open another cctq archive (its last run)", NULL},
    {"runs", cmd_runs, CMD_NEEDS_DB, "runs", "list the runs of the archive; the current one is marked current = 1", NULL},
    {"run", cmd_run, CMD_NEEDS_DB, "run RUN", "switch to run RUN (number or title; the center and metric are kept by name)", NULL},
    {"center", cmd_center, CMD_NEEDS_DB, "center [ITEM | + ITEM | - ITEM | reset]",
     "set, extend, shrink, list or reset the center",
     "  center ITEM      make ITEM the center        center + ITEM   add ITEM\n"
     "  center - ITEM    remove ITEM                 center reset    no center (program root)\n"
     "  center           list the items with their occurrence counts\n"
     "ITEM: NAME, 'NAME with spaces', glob PATTERN, re REGEX, FILE:LINE (or line\n"
     "      FILE:LINE), loop FILE:LINE (or loop at FILE:LINE), file PATH, module PATH,\n"
     "      class NAME, namespace NAME, #ID (one context), @N (row N of the last view),\n"
     "      loop in NAME / line in NAME (those without a source line in NAME: code of a\n"
     "      binary without a line map, which rows label so), loop at FILE:LINE (+0xOFF)\n"
     "      / loop at [lib.so]+0xOFF (one loop by its address, where the database has\n"
     "      loop addresses: HPCToolkit 2023.08 and later, classic 2.2); a loop or line\n"
     "      item is named as its rows read ('loop at f.c:12', 'f.c:12'); a line without\n"
     "      a line context is refused with what is there (a loop, code inlined there)\n"
     "A C++ NAME may stop before its '(' or '<' and drop leading 'ns::' parts\n"
     "('center CommSend', 'center Pair::eval<1,1,1>'): one function centers, several\n"
     "are listed.  The top row of several items is titled by them in tree, table and\n"
     "the TUI ('a + b', 'a + b (+2)'); its name in csv and json is '<multiple contexts>'."},
    {"filter", cmd_filter, CMD_NEEDS_DB, "filter [keep|drop|hide|prune ITEM | recursion [ITEM] | - N | reset]",
     "transform the tree every view shows (in order; the center is resolved after them)",
     "  filter keep ITEM    only the cost on paths through ITEM (ancestors keep the sum below)\n"
     "  filter drop ITEM    ITEM's subtrees removed, with their cost\n"
     "  filter hide ITEM    ITEM's frames removed; children move up, own cost goes to the caller\n"
     "  filter prune ITEM   ITEM's callees removed; their cost becomes ITEM's own\n"
     "  filter recursion [ITEM]  a function's frames inside a frame of the same function merged\n"
     "                      into the outer one (every function, or ITEM's)\n"
     "  filter              list the filters        filter - N   remove filter N\n"
     "  filter reset        remove every filter\n"
     "ITEM as for 'center'.  The first use of a filter list copies the run, which takes about\n"
     "as long as ingesting it (1.5 s for 100,000 contexts, 18 s for a million); views on the\n"
     "copy then cost what they cost without filters, and the last 8 lists are kept."},
    {"topdown", cmd_topdown, CMD_NEEDS_DB, "topdown [DEPTH] [by KEY]",
     "callees of the center (or of the program root), DEPTH levels (default 3) below its hot path",
     "The hot path, as hpcviewer's hot-path button finds it, opens first: from the top\n"
     "row, the heaviest child while it holds at least half of its parent's inclusive\n"
     "value.  Its rows use no level of DEPTH, so a chain of 100% rows ('<program root>',\n"
     "main, MAIN__) does not use up the view: 'topdown 3' is the hot path and 3 levels\n"
     "below each of its rows, and the rows of level <= 3 of 'topdown 5' (a row's level\n"
     "is its depth less the hot rows above it; csv and json mark the rows \"hot\").\n"
     "'hotpath off' counts every level; 'hotpath 80%' stops the path sooner.  'topdown\n"
     "0' is the top row alone.  Siblings sort by inclusive value (default), 'by\n"
     "exclusive' or 'by name'.  A center whose code is mostly inlined (its [inlined]\n"
     "rows hold more exclusive cost than it does) gets a note, and 'inlined_exclusive'\n"
     "on its row in csv/json."},
    {"bottomup", cmd_bottomup, CMD_NEEDS_DB, "bottomup [DEPTH] [by KEY]",
     "callers of the center, DEPTH levels (default 3)",
     "The 'contexts' column counts the caller paths a row merges: the center's outermost\n"
     "occurrences whose chain of callers passes through it (the top row: all of them; the\n"
     "first level adds up to it).  Siblings sort by inclusive value (default), 'by\n"
     "exclusive', 'by occurrences' (that count) or 'by name'."},
    {"flat", cmd_flat, CMD_NEEDS_DB, "flat [functions|loops|lines|files|modules|tree] [N] [by KEY]",
     "totals per static scope, the N first by KEY (default 20, 0 = all); center rows marked *",
     "KEY: inclusive (default), exclusive, occurrences (the 'contexts' column: how many\n"
     "calling contexts a function, loop or line has, as 'center' counts them), name.\n"
     "flat tree N: the N heaviest rows of the module > file > function > loop > line\n"
     "tree, each with its parent (N times the heaviest row hanging from those shown);\n"
     "siblings in the order of KEY.  Rows of zero cost are left out (help threshold)."},
    {"window", cct_shell_cmd_window, CMD_NEEDS_DB, "window [A [B] | reset]",
     "show or set the time window of the metric 'trace (sec)' (runs with traces)",
     "  window A B     every view, center and stats count only the traced time in [A, B):\n"
     "                 seconds since the run's first record (1.5, 1.5s, 250ms) or percents\n"
     "                 of its span (10%); B omitted: the end of the run; records cut at the\n"
     "                 edges count for their part, so adjacent windows add up to their union\n"
     "  window reset   the whole run            window   show the window and the span\n"
     "Views name the window on their 'filters:' line.  Other metrics are the whole run's."},
    {"timeline", cct_shell_cmd_timeline, CMD_NEEDS_DB, "timeline [N]",
     "per traced profile (N lanes, default 16, 0 = all; the most on the center first), when the center "
     "was on the sampled stack, over the window",
     "Text at the terminal's width (' .:=#': on it for 0, <25, <50, <75, >=75% of a column's time);\n"
     "'mode json' gives each lane's shares of 100 columns.  'export FILE' then writes it: .txt and\n"
     ".json as printed, .svg a picture over the whole run with the window shaded, .html the same\n"
     "picture giving the command of each gesture to paste here: a drag over its time axis\n"
     "'window A B', a click on a lane the call stack sampled there and 'center #ID' of a frame."},
    {"source", cmd_source, CMD_NEEDS_DB, "source [FILE | @N]",
     "source text with per-line metrics; '>' marks the center's lines (default: the center's file)",
     "  source           the center's file (a function's definition, else its call site;\n"
     "                   a loop's or line's own)\n"
     "  source FILE      a file of the run (a suffix of its path)\n"
     "  source @N        the file of row N of the last view\n"
     "Each line: inclusive and exclusive over the whole program; with a center, 'center'\n"
     "is the line's cost inside the center's outermost occurrences.  '>' marks the\n"
     "center's own lines and the call sites leading into it; a call site lies outside\n"
     "the center, so its 'center' is '-' (csv empty, json null): what it calls is in its\n"
     "'inclusive', as hpcviewer shows call-site lines."},
    {"stats", cmd_stats, CMD_NEEDS_DB, "stats [by rank|by rank,thread|by thread] [BINS]",
     "distribution of the center's inclusive value over profiles, per kind (CPU threads, GPU streams); "
     "'by rank' over ranks (each the sum of its threads), 'by rank,thread' / 'by thread' every profile in that order",
     "  stats                  figures over profiles, the top 5, a histogram (BINS,\n"
     "                         default 10, or one per profile when fewer)\n"
     "  stats by rank          each rank's profiles (its threads) added up: figures over ranks,\n"
     "                         every rank in order (an MPI+OpenMP run's imbalance between ranks)\n"
     "  stats by rank,thread   every profile, by rank then thread\n"
     "  stats by thread        every profile, by thread then rank\n"
     "A kind of profiles all zero says 'all zero', one profile its 'value', profiles all alike\n"
     "'each': none of them gets figures of spread or a histogram.  'export F.svg' draws it."},
    {"metric", cmd_metric, CMD_NEEDS_DB, "metric [NAME | define [NAME = EXPR]]",
     "show or set the display metric (case-insensitive, unique prefix accepted), or define a derived metric",
     "NAME is a stored metric, one of hpcprof's statistics as hpcviewer names them\n"
     "('CPUTIME (usec):Mean', ':StdDev', ':CfVar', ':Min', ':Max'; 'metrics' lists\n"
     "which a run has), or a derived metric.  'metric define NAME = EXPR' defines one\n"
     "for the session (also 'cctq --define \"NAME = EXPR\"'): EXPR is metric names,\n"
     "numbers, + - * /, parentheses, min(A, B), max(A, B), e.g.\n"
     "  metric define ipc = instructions / cycles\n"
     "  metric define 'cpu s' = CPUTIME (usec) / 1e6\n"
     "A row's inclusive and exclusive are each computed from its operands' (a merged\n"
     "row's are their sums); a division by zero is an empty value.  'metric define'\n"
     "alone lists the definitions.  Statistic and derived metrics work as display\n"
     "metric and in 'columns add' in every mode; 'stats' needs a stored metric."},
    {"metrics", cmd_metrics, CMD_NEEDS_DB, "metrics",
     "list the metrics of the current run with their program totals, non-zero first",
     "The total is the root's value as hpcprof stored it, the base of every percentage.\n"
     "Where the top-level contexts add up to another figure (classic experiment.xml\n"
     "keeps 6 significant digits of each value), the 'note' column gives their sum."},
    {"granularity", cmd_granularity, CMD_NEEDS_DB, "granularity [function|line]",
     "show or set the row granularity of the views (default function)", NULL},
    {"threshold", cmd_threshold, CMD_NEEDS_DB, "threshold [P | P%]",
     "hide rows below P percent of the percent base (threshold 5 = 5%; 0: none; rows of zero cost never show)",
     "The base is the program total, or the center's inclusive value after\n"
     "'percent center'.  A row is hidden with its subtree; the top row never is.\n"
     "Whatever the threshold, topdown, bottomup and flat leave out the rows whose\n"
     "display metric and columns are all zero (with all below them) and say how many:\n"
     "'(N rows of zero cost left out ...)' below the rows, csv the column 'zero rows\n"
     "left out', json \"zero_rows\"; 'columns add' a metric to see the rows it has cost in."},
    {"hotpath", cmd_hotpath, CMD_NEEDS_DB, "hotpath [P | P% | off | on]",
     "show or set the hot path topdown opens first (default 50%: each child of at least half its parent)",
     "As hpcviewer's hot-path threshold: from the top row, topdown follows the heaviest\n"
     "child while it holds at least P percent of its parent's inclusive value, and those\n"
     "rows use no level of the depth.  'hotpath off' (or 0) counts every level, 'on' is 50%."},
    {"percent", cmd_percent, CMD_NEEDS_DB, "percent [program|center]",
     "show or set the base of percentages and of the threshold (default program)",
     "  program  shares of the program total (the root's inclusive value)\n"
     "  center   shares of the center's inclusive value (the top row of topdown and\n"
     "           bottomup; the program's when there is no center)"},
    {"width", cmd_width, 0, "width [N|auto]",
     "show or set the width names are cut to in tree and table output (auto: the terminal's)",
     "Only the name column is cut, never the tree connectors.  What goes first: the\n"
     "module ('[libgomp...]', then '[...]'), then parameter lists ('(...)'), template\n"
     "arguments ('<...>'), qualifiers from the left (namespaces, then the class), then\n"
     "the module altogether; a name still too wide is cut in its middle ('...').  Two\n"
     "names that differ keep what tells them apart ('eval<0, 0, 1>(...)' and\n"
     "'eval<1, 1, 1>(...)').  The TUI cuts names the same way.\n"
     "auto (the default) cuts to $COLUMNS or the terminal's width on a terminal and\n"
     "never off one (a pipe or a file gets every name whole).  width N cuts everywhere."},
    {"columns", cmd_columns, CMD_NEEDS_DB, "columns [add NAME | remove NAME | reset]",
     "show or choose the metrics tree and table show besides the display metric",
     "NAME is a metric name or a unique prefix (case-insensitive), any metric of the run.\n"
     "The choice is kept for the session.  Tree, table and folded views compute only the\n"
     "display metric and these; csv and json carry them, then the run's other 'sum'\n"
     "metrics with data, four metrics in all.  Statistics ('CPUTIME (usec):Mean') and\n"
     "derived metrics ('metric define') are columns too."},
    {"pager", cmd_pager, 0, "pager [on|off]",
     "show or set paging of output on a terminal through $PAGER (default on, less -FRX)", NULL},
    {"timer", cmd_timer, 0, "timer [on|off]", "show or set timing: after each command, its elapsed and CPU time",
     "After each command (failed ones too), a line on standard output as sqlite3's\n"
     "'.timer' prints: 'Run Time: real 0.012 user 0.010000 sys 0.001000' (seconds:\n"
     "wall clock, then the CPU time of cctq in user and system mode)."},
    {"mode", cmd_mode, CMD_LIST_MODES, "mode [MODE]", "show or set the output mode ('help mode' lists them)",
     "folded: topdown/bottomup lines carry the row's self value (inclusive minus its\n"
     "printed children's inclusive) so lines add up to the top row; flat lines carry\n"
     "exclusive values; other commands print as in table mode."},
    {"sql", cmd_sql, CMD_NEEDS_DB, "sql STATEMENT", "run one read-only SQL statement on the archive",
     "Views: runs, metrics, functions, contexts, context_values, flat (see the README).\n"
     "A ';' ends the command: quote it ('a;b') inside a string literal."},
    {"diff", cmd_diff, CMD_NEEDS_DB, "diff RUN|window A B [sort]",
     "the current view with the values of run RUN (number or title), or of window A B, beside the current ones",
     "The current view is the last topdown, bottomup or flat view shown, as it was\n"
     "shown: its center, granularity, metric, columns, threshold, sort, filters and\n"
     "window, whatever the settings are now (topdown 3 of the settings before any\n"
     "view).  Rows match by\n"
     "path of names (context ids may differ; classic and v4 runs compare; '<program\n"
     "root>' matches 'main thread'), a name with or without its ' [module]' (or with\n"
     "the module in another version: libmpi.so.12 = libmpi.so.12.1.1); same-name\n"
     "siblings by function identity (module, file, line), then call site, file, line.\n"
     "'change %' is the relative change of the inclusive value.\n"
     "Rows of one run only show as (added) = only in run RUN, (removed) = only in the\n"
     "current run.  change = run RUN - current run: '+' (red) is more cost, a\n"
     "regression; '-' (green) less.  Percentages are of each run's own program total.\n"
     "Metrics match by name or by name without the unit; time units are converted to\n"
     "the current run's ('CPUTIME (sec)' into usec).  A row is hidden by the threshold\n"
     "only when below it in both runs.  Siblings sort by the view's key (inclusive,\n"
     "exclusive, occurrences: the larger of the two runs' values; name); with 'sort',\n"
     "by the absolute change of the display metric's inclusive value (flat N keeps the\n"
     "N first).  Handles are the current run's ('@N' works).\n"
     "Modes: tree and table show the view's metric and columns; csv every metric (columns\n"
     "'M inclusive', 'M exclusive', 'M other inclusive', 'M other exclusive', 'M change',\n"
     "'M exclusive change'); folded 'a;b;c base other' lines (differential flame graphs:\n"
     "flamegraph.pl reads them); json one object:\n"
     "  {\"view\": \"diff\", \"of\": \"topdown\", \"depth\": 3, \"base_run\": 1, \"run\": 2,\n"
     "   \"base_title\": ..., \"title\": ..., \"center\": [...], \"granularity\": \"function\",\n"
     "   \"sort\": \"inclusive\"|\"exclusive\"|\"occurrences\"|\"name\"|\"change\", \"metrics\": [{\"name\", \"unit\", \"other_name\",\n"
     "   \"other_unit\", \"scale\", \"total\", \"other_total\"}], \"note\": ..., \"rows\": [\n"
     "   {\"handle\": 3|null, \"other_handle\": 5|null, \"depth\", \"status\": \"both\"|\"added\"|\n"
     "    \"removed\", \"path\", \"kind\", \"name\", \"inlined\", \"file\", \"line\", \"module\",\n"
     "    \"callsite\", \"center\", \"values\": {\"METRIC\": {\"inclusive\": a, \"exclusive\": b,\n"
     "    \"other_inclusive\": c, \"other_exclusive\": d, \"change\": c-a,\n"
     "    \"exclusive_change\": d-b}}}]}\n"
     "  (values of the run a row is absent from are null and count 0 in the change;\n"
     "  other values are in the current run's unit).\n"
     "'diff window A B' compares two windows of the current run (SPEC 5, Time windows):\n"
     "the view's window ('window'; the whole run without one) and [A, B), in seconds or\n"
     "percents as 'window' takes them, by the metric 'trace (sec)' (the other metrics are\n"
     "whole-run sums).  change = window A B - current window; json adds \"base_window\"\n"
     "and \"window\" ({\"from\": s, \"to\": s})."},
    {"export", cmd_export, CMD_NEEDS_DB | CMD_LIST_EXPORTS, "export FILE",
     "write the last view (or diff, or stats) to FILE in the format of its extension",
     "  .svg     a picture of the center: callees as a flame graph above, callers below\n"
     "           (after 'stats': the distribution over profiles; after 'timeline': the timeline)\n"
     "  .html    the same picture, interactive\n"
     "The view written is the one shown: settings changed since do not count (csv, json and\n"
     "pictures compute it again from its own metric, center, threshold, filters, ...).\n"
     "FILE is replaced only once complete; a symbolic link is refused."},
    {"tui", cmd_tui, CMD_NEEDS_DB, "tui",
     "full-screen panes (flat, tree, source) around the center; 'q' comes back here", NULL},
    {"help", cmd_help, 0, "help [COMMAND]", "list the commands, or describe one", NULL},
    {"quit", cmd_quit, 0, "quit", "leave the shell (also Ctrl-D)", NULL},
    {"exit", cmd_quit, CMD_HIDDEN, "exit", "leave the shell", NULL},
};
enum { NCOMMANDS = sizeof commands / sizeof commands[0] };

/* ---------------------------------------------------------------- helpers */

/* Reports a library error (its message names the word at fault). */
static int lib_error(cct_shell *p, const cct_err *err, int rc) {
  if (cct_shell_interrupted) return cct_shell_error(p, "interrupted");
  return cct_shell_error(p, "%s", err->msg[0] ? err->msg : cct_errstr(rc));
}

/* Reports wrong arguments with the command's synopsis. */
static int usage_error(cct_shell *p, const cct_cmd *c, const char *what, const char *word) {
  if (word) return cct_shell_error(p, "%s '%s' for '%s'; usage: %s", what, word, c->name, c->usage);
  return cct_shell_error(p, "%s for '%s'; usage: %s", what, c->name, c->usage);
}

static const cct_cmd *cmd_of(cct_words *w) { return &commands[cct_shell_find_command(w->argv[0])]; }

/* Parses a non-negative int.  Returns 0, or -1 when s is not one. */
static int parse_count(const char *s, int *out) {
  char *end = NULL;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (!*s || *end || errno || v < 0 || v > INT_MAX) return -1;
  *out = (int)v;
  return 0;
}

/* Finds name among words (exact or unique prefix).  Returns the index, -1
 * when unknown, -2 when ambiguous. */
static int find_word(const char *const *words, const char *name) {
  size_t n = strlen(name);
  int found = -1;
  if (!n) return -1;
  for (int i = 0; words[i]; i++) {
    if (!strcmp(words[i], name)) return i;
    if (!strncmp(words[i], name, n)) found = found == -1 ? i : -2;
  }
  return found;
}

/* ------------------------------------------------------ table and dispatch */

int cct_shell_find_command(const char *name) {
  size_t n = strlen(name);
  int found = -1;
  if (!n) return -1;
  for (int i = 0; i < NCOMMANDS; i++) {
    if (!strcmp(commands[i].name, name)) return i;
    if (!(commands[i].flags & CMD_HIDDEN) && !strncmp(commands[i].name, name, n)) found = found == -1 ? i : -2;
  }
  return found;
}

const char *cct_shell_command_name(int i) {
  while (i >= 0 && i < NCOMMANDS && (commands[i].flags & CMD_HIDDEN)) i++;
  return i >= 0 && i < NCOMMANDS ? commands[i].name : NULL;
}

int cct_shell_help(FILE *out, const char *cmd) {
  if (cmd) {
    int i = cct_shell_find_command(cmd);
    if (i < 0) return -1;
    const cct_cmd *c = &commands[i];
    fprintf(out, "usage: %s\n%s\n", c->usage, c->summary);
    for (int m = 0; m < CCT_MODE_COUNT; m++) { /* the one table of modes */
      if (c->flags & CMD_LIST_MODES) fprintf(out, "  %-7s %s\n", cct_modes[m].name, cct_modes[m].about);
      if ((c->flags & CMD_LIST_EXPORTS) && cct_modes[m].ext)
        fprintf(out, "  .%-7s as 'mode %s'%s\n", cct_modes[m].ext, cct_modes[m].name,
                m == CCT_MODE_TREE ? " (nothing shortened, no color)" : "");
    }
    if (c->details) fprintf(out, "%s\n", c->details);
    return 0;
  }
  fputs("Commands (separate them with ';' or newlines; unambiguous prefixes work: 'top 3'):\n", out);
  for (int i = 0; i < NCOMMANDS; i++) {
    if (commands[i].flags & CMD_HIDDEN) continue;
    int w = (int)strlen(commands[i].usage);
    if (w > 30) fprintf(out, "  %s\n  %-30s  %s\n", commands[i].usage, "", commands[i].summary);
    else fprintf(out, "  %-30s  %s\n", commands[i].usage, commands[i].summary);
  }
  fputs("Enter 'help COMMAND' for details.\n", out);
  return 0;
}

/* Names the closest command to a mistyped one, or NULL. */
static const char *close_command(const char *name) {
  const char *best = NULL;
  size_t bestd = 3;
  for (int i = 0; i < NCOMMANDS; i++) {
    if (commands[i].flags & CMD_HIDDEN) continue;
    size_t d = cct_levenshtein(name, commands[i].name, bestd);
    if (d < bestd) bestd = d, best = commands[i].name;
  }
  return best;
}

int cct_shell_command(cct_shell *p, cct_words *w) {
  if (w->argc == 0) return CCT_CMD_OK;
  int i = cct_shell_find_command(w->argv[0]);
  if (i == -2) {
    char list[512] = "";
    size_t n = strlen(w->argv[0]), len = 0;
    for (int j = 0; j < NCOMMANDS; j++)
      if (!(commands[j].flags & CMD_HIDDEN) && !strncmp(commands[j].name, w->argv[0], n) &&
          len + strlen(commands[j].name) + 3 < sizeof list)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "", commands[j].name);
    return cct_shell_error(p, "ambiguous command '%s': %s", w->argv[0], list);
  }
  if (i < 0) {
    const char *hint = close_command(w->argv[0]);
    if (hint) return cct_shell_error(p, "unknown command '%s'; did you mean '%s'?", w->argv[0], hint);
    return cct_shell_error(p, "unknown command '%s'; enter 'help' for help", w->argv[0]);
  }
  const cct_cmd *c = &commands[i];
  if ((c->flags & CMD_NEEDS_DB) && !p->q)
    return cct_shell_error(p, "no archive open for '%s'; use 'open FILE'", c->name);
  return c->fn(p, w);
}

/* The pager for the output of command w: $PAGER (default less, with LESS=FRX
 * unless set, as git does) when p's output is a terminal and 'pager' is on;
 * NULL otherwise (or for commands that take the terminal or print nothing). */
static FILE *pager_open(cct_shell *p, const cct_words *w) {
  static const char *const own[] = {"tui", "quit", "pager", "width", "open", NULL};
  if (!p->pager || !w->argc || !isatty(fileno(p->out)) || find_word(own, w->argv[0]) >= 0) return NULL;
  const char *pager = getenv("PAGER");
  if (!pager && access("/usr/bin/less", X_OK) == 0) pager = "less";
  if (!pager) return NULL;
  if (!*pager || !strcmp(pager, "cat")) return NULL;
  setenv("LESS", "FRX", 0);
  fflush(p->out);
  signal(SIGPIPE, SIG_IGN); /* quitting the pager early must not end the shell */
  FILE *f = popen(pager, "w");
  if (f) p->paged = 1;
  return f;
}

/* Waits for the pager and restores the shell's output. */
static void pager_close(cct_shell *p, FILE *out, FILE *pg) {
  pclose(pg);
  p->out = out;
  p->paged = 0;
  signal(SIGPIPE, SIG_DFL);
}

/* When a command started, for 'timer on'. */
typedef struct cct_timer {
  struct timespec real; /* CLOCK_MONOTONIC */
  struct rusage use;    /* RUSAGE_SELF: user and system CPU time */
} cct_timer;

static void timer_start(cct_timer *t) {
  clock_gettime(CLOCK_MONOTONIC, &t->real);
  getrusage(RUSAGE_SELF, &t->use);
}

static double tv_seconds(struct timeval a, struct timeval b) {
  return (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_usec - a.tv_usec) * 1e-6;
}

/* Prints the time since t as sqlite3's '.timer' does, on p->out (as sqlite3,
 * whose line goes to its output stream): 'Run Time: real R user U sys S'. */
static void timer_print(cct_shell *p, const cct_timer *t) {
  cct_timer now;
  timer_start(&now);
  double real = (double)(now.real.tv_sec - t->real.tv_sec) + (double)(now.real.tv_nsec - t->real.tv_nsec) * 1e-9;
  fprintf(p->out, "Run Time: real %.3f user %f sys %f\n", real, tv_seconds(t->use.ru_utime, now.use.ru_utime),
          tv_seconds(t->use.ru_stime, now.use.ru_stime));
}

int cct_shell_exec(cct_shell *p, const char *text, size_t len) {
  size_t pos = 0, s, e;
  int status = CCT_CMD_OK;
  char quote = 0;
  while (cct_shell_split(text, len, &pos, &s, &e, &quote)) {
    if (cct_shell_interrupted) return CCT_CMD_ERROR;
    cct_words w;
    int rc = cct_shell_words(text + s, e - s, &w);
    if (rc == -2) {
      cct_shell_error(p, "out of memory");
      return CCT_CMD_QUIT;
    }
    if (rc == -1) {
      rc = cct_shell_error(p, "unterminated %s quote in '%.*s'", quote == '"' ? "double" : "single", (int)(e - s),
                           text + s);
    } else {
      FILE *out = p->out, *pg = pager_open(p, &w);
      if (pg) p->out = pg;
      int timed = p->timer;
      cct_timer t0;
      if (timed) timer_start(&t0);
      rc = cct_shell_command(p, &w);
      if (pg) pager_close(p, out, pg);
      if (timed && p->timer) timer_print(p, &t0);
    }
    cct_words_release(&w);
    if (ferror(p->out)) return CCT_CMD_QUIT; /* nowhere to write: stop */
    if (rc == CCT_CMD_QUIT) return CCT_CMD_QUIT;
    if (rc == CCT_CMD_ERROR) {
      p->failed = 1;
      status = CCT_CMD_ERROR;
      if (!p->interactive && !p->keep_going) return status; /* a script stops (SPEC 6) */
    }
  }
  return status;
}

/* ------------------------------------------------------------- lifecycle */

void cct_shell_init(cct_shell *p, FILE *out, FILE *err) {
  memset(p, 0, sizeof *p);
  p->out = out;
  p->err = err;
  p->mode = CCT_MODE_TREE;
  p->shown.view = CCT_VIEW_NONE;
  p->width = 0;
  p->pager = 1;
  const char *nc = getenv("NO_COLOR");
  const char *term = getenv("TERM");
  p->color = isatty(fileno(out)) && !(nc && *nc) && !(term && !strcmp(term, "dumb"));
}

/* Frees the shown value (nothing shown afterwards). */
static void shown_clear(cct_shell *p) {
  cct_shown *w = &p->shown;
  free(w->metric);
  free(w->file);
  for (size_t i = 0; i < w->ncolumns; i++) free(w->columns[i]);
  free(w->columns);
  cct_center_free(w->center);
  for (size_t i = 0; i < w->spec.nfilters; i++) free(cct_unconst(w->filters[i].item));
  free(w->filters);
  cct_view_free(w->v);
  cct_view_free(w->from);
  cct_stats_free(w->s);
  cct_diff_free(w->d);
  free(w->timeline_key);
  memset(w, 0, sizeof *w);
  w->view = CCT_VIEW_NONE;
}

void cct_shell_release(cct_shell *p) {
  cct_query_close(p->q);
  free(p->path);
  for (size_t i = 0; i < p->ncolumns; i++) free(p->columns[i]);
  free(p->columns);
  p->columns = NULL;
  p->ncolumns = 0;
  shown_clear(p);
  p->q = NULL;
  p->path = NULL;
}

int cct_shell_open(cct_shell *p, const char *path, cct_err *err) {
  cct_query *q = NULL;
  char *copy = strdup(path);
  if (!copy) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  int rc = cct_query_open(path, &q, err);
  if (rc) {
    free(copy);
    return rc;
  }
  shown_clear(p); /* its views belong to the session that goes */
  cct_query_close(p->q);
  free(p->path);
  p->q = q;
  p->path = copy;
  return CCT_OK;
}

/* --------------------------------------------------------------- commands */

static int cmd_open(cct_shell *p, cct_words *w) {
  if (w->argc != 2) return usage_error(p, cmd_of(w), "need one FILE", NULL);
  cct_err err = CCT_ERR_INIT;
  int rc = cct_shell_open(p, w->argv[1], &err);
  if (rc) return lib_error(p, &err, rc);
  return CCT_CMD_OK;
}

/* Prints listing which (CCT_LIST_*) of the library as view; value_col as in
 * cct_out_stmt. */
static int run_listing(cct_shell *p, int which, const char *view, const char *value_col) {
  sqlite3_stmt *st = NULL;
  cct_err err = CCT_ERR_INIT;
  int rc = cct_query_listing(p->q, which, &st, &err);
  if (rc) return lib_error(p, &err, rc);
  rc = cct_out_stmt(p, st, view, value_col);
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) {
    if (cct_shell_interrupted) return cct_shell_error(p, "interrupted");
    return cct_shell_error(p, "%s: %s", view, sqlite3_errmsg(cct_query_db(p->q)));
  }
  return CCT_CMD_OK;
}

/* Finds a run by number or title.  Returns it, or 0 after reporting an error. */
static int find_run(cct_shell *p, const char *word) {
  int run = 0;
  cct_err err = CCT_ERR_INIT;
  int rc = cct_query_find_run(p->q, word, &run, &err);
  if (rc) return lib_error(p, &err, rc), 0;
  return run;
}

static int cmd_runs(cct_shell *p, cct_words *w) {
  if (w->argc != 1) return usage_error(p, cmd_of(w), "unexpected argument", w->argv[1]);
  return run_listing(p, CCT_LIST_RUNS, "runs", NULL);
}

static int cmd_run(cct_shell *p, cct_words *w) {
  if (w->argc == 1) {
    fprintf(p->out, "%d\n", cct_query_run(p->q));
    return CCT_CMD_OK;
  }
  if (w->argc != 2) return usage_error(p, cmd_of(w), "need one RUN (number or title)", NULL);
  int n = find_run(p, w->argv[1]);
  if (!n) return CCT_CMD_ERROR;
  cct_err err = CCT_ERR_INIT;
  int rc = cct_query_set_run(p->q, n, &err);
  if (rc) {
    if (!err.msg[0]) return cct_shell_error(p, "no run '%s' in the archive; 'runs' lists them", w->argv[1]);
    return lib_error(p, &err, rc);
  }
  shown_clear(p); /* a view of another run: '@N' and export start again */
  return CCT_CMD_OK;
}

/* 'center' alone: the members and their occurrence counts. */
static int print_center(cct_shell *p) {
  if (cct_out_center(p)) return cct_shell_error(p, cct_shell_interrupted ? "interrupted" : "out of memory");
  return CCT_CMD_OK;
}

static int cmd_center(cct_shell *p, cct_words *w) {
  if (w->argc == 1) return print_center(p);
  int op = CCT_CENTER_SET, first = 1;
  if (!strcmp(w->argv[1], "reset") && w->argc == 2 && w->text[w->offset[1]] == 'r') {
    cct_center_reset(p->q);
    return CCT_CMD_OK;
  }
  if (!strcmp(w->argv[1], "+") && w->text[w->offset[1]] == '+') op = CCT_CENTER_ADD, first = 2;
  else if (!strcmp(w->argv[1], "-") && w->text[w->offset[1]] == '-') op = CCT_CENTER_REMOVE, first = 2;
  if (first >= w->argc) return usage_error(p, cmd_of(w), "need an ITEM after", w->argv[1]);
  /* The item goes to the library as typed (it parses quotes and keywords). */
  size_t s = w->offset[first];
  char *item = strndup(w->text + s, w->len - s);
  if (!item) return cct_shell_error(p, "out of memory");
  cct_err err = CCT_ERR_INIT;
  int rc = cct_center_apply(p->q, op, item, &err);
  free(item);
  if (rc) return lib_error(p, &err, rc);
  if (p->interactive) {
    size_t n = cct_center_count(p->q);
    long long occ = 0;
    for (size_t i = 0; i < n; i++) occ += cct_center_occurrences(p->q, i);
    fprintf(p->out, "center: %zu item%s, %lld occurrence%s\n", n, n == 1 ? "" : "s", occ, occ == 1 ? "" : "s");
  }
  return CCT_CMD_OK;
}

static int cmd_filter(cct_shell *p, cct_words *w) {
  const cct_filter *f = NULL;
  size_t n = cct_query_filters(p->q, &f);
  if (w->argc == 1) {
    if (!n) fputs("(no filters)\n", p->out);
    for (size_t i = 0; i < n; i++) {
      char *ft = cct_filter_text(&f[i]);
      fprintf(p->out, "%zu  ", i + 1);
      cct_escape_write(p->out, ft ? ft : "?", CCT_ESC_TERM);
      fputc('\n', p->out);
      free(ft);
    }
    return CCT_CMD_OK;
  }
  cct_err err = CCT_ERR_INIT;
  char *note = NULL;
  int rc, kind = cct_filter_kind(w->argv[1]);
  if (!strcmp(w->argv[1], "reset")) {
    if (w->argc != 2) return usage_error(p, cmd_of(w), "unexpected argument", w->argv[2]);
    rc = cct_query_filter_remove(p->q, 0, &note, &err);
  } else if (!strcmp(w->argv[1], "-")) {
    int i;
    if (w->argc != 3 || parse_count(w->argv[2], &i) || i < 1)
      return usage_error(p, cmd_of(w), "need a filter number after", "-");
    rc = cct_query_filter_remove(p->q, (size_t)i, &note, &err);
  } else if (kind < 0) {
    return usage_error(p, cmd_of(w), "unknown filter", w->argv[1]);
  } else if (w->argc == 2 && kind != CCT_FILTER_RECURSION) {
    return usage_error(p, cmd_of(w), "need an ITEM after", w->argv[1]);
  } else {
    char *item = NULL; /* as typed: the library parses quotes and keywords */
    if (w->argc > 2 && !(item = strndup(w->text + w->offset[2], w->len - w->offset[2])))
      return cct_shell_error(p, "out of memory");
    rc = cct_query_filter_add(p->q, kind, item, &note, &err);
    free(item);
  }
  if (rc) return lib_error(p, &err, rc);
  if (note) {
    fputs("note: the center lost ", p->err);
    cct_escape_write(p->err, note, CCT_ESC_TERM);
    fputs(" (no occurrence left in the filtered tree)\n", p->err);
    free(note);
  }
  return CCT_CMD_OK;
}

/* Takes a trailing 'by inclusive|exclusive|occurrences|name' off w (w->argc
 * shrinks by 2) into *sort (CCT_SORT_INCLUSIVE without one).  Returns 0, or
 * CCT_CMD_ERROR after reporting a bad key. */
static int by_arg(cct_shell *p, cct_words *w, int *sort) {
  static const char *const keys[] = {"inclusive", "exclusive", "occurrences", "name", NULL};
  *sort = CCT_SORT_INCLUSIVE;
  if (w->argc < 2 || strcmp(w->argv[w->argc - (w->argc >= 3 ? 2 : 1)], "by")) return CCT_CMD_OK;
  if (!strcmp(w->argv[w->argc - 1], "by")) return usage_error(p, cmd_of(w), "need a key after", "by");
  int k = find_word(keys, w->argv[w->argc - 1]);
  if (k < 0)
    return usage_error(p, cmd_of(w), k == -2 ? "ambiguous sort key" : "unknown sort key (inclusive, exclusive, "
                                                                      "occurrences, name)",
                       w->argv[w->argc - 1]);
  *sort = k == 0 ? CCT_SORT_INCLUSIVE : k == 1 ? CCT_SORT_EXCLUSIVE : k == 2 ? CCT_SORT_OCCURRENCES : CCT_SORT_NAME;
  w->argc -= 2;
  return CCT_CMD_OK;
}

/* Copies s into *dst (NULL stays NULL).  Returns 0, or -1 when out of memory. */
static int keep_str(char **dst, const char *s) {
  *dst = s ? strdup(s) : NULL;
  return s && !*dst ? -1 : 0;
}

/* Copies spec's filters and window into w, which then points to its copies.
 * Returns 0, or -1 when out of memory. */
static int keep_filters(cct_shown *w, const cct_view_spec *spec) {
  w->spec.filters = NULL;
  w->spec.nfilters = 0;
  if (spec->window) w->window = *spec->window, w->spec.window = &w->window;
  if (!spec->nfilters) return 0;
  if (!(w->filters = calloc(spec->nfilters, sizeof *w->filters))) return -1;
  w->spec.filters = w->filters;
  for (size_t i = 0; i < spec->nfilters; i++, w->spec.nfilters++) {
    char *item;
    if (keep_str(&item, spec->filters[i].item)) return -1;
    w->filters[i] = (cct_filter){spec->filters[i].kind, item};
  }
  return 0;
}

/* Makes v (computed from spec) the shown value: '@N' names its rows from now
 * on.  Takes v; a 'source @N' keeps the view @N named (spec->last).  Returns 0,
 * or -1 when out of memory (nothing shown then). */
static int keep_view(cct_shell *p, const cct_view_spec *spec, cct_view *v, cct_stats *st) {
  cct_view *from = NULL;
  if (spec->last && spec->last == p->shown.v) from = p->shown.v, p->shown.v = NULL;
  else if (spec->last && spec->last == p->shown.from) from = p->shown.from, p->shown.from = NULL;
  shown_clear(p);
  cct_shown *w = &p->shown;
  w->spec = *spec;
  w->v = v;
  w->s = st;
  w->from = from;
  w->view = st ? CCT_VIEW_STATS : spec->view;
  w->center = cct_center_share(spec->center);
  w->spec.center = w->center;
  int bad = keep_str(&w->metric, spec->metric) || keep_str(&w->file, spec->file) || keep_filters(w, spec);
  if (!bad && spec->ncolumns) {
    w->columns = calloc(spec->ncolumns, sizeof *w->columns);
    for (size_t i = 0; w->columns && i < spec->ncolumns; i++, w->ncolumns++)
      if (keep_str(&w->columns[i], spec->columns[i])) break;
    bad = w->ncolumns < spec->ncolumns;
  }
  w->spec.metric = w->metric;
  w->spec.file = w->file;
  w->spec.columns = (const char *const *)w->columns;
  w->spec.ncolumns = w->ncolumns;
  w->spec.last = from;
  cct_err err = CCT_ERR_INIT;
  if (!bad && v && cct_query_remember(p->q, v, &err)) bad = 1; /* '@N' in center, filter, source */
  if (bad) shown_clear(p);
  return bad ? -1 : 0;
}

/* Computes spec's view, prints it and makes it the shown value.  Returns a CCT_CMD_* code. */
static int show_view(cct_shell *p, cct_view_spec *spec) {
  cct_view *v = NULL;
  cct_err err = CCT_ERR_INIT;
  int rc = cct_view_compute(p->q, spec, &v, &err);
  if (rc) return lib_error(p, &err, rc);
  int out = cct_out_view(p, v);
  if (keep_view(p, spec, v, NULL)) return cct_shell_error(p, "out of memory");
  if (out && cct_shell_interrupted) return cct_shell_error(p, "interrupted");
  if (out) return cct_shell_error(p, "out of memory");
  return CCT_CMD_OK;
}

/* Parses the optional DEPTH of topdown / bottomup (default 3). */
static int depth_arg(cct_shell *p, cct_words *w, int *depth) {
  *depth = 3;
  if (w->argc > 2) return usage_error(p, cmd_of(w), "unexpected argument", w->argv[2]);
  if (w->argc == 2 && parse_count(w->argv[1], depth)) return usage_error(p, cmd_of(w), "bad depth", w->argv[1]);
  return CCT_CMD_OK;
}

/* topdown and bottomup: [DEPTH] [by KEY]. */
static int tree_view(cct_shell *p, cct_words *w, int view) {
  int depth, sort;
  if (by_arg(p, w, &sort) || depth_arg(p, w, &depth)) return CCT_CMD_ERROR;
  if (view == CCT_VIEW_BOTTOMUP && cct_center_count(p->q) == 0) {
    if (cct_out_empty(p, "bottomup", "no center: use 'center NAME' or 'flat'"))
      return cct_shell_error(p, cct_shell_interrupted ? "interrupted" : "out of memory");
    return CCT_CMD_OK;
  }
  cct_view_spec spec;
  cct_shell_spec(p, view, p->mode, &spec);
  spec.depth = depth;
  spec.sort = sort;
  return show_view(p, &spec);
}

static int cmd_topdown(cct_shell *p, cct_words *w) { return tree_view(p, w, CCT_VIEW_TOPDOWN); }

static int cmd_bottomup(cct_shell *p, cct_words *w) { return tree_view(p, w, CCT_VIEW_BOTTOMUP); }

static int cmd_flat(cct_shell *p, cct_words *w) {
  static const char *const kinds[] = {"functions", "loops", "lines", "files", "modules", "tree", NULL};
  int kind = CCT_FLAT_FUNCTIONS, n = 20, a = 1, sort;
  if (by_arg(p, w, &sort)) return CCT_CMD_ERROR;
  if (a < w->argc && !isdigit((unsigned char)w->argv[a][0])) {
    kind = find_word(kinds, w->argv[a]);
    if (kind < 0) return usage_error(p, cmd_of(w), kind == -2 ? "ambiguous scope" : "unknown scope", w->argv[a]);
    a++;
  }
  if (a < w->argc && parse_count(w->argv[a++], &n)) return usage_error(p, cmd_of(w), "bad row count", w->argv[a - 1]);
  if (a < w->argc) return usage_error(p, cmd_of(w), "unexpected argument", w->argv[a]);
  cct_view_spec spec;
  cct_shell_spec(p, CCT_VIEW_FLAT, p->mode, &spec);
  spec.flat_kind = kind;
  spec.flat_n = n;
  spec.sort = sort;
  return show_view(p, &spec);
}

static int cmd_source(cct_shell *p, cct_words *w) {
  if (w->argc > 2) return usage_error(p, cmd_of(w), "unexpected argument", w->argv[2]);
  cct_view_spec spec;
  cct_shell_spec(p, CCT_VIEW_SOURCE, p->mode, &spec);
  spec.file = w->argc == 2 ? w->argv[1] : NULL;
  spec.last = p->shown.v; /* '@N': a row of the view shown */
  return show_view(p, &spec);
}

static int cmd_stats(cct_shell *p, cct_words *w) {
  int bins = 0, order = CCT_STATS_BY_VALUE, a = 1; /* 0: the library's default */
  if (w->argc > a && !strcmp(w->argv[a], "by")) {
    static const char *const keys[] = {"rank", "rank,thread", "thread"};
    static const int orders[] = {CCT_STATS_RANK_SUMS, CCT_STATS_BY_RANK, CCT_STATS_BY_THREAD};
    int k = 0;
    while (w->argc > a + 1 && k < 3 && strcmp(w->argv[a + 1], keys[k])) k++;
    if (w->argc == a + 1 || k == 3)
      return usage_error(p, cmd_of(w), w->argc == a + 1 ? "'by' needs 'rank', 'rank,thread' or 'thread'" : "unknown order",
                         w->argc > a + 1 ? w->argv[a + 1] : NULL);
    order = orders[k];
    a += 2;
  }
  if (w->argc > a + 1) return usage_error(p, cmd_of(w), "unexpected argument", w->argv[a + 1]);
  if (w->argc == a + 1 && (parse_count(w->argv[a], &bins) || bins < 1 || bins > 1000))
    return usage_error(p, cmd_of(w), "bad bin count", w->argv[a]);
  cct_view_spec spec;
  cct_shell_spec(p, CCT_VIEW_TOPDOWN, p->mode, &spec);
  cct_stats *s = NULL;
  cct_err err = CCT_ERR_INIT;
  int rc = cct_stats_compute(p->q, &spec, (size_t)bins, order, &s, &err);
  if (rc) return lib_error(p, &err, rc);
  int out = cct_out_stats(p, s, &spec, NULL, 0, order);
  if (keep_view(p, &spec, NULL, s)) return cct_shell_error(p, "out of memory");
  p->shown.bins = (size_t)bins;
  p->shown.order = order;
  if (out) return cct_shell_error(p, cct_shell_interrupted ? "interrupted" : "out of memory");
  return CCT_CMD_OK;
}

/* Joins words first.. of w with single blanks into a new string (NULL on OOM). */
static char *join_words(cct_words *w, int first) {
  size_t n = 1;
  for (int i = first; i < w->argc; i++) n += strlen(w->argv[i]) + 1;
  char *s = malloc(n), *q = s;
  if (!s) return NULL;
  for (int i = first; i < w->argc; i++) {
    size_t l = strlen(w->argv[i]);
    if (i > first) *q++ = ' ';
    memcpy(q, w->argv[i], l);
    q += l;
  }
  *q = '\0';
  return s;
}

/* 'metric define NAME = EXPR' (the expression as typed, quotes and all), or
 * 'metric define' alone: the derived metrics of the session. */
static int metric_define(cct_shell *p, cct_words *w) {
  if (w->argc == 2) {
    const char *name, *expr;
    size_t n = cct_query_defines(p->q, 0, NULL, NULL);
    if (!n) fputs("(no derived metrics; metric define NAME = EXPR adds one)\n", p->out);
    for (size_t i = 0; i < n; i++) {
      cct_query_defines(p->q, i, &name, &expr);
      fprintf(p->out, "%s = %s\n", name, expr);
    }
    return CCT_CMD_OK;
  }
  size_t s = w->offset[2];
  const char *eq = memchr(w->text + s, '=', w->len - s);
  if (!eq) return usage_error(p, cmd_of(w), "need NAME = EXPR after", "define");
  char *name = strndup(w->text + s, (size_t)(eq - (w->text + s)));
  char *expr = strndup(eq + 1, w->len - (size_t)(eq + 1 - w->text));
  if (!name || !expr) return free(name), free(expr), cct_shell_error(p, "out of memory");
  cct_err err = CCT_ERR_INIT;
  int rc = cct_query_define(p->q, name, expr, &err);
  free(name);
  free(expr);
  return rc ? lib_error(p, &err, rc) : CCT_CMD_OK;
}

static int cmd_metric(cct_shell *p, cct_words *w) {
  if (w->argc == 1) {
    const char *m = cct_query_metric(p->q);
    fprintf(p->out, "%s\n", m ? m : "(none)");
    return CCT_CMD_OK;
  }
  if (!strcmp(w->argv[1], "define") && w->text[w->offset[1]] == 'd') return metric_define(p, w);
  char *name = join_words(w, 1);
  if (!name) return cct_shell_error(p, "out of memory");
  cct_err err = CCT_ERR_INIT;
  int rc = cct_query_set_metric(p->q, name, &err);
  free(name);
  if (rc) return lib_error(p, &err, rc);
  return CCT_CMD_OK;
}

static int cmd_metrics(cct_shell *p, cct_words *w) {
  if (w->argc != 1) return usage_error(p, cmd_of(w), "unexpected argument", w->argv[1]);
  return run_listing(p, CCT_LIST_METRICS, "metrics", "total");
}

static int cmd_granularity(cct_shell *p, cct_words *w) {
  static const char *const names[] = {"function", "line", NULL};
  if (w->argc == 1) {
    fprintf(p->out, "%s\n", names[cct_query_granularity(p->q) == CCT_GRAN_LINE]);
    return CCT_CMD_OK;
  }
  int g = w->argc == 2 ? find_word(names, w->argv[1]) : -1;
  if (g < 0) return usage_error(p, cmd_of(w), "unknown granularity", w->argv[w->argc > 2 ? 2 : 1]);
  cct_query_set_granularity(p->q, g ? CCT_GRAN_LINE : CCT_GRAN_FUNCTION);
  return CCT_CMD_OK;
}

/* Parses the one argument of w, 'P' or 'P%' (0 to 100; a bare number is a percentage
 * too), into *fraction.  Returns 0, or CCT_CMD_ERROR after reporting (what: 'threshold'). */
static int percent_arg(cct_shell *p, cct_words *w, const char *what, double *fraction) {
  if (w->argc > 2) return usage_error(p, cmd_of(w), "unexpected argument", w->argv[2]);
  const char *s = w->argv[1];
  char *end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  int percent = end && *end == '%';
  if (end == s || errno || (percent ? end[1] != '\0' : *end != '\0') || !(v >= 0)) {
    char b[64];
    snprintf(b, sizeof b, "bad %s", what);
    return usage_error(p, cmd_of(w), b, s);
  }
  if (v > 100) return cct_shell_error(p, "%s '%s' is above 100%%; usage: %s", what, s, cmd_of(w)->usage);
  *fraction = v / 100.0;
  return CCT_CMD_OK;
}

static int cmd_threshold(cct_shell *p, cct_words *w) {
  if (w->argc == 1) {
    fprintf(p->out, "%g%%\n", cct_query_threshold(p->q) * 100.0);
    return CCT_CMD_OK;
  }
  double v = 0; /* set by percent_arg when it succeeds */
  if (percent_arg(p, w, "threshold", &v)) return CCT_CMD_ERROR;
  cct_query_set_threshold(p->q, v);
  return CCT_CMD_OK;
}

static int cmd_hotpath(cct_shell *p, cct_words *w) {
  double v = cct_query_hotpath(p->q);
  if (w->argc == 1) {
    if (v > 0) fprintf(p->out, "%g%%\n", v * 100.0);
    else fputs("off\n", p->out);
    return CCT_CMD_OK;
  }
  if (w->argc == 2 && (!strcmp(w->argv[1], "off") || !strcmp(w->argv[1], "on"))) v = w->argv[1][1] == 'n' ? 0.5 : 0;
  else if (percent_arg(p, w, "hot-path threshold", &v)) return CCT_CMD_ERROR;
  cct_query_set_hotpath(p->q, v);
  return CCT_CMD_OK;
}

static int cmd_percent(cct_shell *p, cct_words *w) {
  static const char *const names[] = {"program", "center", NULL};
  if (w->argc == 1) {
    fprintf(p->out, "%s\n", names[cct_query_percent(p->q) == CCT_PERCENT_CENTER]);
    return CCT_CMD_OK;
  }
  int b = w->argc == 2 ? find_word(names, w->argv[1]) : -1;
  if (b < 0) return usage_error(p, cmd_of(w), "unknown percent base", w->argv[w->argc > 2 ? 2 : 1]);
  cct_query_set_percent(p->q, b ? CCT_PERCENT_CENTER : CCT_PERCENT_PROGRAM);
  return CCT_CMD_OK;
}

static int cmd_width(cct_shell *p, cct_words *w) {
  if (w->argc == 1) {
    if (p->width) fprintf(p->out, "%d\n", p->width);
    else fprintf(p->out, "auto (%d)\n", cct_out_limit(p));
    return CCT_CMD_OK;
  }
  int n;
  if (w->argc != 2) return usage_error(p, cmd_of(w), "unexpected argument", w->argv[2]);
  if (!strcasecmp(w->argv[1], "auto")) n = 0;
  else if (parse_count(w->argv[1], &n) || n < 20) return usage_error(p, cmd_of(w), "bad width (20 or more)", w->argv[1]);
  p->width = n;
  return CCT_CMD_OK;
}

static int cmd_columns(cct_shell *p, cct_words *w) {
  if (w->argc == 1) {
    const char *m = cct_query_metric(p->q);
    fprintf(p->out, "%s (display metric)\n", m ? m : "(none)");
    for (size_t i = 0; i < p->ncolumns; i++) fprintf(p->out, "%s\n", p->columns[i]);
    return CCT_CMD_OK;
  }
  static const char *const ops[] = {"add", "remove", "reset", NULL};
  int op = find_word(ops, w->argv[1]);
  if (op < 0) return usage_error(p, cmd_of(w), "unknown argument", w->argv[1]);
  if (op == 2) {
    if (w->argc != 2) return usage_error(p, cmd_of(w), "unexpected argument", w->argv[2]);
    for (size_t i = 0; i < p->ncolumns; i++) free(p->columns[i]);
    p->ncolumns = 0;
    return CCT_CMD_OK;
  }
  if (w->argc != 3) return usage_error(p, cmd_of(w), "need one NAME after", w->argv[1]);
  char *m = NULL;
  cct_err err = CCT_ERR_INIT;
  int rc = cct_query_find_metric(p->q, w->argv[2], &m, &err);
  if (rc) return lib_error(p, &err, rc);
  size_t i = 0;
  while (i < p->ncolumns && strcmp(p->columns[i], m)) i++;
  if (op == 1) {
    if (i < p->ncolumns) free(p->columns[i]), p->columns[i] = p->columns[--p->ncolumns];
    free(m);
    return CCT_CMD_OK;
  }
  if (i < p->ncolumns) return free(m), CCT_CMD_OK;
  char **c = cct_reallocarray(p->columns, p->ncolumns + 1, sizeof *c);
  if (!c) return free(m), cct_shell_error(p, "out of memory");
  p->columns = c;
  p->columns[p->ncolumns++] = m;
  return CCT_CMD_OK;
}

/* A setting that is on or off: 'NAME' prints it, 'NAME on|off' sets *flag. */
static int on_off(cct_shell *p, cct_words *w, int *flag) {
  if (w->argc == 1) {
    fprintf(p->out, "%s\n", *flag ? "on" : "off");
    return CCT_CMD_OK;
  }
  static const char *const v[] = {"off", "on", NULL};
  int k = w->argc == 2 ? find_word(v, w->argv[1]) : -1;
  if (k < 0) return usage_error(p, cmd_of(w), "need on or off, not", w->argv[w->argc > 2 ? 2 : 1]);
  *flag = k;
  return CCT_CMD_OK;
}

static int cmd_pager(cct_shell *p, cct_words *w) { return on_off(p, w, &p->pager); }

static int cmd_timer(cct_shell *p, cct_words *w) { return on_off(p, w, &p->timer); }

static int cmd_mode(cct_shell *p, cct_words *w) {
  if (w->argc == 1) {
    fprintf(p->out, "%s\n", cct_modes[p->mode].name);
    return CCT_CMD_OK;
  }
  int m = w->argc == 2 ? cct_mode_find(w->argv[1]) : -1;
  if (m < 0) {
    char list[128] = "";
    for (int i = 0; i < CCT_MODE_COUNT; i++)
      snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", cct_modes[i].name);
    return cct_shell_error(p, "%s mode '%s' for 'mode'; modes: %s", m == -2 ? "ambiguous" : "unknown",
                           w->argv[w->argc > 2 ? 2 : 1], list);
  }
  p->mode = m;
  return CCT_CMD_OK;
}

/* Prints the SQL statement with a caret under the error offset (stderr). */
static void sql_error_context(cct_shell *p, const char *sql, int off) {
  if (off < 0 || (size_t)off > strlen(sql) || strchr(sql, '\n')) return;
  fprintf(p->err, "  %s\n  %*s^--- error here\n", sql, off, "");
}

static int cmd_sql(cct_shell *p, cct_words *w) {
  if (w->argc < 2) return usage_error(p, cmd_of(w), "need a STATEMENT", NULL);
  const char *sql = w->text + w->offset[1];
  int len = (int)(w->len - w->offset[1]), off = -1;
  sqlite3_stmt *st = NULL;
  cct_err err = CCT_ERR_INIT;
  int rc = cct_query_prepare_sql(p->q, sql, len, &st, &off, &err);
  if (rc == CCT_ESQL) {
    char *copy = strndup(sql, (size_t)len);
    lib_error(p, &err, rc);
    if (copy) sql_error_context(p, copy, off);
    free(copy);
    return CCT_CMD_ERROR;
  }
  if (rc == CCT_EUSAGE && strcmp(err.msg, "not read-only") == 0)
    return cct_shell_error(p, "'sql' runs read-only statements only, not '%s'", w->argv[1]);
  if (rc) return usage_error(p, cmd_of(w), "need a STATEMENT", NULL);
  rc = cct_out_stmt(p, st, "sql", NULL);
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) {
    if (cct_shell_interrupted) return cct_shell_error(p, "interrupted");
    const char *file = sqlite3_db_filename(cct_query_db(p->q), "main"); /* a damaged page, say */
    return cct_shell_error(p, "'%s': %s in 'sql'", file && *file ? file : "the archive",
                           sqlite3_errmsg(cct_query_db(p->q)));
  }
  return CCT_CMD_OK;
}

/* The diff spec of the view shown, as it was computed (its metric, columns,
 * center, filters, window, sort, threshold: not the session's settings now),
 * or 'topdown 3' of the session's settings when nothing was shown.  Returns 0,
 * or -1 after reporting that the view cannot be compared. */
static int shown_diff_spec(cct_shell *p, int flags, cct_diff_spec *spec) {
  const cct_shown *w = &p->shown;
  memset(spec, 0, sizeof *spec);
  spec->flags = flags;
  switch (w->view) {
  case CCT_VIEW_NONE:
    cct_shell_spec(p, CCT_VIEW_TOPDOWN, p->mode, &spec->view);
    spec->view.depth = 3;
    return 0;
  case CCT_VIEW_TOPDOWN:
  case CCT_VIEW_BOTTOMUP:
  case CCT_VIEW_FLAT: spec->view = w->spec; return 0;
  default:
    cct_shell_error(p, "'diff' compares topdown, bottomup and flat views, not '%s'; run one of those first",
                    w->v ? w->v->view : "stats"); /* a view names itself */
    return -1;
  }
}

static int cmd_diff(cct_shell *p, cct_words *w) {
  static const char *const opts[] = {"sort", NULL};
  int windows = w->argc >= 2 && !strcmp(w->argv[1], "window"); /* 'diff window A B': two windows of this run */
  long long runs = cct_query_run_count(p->q);
  if (runs < 2 && !windows)
    return cct_shell_error(p, "'diff' needs two runs and this archive has %lld; add one with 'cctingest DB_DIR %s'",
                           runs, p->path ? p->path : "FILE");
  if (w->argc < 2) return usage_error(p, cmd_of(w), "need a RUN", NULL);
  if (windows && w->argc < 4) return usage_error(p, cmd_of(w), "need a window's start and end", NULL);
  int nw = windows ? 4 : 2; /* the words before 'sort' */
  if (w->argc > nw + 1) return usage_error(p, cmd_of(w), "unexpected argument", w->argv[nw + 1]);
  int flags = 0;
  if (w->argc == nw + 1) {
    if (find_word(opts, w->argv[nw]) != 0) return usage_error(p, cmd_of(w), "unknown option", w->argv[nw]);
    flags |= CCT_DIFF_SORT_CHANGE;
  }
  cct_err err = CCT_ERR_INIT;
  cct_window win;
  int run = windows ? cct_query_run(p->q) : find_run(p, w->argv[1]);
  if (!run) return CCT_CMD_ERROR;
  if (windows && cct_query_parse_window(p->q, w->argv[2], w->argv[3], &win, &err)) return cct_shell_error(p, "%s", err.msg);
  cct_diff_spec spec;
  if (shown_diff_spec(p, flags, &spec)) return CCT_CMD_ERROR;
  if (windows) spec.window = &win;
  if (spec.view.view == CCT_VIEW_BOTTOMUP && cct_center_size(spec.view.center) == 0)
    return cct_shell_error(p, "no center to compare callers of: use 'center NAME' or 'flat'");
  cct_diff *d = NULL;
  int rc = cct_view_diff(p->q, &spec, run, &d, &err);
  if (!rc) rc = cct_query_remember(p->q, d->base_view, &err); /* '@N' names the handles shown */
  if (rc) {
    cct_diff_free(d);
    return lib_error(p, &err, rc);
  }
  int out = cct_out_diff(p, d, NULL, 0);
  if (p->shown.view == CCT_VIEW_NONE && keep_view(p, &spec.view, NULL, NULL)) /* 'topdown 3' is the view now */
    out = -1;
  cct_diff_free(p->shown.d);
  p->shown.d = d;
  p->shown.diff_run = run;
  p->shown.diff_flags = flags;
  p->shown.timeline = 0;
  if (out && cct_shell_interrupted) return cct_shell_error(p, "interrupted");
  if (out) return cct_shell_error(p, "out of memory");
  return CCT_CMD_OK;
}

/* Writes the shown value (view, diff or stats) to f in mode: as printed, or
 * computed again from its spec when mode carries metrics it was computed
 * without (csv, json) and the session still has its center and filters.
 * Returns a CCT_CMD_* code. */
static int export_text(cct_shell *p, FILE *f, int mode) {
  cct_shown *w = &p->shown;
  int out;
  if (w->d) {
    out = cct_out_diff(p, w->d, f, mode);
  } else if (w->s) {
    out = cct_out_stats(p, w->s, &w->spec, f, mode, w->order);
  } else {
    cct_view *again = NULL;
    if (w->spec.only_display && (mode == CCT_MODE_CSV || mode == CCT_MODE_JSON)) {
      cct_view_spec spec = w->spec;
      spec.only_display = 0;
      cct_err err = CCT_ERR_INIT;
      int rc = cct_view_compute(p->q, &spec, &again, &err);
      if (rc) return lib_error(p, &err, rc);
    }
    out = cct_out_view_to(p, again ? again : w->v, f, mode);
    cct_view_free(again);
  }
  if (out && cct_shell_interrupted) return cct_shell_error(p, "interrupted");
  if (out) return cct_shell_error(p, "out of memory");
  return CCT_CMD_OK;
}

/* Writes a picture of the shown value to f (.svg or .html): the stats shown,
 * or the sandwich of the shown spec (its center, metric, threshold, filters,
 * ...; depth 3 for a flat or source view).  Returns a CCT_CMD_* code. */
static int export_picture(cct_shell *p, FILE *f, const char *ext) {
#if CCT_HAVE_PICTURE
  const cct_shown *w = &p->shown;
  cct_err err = CCT_ERR_INIT;
  cct_view_spec spec = w->spec;
  if (w->view != CCT_VIEW_TOPDOWN && w->view != CCT_VIEW_BOTTOMUP) spec.depth = 3;
  int rc = w->s                ? cct_picture_stats_svg(w->s, w->center, w->order, f, &err)
           : strcmp(ext, "svg") ? cct_picture_html(p->q, &spec, NULL, f, &err)
                                : cct_picture_svg(p->q, &spec, NULL, f, &err);
  return rc ? lib_error(p, &err, rc) : CCT_CMD_OK;
#else
  (void)f;
  return cct_shell_error(p, "export to .%s is not available in this build", ext);
#endif
}

/* What an export writes, for cct_file_replace. */
typedef struct export_job {
  cct_shell *p;
  int mode;        /* CCT_MODE_* of a text export, -1 for a picture */
  const char *ext; /* the picture's extension */
} export_job;

static int export_fill(FILE *f, void *arg) {
  export_job *j = arg;
  if (j->p->shown.timeline) return cct_shell_timeline_export(j->p, f, j->mode, j->ext);
  return j->mode < 0 ? export_picture(j->p, f, j->ext) : export_text(j->p, f, j->mode);
}

/* Every refusal comes before the file is touched (issue 26 item 1). */
static int cmd_export(cct_shell *p, cct_words *w) {
  static const char *const pictures[] = {"svg", "html", NULL};
  if (w->argc != 2) return usage_error(p, cmd_of(w), w->argc < 2 ? "need a FILE" : "unexpected argument",
                                       w->argc < 2 ? NULL : w->argv[2]);
  const char *path = w->argv[1], *slash = strrchr(path, '/'), *dot = strrchr(slash ? slash : path, '.');
  int mode = dot ? cct_mode_of_ext(dot + 1) : -1, pic = -1;
  for (int i = 0; dot && mode < 0 && pictures[i]; i++)
    if (!strcasecmp(dot + 1, pictures[i])) pic = i;
  if (mode < 0 && pic < 0) {
    char list[128] = "";
    for (int i = 0; i < CCT_MODE_COUNT; i++)
      if (cct_modes[i].ext) snprintf(list + strlen(list), sizeof list - strlen(list), ".%s, ", cct_modes[i].ext);
    return cct_shell_error(p, "unknown export format '%s': name a FILE ending in %s.svg or .html", path, list);
  }
  const char *ext = mode >= 0 ? cct_modes[mode].ext : pictures[pic];
  if (p->shown.timeline && mode >= 0 && mode != CCT_MODE_TREE && mode != CCT_MODE_JSON)
    return cct_shell_error(p, "export of 'timeline' to .%s is not available; use .txt, .json, .svg or .html", ext);
  if (p->shown.view == CCT_VIEW_NONE && !p->shown.timeline)
    return cct_shell_error(p, "nothing to export: run a view first (topdown, bottomup, flat, source, stats, diff)");
  if (mode < 0 && !CCT_HAVE_PICTURE)
    return cct_shell_error(p, "export to .%s is not available in this build", ext);
  if (mode < 0 && p->shown.d)
    return cct_shell_error(p, "export to .%s of a diff is not available; use .csv or .json", ext);
  if (mode < 0 && p->shown.view == CCT_VIEW_STATS && !p->shown.timeline && strcmp(ext, "svg"))
    return cct_shell_error(p, "export of 'stats' to .%s is not available; use .svg", ext);
  if (mode == CCT_MODE_FOLDED && !p->shown.d && (p->shown.view == CCT_VIEW_SOURCE || p->shown.view == CCT_VIEW_STATS))
    return cct_shell_error(p, "export of '%s' to .folded is not available: it has no call paths",
                           p->shown.view == CCT_VIEW_SOURCE ? "source" : "stats");
  export_job job = {p, mode, ext};
  char msg[512];
  int rc = cct_file_replace(path, export_fill, &job, msg, sizeof msg);
  if (rc < 0) return cct_shell_error(p, "%s", msg);
  if (rc) return CCT_CMD_ERROR;
  if (p->interactive) fprintf(p->out, "wrote %s\n", path);
  return CCT_CMD_OK;
}

/* The full-screen interface (tui.c) on this session: it keeps the center,
 * metric and granularity chosen there; '@N' still names the shell's last view
 * (the TUI's panes are computed by the pure view core). */
static int cmd_tui(cct_shell *p, cct_words *w) {
  if (w->argc > 1) return usage_error(p, cmd_of(w), "unexpected argument", w->argv[1]);
  return cct_tui_run(p);
}

static int cmd_help(cct_shell *p, cct_words *w) {
  if (w->argc > 2) return usage_error(p, cmd_of(w), "unexpected argument", w->argv[2]);
  if (w->argc == 2 && cct_shell_help(p->out, w->argv[1])) {
    const char *hint = close_command(w->argv[1]);
    if (hint) return cct_shell_error(p, "no command '%s'; did you mean '%s'?", w->argv[1], hint);
    return cct_shell_error(p, "no command '%s'; enter 'help' for the list", w->argv[1]);
  }
  if (w->argc == 1) cct_shell_help(p->out, NULL);
  return CCT_CMD_OK;
}

static int cmd_quit(cct_shell *p, cct_words *w) {
  (void)p;
  (void)w;
  return CCT_CMD_QUIT;
}

/* ------------------------------------------------------------- completion */

int cct_shell_complete_kind(const char *line, size_t point, size_t *word_start, char *quote,
                            const char *const **words) {
  static const char *const grans[] = {"function", "line", NULL};
  static const char *const bases[] = {"program", "center", NULL};
  static const char *const diff_kw[] = {"sort", NULL};
  static const char *const onoff[] = {"on", "off", NULL};
  static const char *const flats[] = {"functions", "loops", "lines", "files", "modules", "tree", NULL};
  static const char *const center_kw[] = {"reset", "glob", "re", "loop", "file", "module", "class", "namespace",
                                          NULL};
  *words = NULL;
  *quote = 0;
  /* The command being typed starts after the last unquoted ';' or newline. */
  size_t cmd = 0;
  char q = 0;
  for (size_t i = 0; i < point; i++) {
    if (q) {
      if (line[i] == q) q = 0;
    } else if (line[i] == '\'' || line[i] == '"') {
      q = line[i];
    } else if (line[i] == ';' || line[i] == '\n') {
      cmd = i + 1;
    }
  }
  /* Words of the command up to point; the last one is being completed. */
  cct_words w;
  int rc = cct_shell_words(line + cmd, point - cmd, &w);
  if (rc == -2) return 0;
  int idx = w.argc;
  size_t start = point;
  int at_blank = point == cmd || line[point - 1] == ' ' || line[point - 1] == '\t';
  if (w.argc > 0 && (rc == -1 || !at_blank)) {
    idx = w.argc - 1;
    start = cmd + w.offset[idx];
  }
  if (start < point && (line[start] == '\'' || line[start] == '"')) *quote = line[start++];
  *word_start = start;
  int kind = 0;
  if (idx == 0) {
    kind = 'c';
  } else {
    int c = cct_shell_find_command(w.argv[0]);
    const char *name = c >= 0 ? commands[c].name : "";
    const char *cur = idx < w.argc ? w.argv[idx] : "";
    if (!strcmp(name, "help")) kind = idx == 1 ? 'c' : 0;
    else if (!strcmp(name, "open") || !strcmp(name, "export")) kind = idx == 1 ? 'o' : 0;
    else if (!strcmp(name, "diff")) kind = idx == 2 ? 'w' : 0, *words = diff_kw;
    else if (!strcmp(name, "source")) kind = idx == 1 ? (cur[0] == '@' ? '@' : 'F') : 0;
    else if (!strcmp(name, "metric")) kind = 'm';
    else if (!strcmp(name, "mode")) kind = idx == 1 ? 'M' : 0;
    else if (!strcmp(name, "timer") || !strcmp(name, "pager")) kind = idx == 1 ? 'w' : 0, *words = onoff;
    else if (!strcmp(name, "granularity")) kind = idx == 1 ? 'w' : 0, *words = grans;
    else if (!strcmp(name, "percent")) kind = idx == 1 ? 'w' : 0, *words = bases;
    else if (!strcmp(name, "flat")) kind = idx == 1 ? 'w' : 0, *words = flats;
    else if (!strcmp(name, "center")) {
      int item = 1;
      if (idx > 1 && (!strcmp(w.argv[1], "+") || !strcmp(w.argv[1], "-"))) item = 2;
      const char *kw = idx == item + 1 ? w.argv[item] : NULL;
      if (idx == item) kind = cur[0] == '@' ? '@' : strchr(cur, '/') ? 'F' : 'g';
      else if (kw && (!strcmp(kw, "file") || !strcmp(kw, "loop"))) kind = 'F';
      if (kind == 'g' && item == 1 && *quote == 0 && find_word(center_kw, cur) >= 0 && cur[0]) {
        kind = 'w';
        *words = center_kw;
      }
    }
  }
  cct_words_release(&w);
  return kind;
}

/* Counts candidates passed on to another callback. */
typedef struct count_fn {
  int (*fn)(void *arg, const char *name);
  void *arg;
  long n;
} count_fn;

static int count_cb(void *arg, const char *name) {
  count_fn *c = arg;
  c->n++;
  return c->fn(c->arg, name);
}

int cct_shell_candidates(cct_shell *p, int kind, const char *const *words, const char *prefix,
                         int (*fn)(void *arg, const char *name), void *arg) {
  size_t n = strlen(prefix);
  char buf[32];
  switch (kind) {
  case 'c':
    for (int i = 0; i < NCOMMANDS; i++)
      if (!(commands[i].flags & CMD_HIDDEN) && !strncmp(commands[i].name, prefix, n) && fn(arg, commands[i].name))
        break;
    return 0;
  case 'w':
    for (int i = 0; words && words[i]; i++)
      if (!strncmp(words[i], prefix, n) && fn(arg, words[i])) break;
    return 0;
  case 'M': /* output modes */
    for (int i = 0; i < CCT_MODE_COUNT; i++)
      if (!strncmp(cct_modes[i].name, prefix, n) && fn(arg, cct_modes[i].name)) break;
    return 0;
  case '@': /* the handles of the rows shown (a diff's base rows; none for source) */
    if (p->shown.d) {
      for (size_t i = 0; i < p->shown.d->nrows; i++) {
        if (!p->shown.d->rows[i].handle) continue;
        snprintf(buf, sizeof buf, "@%d", p->shown.d->rows[i].handle);
        if (!strncmp(buf, prefix, n) && fn(arg, buf)) break;
      }
    } else if (p->shown.v && p->shown.view != CCT_VIEW_SOURCE) {
      for (size_t i = 0; i < p->shown.v->nrows; i++) {
        snprintf(buf, sizeof buf, "@%d", p->shown.v->rows[i].handle);
        if (!strncmp(buf, prefix, n) && fn(arg, buf)) break;
      }
    }
    return 0;
  case 'f':
  case 'F':
  case 'm':
    if (!p->q) return 0;
    return cct_query_complete(p->q, kind, prefix, fn, arg) ? -1 : 0;
  case 'g': {
    /* A center item: function names; file names (for FILE:LINE) when none match. */
    count_fn c = {fn, arg, 0};
    if (!p->q) return 0;
    if (cct_query_complete(p->q, 'f', prefix, count_cb, &c)) return -1;
    if (c.n == 0 && cct_query_complete(p->q, 'F', prefix, fn, arg)) return -1;
    return 0;
  }
  default:
    return 0;
  }
}
