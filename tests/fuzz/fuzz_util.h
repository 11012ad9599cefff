/* fuzz_util.h: what the fuzz drivers share: a private working directory and
 * writing an input to a file.  Header-only, included by each tests/fuzz/fuzz_*.c. */
#ifndef FUZZ_UTIL_H
#define FUZZ_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Makes a private directory for target name in dir[n] (n >= 64), in memory
 * (/dev/shm) where possible, else in /tmp; aborts when neither works. */
static inline void fuzz_private_dir(char *dir, size_t n, const char *name) {
  snprintf(dir, n, "/dev/shm/cct-fuzz-%s-XXXXXX", name);
  if (mkdtemp(dir)) return;
  snprintf(dir, n, "/tmp/cct-fuzz-%s-XXXXXX", name);
  if (!mkdtemp(dir)) abort();
}

/* Writes p[0..n) to path (replacing it); aborts on failure. */
static inline void fuzz_write_file(const char *path, const uint8_t *p, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) abort();
  if (n && fwrite(p, 1, n, f) != n) abort();
  fclose(f);
}

#endif
