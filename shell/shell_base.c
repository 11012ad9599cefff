/* shell_base.c: what every file of shell/ uses, below all of them (no file
 * of shell/ calls a file that calls it back): the interrupt flag, the one
 * way errors are printed ('cctq: error: ...', escaped for the terminal), and
 * the view spec of the session's settings with the shell's 'columns', from
 * which the shell's views and the TUI's panes are computed. */
#include "shell_int.h"

#include "cct_escape.h"

#include <stdarg.h>
#include <stdlib.h>

volatile sig_atomic_t cct_shell_interrupted = 0;

int cct_shell_error(cct_shell *p, const char *fmt, ...) {
  va_list ap;
  fflush(p->out);
  fputs("cctq: error: ", p->err);
  va_start(ap, fmt);
  va_list aq;
  va_copy(aq, ap);
  int n = vsnprintf(NULL, 0, fmt, aq);
  va_end(aq);
  char *msg = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (msg) vsnprintf(msg, (size_t)n + 1, fmt, ap);
  va_end(ap);
  /* Messages quote names from the archive ('did you mean'): never raw to the terminal. */
  cct_escape_write(p->err, msg ? msg : "out of memory", CCT_ESC_TERM);
  free(msg);
  fputc('\n', p->err);
  fflush(p->err);
  return CCT_CMD_ERROR;
}

void cct_shell_spec(cct_shell *p, int view, int mode, cct_view_spec *spec) {
  cct_view_spec_init(p->q, view, spec);
  spec->columns = (const char *const *)p->columns;
  spec->ncolumns = p->ncolumns;
  spec->only_display = mode != CCT_MODE_CSV && mode != CCT_MODE_JSON;
  spec->drop_zero = 1; /* rows of zero cost are left out (and counted) in every mode */
}
