/* test_util.h: what the unit tests that need real archives share: a private
 * temporary directory, and ingesting a database of tests/data (or one at an
 * absolute path) with the cctingest program named by $CCTINGEST.  Header-only
 * (static functions): each test program includes it once. */
#ifndef CCT_TEST_UTIL_H
#define CCT_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[256]; /* created on first use, removed by test_tmpdir_remove */

/* Returns the temporary directory, creating it; NULL when that fails. */
static const char *test_tmpdir(void) {
  if (!tmpdir[0]) {
    snprintf(tmpdir, sizeof tmpdir, "/tmp/cct_test.XXXXXX");
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
static char *test_ingest(const char *name) {
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
