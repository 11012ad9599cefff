/* cct_shorten.h: names cut to a width so that they stay readable and apart
 * (issue 27 item 2), for the shell's tree and table output and the TUI.
 * A label is a name (a C++ name with its parameter list and template
 * arguments, a C or Fortran name, '<unknown procedure> 0x1a2b') followed by
 * tags the shell adds or hpcprof wrote: ' [module]', ' [inlined]',
 * ' [clone .constprop.0]', ' @ file.c:12' (call site), ' (file.c:77)'
 * (location).  What goes first when a label is too wide: the module (to
 * '[lib...]', at least '[...]'), then the name's parameter lists ('(...)'),
 * then its template arguments ('<...>'), then its qualifiers one by one from
 * the left (namespaces, then the class); the function's own name and the
 * other tags stay; a name still too wide is cut in its middle ('...'),
 * without its '(...)' when the name alone is too wide, keeping an address
 * that ends it whole ('<u...0x326c9').
 * Widths count code points of text already escaped for the terminal.
 * Strings returned are malloc'ed and owned by the caller. */
#ifndef CCT_SHORTEN_H
#define CCT_SHORTEN_H

#include <stddef.h>

/* s in at most width columns (s itself, copied, when it fits), by the rules
 * above.  Returns a new string, or NULL when out of memory. */
char *cct_shorten(const char *s, int width);

/* Shortens n labels at once: out[i] gets names[i] in widths[i] columns, and
 * two labels whose names differ never get the same shortened name when a
 * step left out would keep them apart (LAMMPS' 'eval<0, 0, 1>(...)' and
 * 'eval<1, 1, 1>(...)': their template arguments stay, their namespaces go).
 * Returns 0, or -1 when out of memory (out[] then holds no string). */
int cct_shorten_all(const char *const *names, const int *widths, size_t n, char **out);

#endif
