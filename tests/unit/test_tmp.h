/* test_tmp.h: where unit tests put their temporary files. */
#ifndef CCT_TEST_TMP_H
#define CCT_TEST_TMP_H

#include <stdlib.h>

/* $TMPDIR (scripts/test points it at a tmpfs), or /tmp without one. */
static inline const char *test_tmp_root(void) {
  const char *root = getenv("TMPDIR");
  return root && *root ? root : "/tmp";
}

#endif
