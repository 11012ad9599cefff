/* main.c: the cctq program: options, the input loop and the terminal.  Every
 * input source (readline on a terminal, -c CMDS, -f FILE, commands on stdin)
 * goes through the same loop, feeding lines to cct_shell_exec (shell.c); a line
 * that ends inside a quote continues on the next one.  This is the only file
 * that uses readline (tui.c has the terminal for --tui): line editing, history ($CCTQ_HISTORY or ~/.cctq_history),
 * completion (kinds from cct_shell_complete_kind) and Ctrl-C, which cancels
 * the line being typed or interrupts the running command, never the shell.
 *
 * A script (-c, -f, stdin not a terminal) stops at its first failing command,
 * as sqlite3 -bail does (SPEC 6), unless --keep-going; --bail, the old way to
 * ask for that, is accepted and does nothing.  A terminal session goes on.
 *
 * Exit status: 0 ok; 1 a command failed or
 * writing stdout failed; 2 usage error: bad option, missing -f file, or an
 * ARCHIVE argument that cannot be opened as a cctq archive (the archive on the
 * command line is part of the invocation, so a bad one is a usage-level error;
 * 'open FILE' inside the shell failing is a command error, 1). */
#include "cct_util.h"
#include "shell_int.h"

#include <errno.h>
#include <readline/history.h>
#include <readline/readline.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage[] =
    "usage: cctq [OPTIONS] [ARCHIVE.sqlite]\n"
    "Context-centric views of a cctq archive (made by cctingest).  Without -c or -f,\n"
    "reads commands from the terminal (line editing, history, Tab completion) or stdin.\n"
    "  -c CMDS      run CMDS (';' or newline separated), then exit; may be repeated\n"
    "  -f FILE      run the commands in FILE ('-' for stdin), then exit; may be repeated\n"
    "  --define 'NAME = EXPR'\n"
    "               a derived metric, as 'metric define NAME = EXPR' (may be repeated)\n"
    "  --keep-going a script runs on after a failing command (it stops at the first)\n"
    "  --tui        full-screen panes around the center (after the -c / -f commands)\n"
    "  -h, --help   this text; 'cctq -c help' lists the commands\n"
    "  --version    print the version\n"
    "Exit status: 0 ok, 1 a command failed, 2 usage error (bad option, file or archive).\n";

static cct_shell shell;                    /* the session (global for the completion callbacks) */
static sqlite3 *volatile interrupt_db;     /* interrupted by SIGINT while a command runs */
static volatile sig_atomic_t got_winch;    /* terminal resized */

static void on_sigint(int sig) {
  (void)sig;
  cct_shell_interrupted = 1;
  if (interrupt_db) sqlite3_interrupt(interrupt_db);
}

static void on_sigwinch(int sig) {
  (void)sig;
  got_winch = 1;
}

/* Runs one chunk of input; keeps the SIGINT target current. */
static int run_text(const char *text, size_t len) {
  cct_shell_interrupted = 0;
  interrupt_db = shell.q ? cct_query_db(shell.q) : NULL;
  int rc = cct_shell_exec(&shell, text, len);
  interrupt_db = NULL;
  return rc;
}

/* Appends line (and a newline) to the pending input buffer.  Returns 0 or -1. */
static int append(char **buf, size_t *len, size_t *cap, const char *line) {
  size_t n = strlen(line);
  if (*len + n + 2 > *cap) {
    size_t c = (*len + n + 2) * 2;
    char *b = realloc(*buf, c);
    if (!b) return -1;
    *buf = b;
    *cap = c;
  }
  memcpy(*buf + *len, line, n);
  *len += n;
  (*buf)[(*len)++] = '\n';
  (*buf)[*len] = '\0';
  return 0;
}

/* 1 when the input ends inside a quote (the command continues on the next
 * line): feeds st the line just appended to buf, whose length was old. */
static int open_quote(cct_split_state *st, const char *buf, size_t old, size_t len) {
  int open = cct_shell_scan(st, buf + old, len - old);
  if (!open) *st = (cct_split_state){0};
  return open;
}

/* 1 when path is not a directory (a script is read as a file); else 0 with errno set. */
static int is_regular(const char *path) {
  struct stat sb;
  if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) return errno = EISDIR, 0;
  return 1;
}

/* Runs the commands read line by line from f.  Returns the worst status. */
static int run_file(FILE *f) {
  char *line = NULL, *buf = NULL;
  size_t lcap = 0, len = 0, cap = 0;
  ssize_t n;
  int status = CCT_CMD_OK;
  cct_split_state st = {0};
  while ((n = getline(&line, &lcap, f)) >= 0) {
    if (n > 0 && line[n - 1] == '\n') line[n - 1] = '\0';
    size_t old = len;
    if (append(&buf, &len, &cap, line)) {
      cct_shell_error(&shell, "out of memory");
      status = CCT_CMD_QUIT;
      break;
    }
    if (open_quote(&st, buf, old, len)) continue;
    int rc = run_text(buf, len);
    len = 0;
    if (rc == CCT_CMD_ERROR) status = CCT_CMD_ERROR;
    if (rc == CCT_CMD_QUIT || (rc == CCT_CMD_ERROR && !shell.keep_going)) break;
  }
  if (len) { /* the end of the input inside a quote: let the splitter report it */
    if (run_text(buf, len) == CCT_CMD_ERROR) status = CCT_CMD_ERROR;
  }
  if (ferror(f)) {
    cct_shell_error(&shell, "cannot read the commands: %s", strerror(errno));
    status = CCT_CMD_ERROR;
  }
  free(line);
  free(buf);
  return status;
}

/* ------------------------------------------------------------- readline */

static char *tty_line;       /* line handed over by the callback interface */
static int tty_done;           /* 1 once a line (or EOF) arrived */

static void on_line(char *line) {
  tty_line = line;
  tty_done = 1;
  rl_callback_handler_remove();
}

/* Reads a line from the terminal.  Returns the line (malloc'ed), NULL at EOF,
 * or "" (static, *cancelled set) when Ctrl-C cancelled the line. */
static char *read_tty_line(const char *prompt, int *cancelled) {
  *cancelled = 0;
  tty_line = NULL;
  tty_done = 0;
  rl_callback_handler_install(prompt, on_line);
  while (!tty_done) {
    fd_set fds;
    FD_ZERO(&fds);
    FD_SET(fileno(rl_instream), &fds);
    int r = select(fileno(rl_instream) + 1, &fds, NULL, NULL, NULL);
    if (r < 0 && errno == EINTR) {
      if (got_winch) {
        got_winch = 0;
        rl_resize_terminal();
      }
      if (cct_shell_interrupted) {
        cct_shell_interrupted = 0;
        fputs("^C\n", rl_outstream); /* before the handler goes: leaving bracketed paste writes '\r' */
        fflush(rl_outstream);
        rl_free_line_state();
        rl_callback_sigcleanup();
        rl_replace_line("", 0);
        rl_callback_handler_remove();
        *cancelled = 1;
        return NULL;
      }
      continue;
    }
    if (r < 0) return NULL;
    rl_callback_read_char();
  }
  return tty_line;
}

/* Completion candidates collected for readline. */
typedef struct matches {
  char **v;      /* candidates (owned) */
  size_t n, cap; /* used / allocated */
} matches;

static int add_match(void *arg, const char *name) {
  matches *m = arg;
  if (m->n >= 20000) return 1; /* enough to show; the user types more */
  if (m->n + 2 > m->cap) {
    size_t c = m->cap ? 2 * m->cap : 64;
    char **v = realloc(m->v, c * sizeof *v);
    if (!v) return 1;
    m->v = v;
    m->cap = c;
  }
  m->v[m->n] = strdup(name);
  if (m->v[m->n]) m->n++;
  return 0;
}

static int needs_quotes(const char *s) { return strpbrk(s, " \t;'\"") != NULL; }

/* readline's completion entry: commands, functions, files, metrics, handles. */
static char **complete(const char *text, int start, int end) {
  (void)start;
  rl_attempted_completion_over = 1;
  size_t ws = 0;
  char quote = 0;
  const char *const *words = NULL;
  int kind = cct_shell_complete_kind(rl_line_buffer, (size_t)end, &ws, &quote, &words);
  if (kind == 'o') {
    rl_attempted_completion_over = 0;
    return rl_completion_matches(text, rl_filename_completion_function);
  }
  if (!kind) return NULL;
  matches m = {0};
  cct_shell_candidates(&shell, kind, words, text, add_match, &m);
  if (!m.n) {
    free(m.v);
    return NULL;
  }
  /* matches[0] is what replaces text: the common prefix, quoted if needed. */
  size_t lcp = strlen(m.v[0]);
  int quoted = 0;
  for (size_t i = 0; i < m.n; i++) {
    size_t k = 0;
    while (k < lcp && m.v[i][k] == m.v[0][k]) k++;
    lcp = k;
    if (needs_quotes(m.v[i])) quoted = 1;
  }
  quoted = quoted && !rl_completion_quote_character && !quote;
  char **r = calloc(m.n + 2, sizeof *r);
  if (!r) {
    for (size_t i = 0; i < m.n; i++) free(m.v[i]);
    free(m.v);
    return NULL;
  }
  /* Candidates may match on a path's basename: never replace text by less than it had. */
  int keep = m.n > 1 && lcp < strlen(text);
  const char *src = keep ? text : m.v[0];
  size_t n0 = keep ? strlen(text) : m.n == 1 ? strlen(src) : lcp;
  r[0] = malloc(n0 + 3);
  if (r[0]) {
    size_t k = 0;
    if (quoted) r[0][k++] = '\'';
    memcpy(r[0] + k, src, n0);
    k += n0;
    if (quoted && m.n == 1) r[0][k++] = '\'';
    r[0][k] = '\0';
  }
  if (m.n == 1) {
    free(m.v[0]);
  } else {
    for (size_t i = 0; i < m.n; i++) r[i + 1] = m.v[i];
  }
  free(m.v);
  return r;
}

/* The history file: $CCTQ_HISTORY, else ~/.cctq_history (NULL if no home). */
static char *history_path(void) {
  const char *h = getenv("CCTQ_HISTORY");
  if (h && *h) return strdup(h);
  const char *home = getenv("HOME");
  if (!home || !*home) return NULL;
  size_t n = strlen(home) + sizeof "/.cctq_history";
  char *p = malloc(n);
  if (p) snprintf(p, n, "%s/.cctq_history", home);
  return p;
}

/* The prompt into buf: 'cctq> ', or under a time window 'cctq[1.5-2.5s]> '. */
static const char *prompt_text(char *buf, size_t n) {
  const cct_window *w = shell.q ? cct_query_window(shell.q) : NULL;
  if (w) snprintf(buf, n, "cctq[%.4g-%.4gs]> ", w->from, w->to); /* LC_NUMERIC stays "C" (tui.c sets LC_CTYPE) */
  else snprintf(buf, n, "cctq> ");
  return buf;
}

/* The interactive loop on a terminal. */
static void run_tty(void) {
  char *hist = history_path();
  rl_readline_name = "cctq";
  rl_catch_signals = 0;
  rl_catch_sigwinch = 0;
  rl_attempted_completion_function = complete;
  rl_basic_word_break_characters = " \t\n;";
  rl_completer_word_break_characters = " \t\n;";
  rl_completer_quote_characters = "'\"";
  stifle_history(2000);
  if (hist && read_history(hist) != 0) write_history(hist); /* create it: lines are appended as entered */
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigint; /* no SA_RESTART: select() returns EINTR */
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sa.sa_handler = on_sigwinch;
  sigaction(SIGWINCH, &sa, NULL);
  char *buf = NULL;
  size_t len = 0, cap = 0;
  cct_split_state st = {0};
  for (;;) {
    int cancelled = 0;
    char prompt[64];
    char *line = read_tty_line(len ? "   ...> " : prompt_text(prompt, sizeof prompt), &cancelled);
    if (cancelled) {
      len = 0;
      st = (cct_split_state){0};
      continue;
    }
    if (!line) {
      fputc('\n', stdout);
      break;
    }
    size_t ll = strlen(line);
    while (ll > 0 && (line[ll - 1] == ' ' || line[ll - 1] == '\t')) ll--; /* completion's blank */
    char *h = strndup(line, ll);
    if (h && h[0] && (history_length == 0 || strcmp(history_get(history_base + history_length - 1)->line, h)))
      add_history(h), hist ? append_history(1, hist) : 0; /* kept even if the shell is killed */
    free(h);
    size_t old = len;
    int rc = append(&buf, &len, &cap, line);
    free(line);
    if (rc) break;
    if (open_quote(&st, buf, old, len)) continue;
    rc = run_text(buf, len);
    len = 0;
    if (rc == CCT_CMD_QUIT) break;
  }
  free(buf);
  if (hist) {
    history_truncate_file(hist, 2000);
    free(hist);
  }
}

/* ------------------------------------------------------------------ main */

/* One -c or -f source, in command-line order. */
typedef struct source {
  int is_file;      /* 1: -f FILE, 0: -c CMDS */
  const char *text; /* CMDS or FILE */
} source;

int main(int argc, char **argv) {
  source *src = calloc((size_t)argc, sizeof *src);
  const char **defs = calloc((size_t)argc, sizeof *defs); /* --define NAME = EXPR, run first */
  int ndefs = 0;
  int nsrc = 0, status = 0;
  const char *archive = NULL;
  int tui = 0;
  if (!src || !defs) return free(src), free(defs), fputs("cctq: error: out of memory\n", stderr), 1;
  cct_keep_freed_memory(); /* each command reuses the last one's pages */
  cct_shell_init(&shell, stdout, stderr);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if ((!strcmp(a, "-c") || !strcmp(a, "-f")) && i + 1 < argc) {
      src[nsrc].is_file = a[1] == 'f';
      src[nsrc++].text = argv[++i];
    } else if (!strcmp(a, "--define") && i + 1 < argc) {
      defs[ndefs++] = argv[++i];
    } else if (!strcmp(a, "--keep-going")) {
      shell.keep_going = 1;
    } else if (!strcmp(a, "--bail")) {
      /* the default now: accepted so that old scripts run */
    } else if (!strcmp(a, "--tui")) {
      tui = 1;
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(usage, stdout);
      goto done;
    } else if (!strcmp(a, "--version")) {
      puts("cctq " CCT_VERSION);
      goto done;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "cctq: error: %s option '%s'\n%s",
              !strcmp(a, "-c") || !strcmp(a, "-f") || !strcmp(a, "--define") ? "missing argument for" : "unknown", a,
              usage);
      status = 2;
      goto done;
    } else if (!archive) {
      archive = a;
    } else {
      fprintf(stderr, "cctq: error: unexpected argument '%s' (one archive at a time)\n%s", a, usage);
      status = 2;
      goto done;
    }
  }
  if (tui && !archive) {
    fprintf(stderr, "cctq: error: --tui needs an ARCHIVE\n%s", usage);
    status = 2;
    goto done;
  }
  for (int i = 0; i < nsrc; i++) /* check the scripts before running anything */
    if (src[i].is_file && strcmp(src[i].text, "-") && (access(src[i].text, R_OK) || !is_regular(src[i].text))) {
      fprintf(stderr, "cctq: error: cannot read script '%s': %s\n", src[i].text, strerror(errno));
      status = 2;
      goto done;
    }
  if (archive) {
    cct_err err = CCT_ERR_INIT;
    int rc = cct_shell_open(&shell, archive, &err);
    if (rc) {
      cct_shell_error(&shell, "%s", err.msg[0] ? err.msg : cct_errstr(rc)); /* escaped: a damaged schema's text */
      status = 2;
      goto done;
    }
  }
  if (ndefs && !archive) {
    fprintf(stderr, "cctq: error: --define needs an ARCHIVE\n%s", usage);
    status = 2;
    goto done;
  }
  for (int i = 0; i < ndefs; i++) {
    cct_words w = {0};
    size_t len = strlen(defs[i]);
    char *cmd = malloc(len + 15);
    if (!cmd) break;
    memcpy(cmd, "metric define ", 14);
    memcpy(cmd + 14, defs[i], len + 1);
    int rc = cct_shell_words(cmd, strlen(cmd), &w) ? CCT_CMD_ERROR : cct_shell_command(&shell, &w);
    cct_words_release(&w);
    free(cmd);
    if (rc != CCT_CMD_OK) {
      status = 2;
      goto done;
    }
  }
  int worst = CCT_CMD_OK;
  if (nsrc) {
    /* Ctrl-C ends the running command (a script then stops: it failed), as on a terminal */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    for (int i = 0; i < nsrc; i++) {
      int rc;
      if (!src[i].is_file) {
        rc = run_text(src[i].text, strlen(src[i].text));
      } else if (!strcmp(src[i].text, "-")) {
        rc = run_file(stdin);
      } else {
        FILE *f = fopen(src[i].text, "r");
        if (!f) {
          fprintf(stderr, "cctq: error: cannot read script '%s': %s\n", src[i].text, strerror(errno));
          status = 2;
          goto done;
        }
        rc = run_file(f);
        fclose(f);
      }
      if (rc == CCT_CMD_ERROR) worst = CCT_CMD_ERROR;
      if (rc == CCT_CMD_QUIT || (rc == CCT_CMD_ERROR && !shell.keep_going)) break;
    }
  }
  if (tui) { /* after the commands, which may set the center */
    if (!(worst == CCT_CMD_ERROR && !shell.keep_going) && cct_tui_run(&shell) != CCT_CMD_OK) worst = CCT_CMD_ERROR;
  } else if (nsrc) {
    /* done */
  } else if (isatty(STDIN_FILENO)) {
    shell.interactive = 1;
    if (isatty(STDOUT_FILENO))
      printf("cctq %s: %s; enter 'help' for the commands, Tab to complete\n", CCT_VERSION,
             shell.path ? shell.path : "no archive open (use 'open FILE')");
    run_tty();
  } else {
    worst = run_file(stdin);
  }
  status = worst == CCT_CMD_ERROR || shell.failed ? 1 : 0;
  if (shell.interactive) status = 0;
done:
  cct_shell_release(&shell);
  free(src);
  free(defs);
  int e = fflush(stdout) ? errno : 0;
  if (e || ferror(stdout)) {
    fprintf(stderr, "cctq: error: writing the output failed%s%s\n", e ? ": " : "", e ? strerror(e) : "");
    if (!status) status = 1;
  }
  return status;
}
