/* test_util.h: what the unit tests that need real archives share: a private
 * temporary directory, and ingesting a database of tests/data (or one at an
 * absolute path) with the cctingest program named by $CCTINGEST and opening
 * it (test_open: cmocka tests), and a host
 * locale with a comma decimal point.  Header-only
 * (static functions): each test program includes it once. */
#ifndef CCT_TEST_UTIL_H
#define CCT_TEST_UTIL_H

#include "cct_query.h"
#include "test_tmp.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[256]; /* created on first use, removed by test_tmpdir_remove */

/* Returns the temporary directory, creating it; NULL when that fails. */
static const char *test_tmpdir(void) {
  if (!tmpdir[0]) {
    snprintf(tmpdir, sizeof tmpdir, "%s/cct_test.XXXXXX", test_tmp_root());
    if (!mkdtemp(tmpdir)) {
      tmpdir[0] = 0;
      return NULL;
    }
  }
  return tmpdir;
}

/* Ingests NAME (a directory of $CCT_DATA, or an absolute path) into an archive
 * of the temporary directory, once per NAME.  Returns the archive's path
 * (caller frees), or NULL when the database is absent or ingest fails. */
static inline char *test_ingest(const char *name) {
  const char *tool = getenv("CCTINGEST"), *data = getenv("CCT_DATA");
  if (!tool || !data || !test_tmpdir()) return NULL;
  char src[1024], flat[512], cmd[4096];
  struct stat sb;
  snprintf(src, sizeof src, name[0] == '/' ? "%s%s" : "%s/%s", name[0] == '/' ? "" : data, name);
  if (stat(src, &sb) != 0) return NULL;
  snprintf(flat, sizeof flat, "%s", name);
  for (char *p = flat; *p; p++)
    if (*p == '/') *p = '_';
  char *out = malloc(1024);
  if (!out) return NULL;
  snprintf(out, 1024, "%s/%s.sqlite", tmpdir, flat);
  if (stat(out, &sb) == 0) return out;
  snprintf(cmd, sizeof cmd, "'%s' '%s' '%s' >/dev/null 2>&1", tool, src, out);
  if (system(cmd) != 0) {
    free(out);
    return NULL;
  }
  return out;
}

/* A session on NAME ingested by test_ingest.  Returns it, or NULL when that
 * database is absent or does not ingest and required is 0 (the caller skips);
 * fails the test (cmocka's fail_msg: include cmocka.h first) when required
 * and it is absent, or when the archive does not open. */
static inline cct_query *test_open(const char *name, int required) {
  char *path = test_ingest(name);
  if (!path && required) fail_msg("cannot ingest %s (CCTINGEST=%s)", name, getenv("CCTINGEST"));
  if (!path) return NULL;
  cct_query *q = NULL;
  cct_err e = CCT_ERR_INIT;
  if (cct_query_open(path, &q, &e)) fail_msg("open %s: %s", path, e.msg);
  free(path);
  return q;
}

/* Switches the process to a locale whose decimal point is a comma (de_DE.UTF-8,
 * compiled into the temporary directory with localedef when the system lacks
 * it), as an embedding host may do.  Returns 1 when the switch took effect
 * (printf("%.1f", 2.5) gives "2,5"), 0 when no such locale can be had. */
static inline int test_comma_locale(void) {
  static const char *const names[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8"};
  for (int pass = 0; pass < 2; pass++) {
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
      if (setlocale(LC_ALL, names[i])) {
        char b[16];
        snprintf(b, sizeof b, "%.1f", 2.5);
        if (!strcmp(b, "2,5")) return 1;
      }
    if (pass || !test_tmpdir()) break;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "localedef -i de_DE -f UTF-8 '%s/de_DE.UTF-8' >/dev/null 2>&1", tmpdir);
    if (system(cmd) != 0) break;
    setenv("LOCPATH", tmpdir, 1);
  }
  setlocale(LC_ALL, "C");
  return 0;
}

/* Removes the temporary directory (a cmocka group teardown).  Returns 0. */
static int test_tmpdir_remove(void **state) {
  (void)state;
  if (tmpdir[0]) {
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd)) return 0;
  }
  return 0;
}

#endif
