/* input.c: opening the files of a database for reading: regular files only,
 * so that a FIFO, /dev/zero or a directory named like an input gives one
 * error line instead of a hang or an endless read, and the content digest of
 * those files.  Kept apart from ingest.c so that readers tested against a fake
 * writer link without the real one. */
#include "ingest_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int cct_open_regular(const char *path, cct_err *err) {
  /* O_NONBLOCK: opening a FIFO must not wait for a writer; cleared once the
   * file is known to be regular. */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return cct_err_set(err, CCT_EIO, "cannot open '%s': %s", path, strerror(errno)), -1;
  struct stat sb;
  if (fstat(fd, &sb) != 0) {
    int e = errno;
    close(fd);
    return cct_err_set(err, CCT_EIO, "cannot read '%s': %s", path, strerror(e)), -1;
  }
  if (!S_ISREG(sb.st_mode)) {
    close(fd);
    return cct_err_set(err, CCT_EIO, "'%s' is not a regular file (a device, FIFO or directory)", path), -1;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

FILE *cct_fopen_regular(const char *path, cct_err *err) {
  int fd = cct_open_regular(path, err);
  FILE *f = fd < 0 ? NULL : fdopen(fd, "rb");
  if (fd >= 0 && !f) {
    cct_err_set(err, CCT_ENOMEM, "cannot read '%s': %s", path, strerror(errno));
    close(fd);
  }
  return f;
}

void cct_digest_update(uint64_t *h, const void *p, size_t n) {
  /* 8 bytes at a time (a multiply-xorshift mix), the tail byte by byte: fast
   * enough to hash a GiB-sized profile.db in well under a second. */
  const unsigned char *b = p;
  uint64_t x = *h;
  for (; n >= 8; b += 8, n -= 8) {
    uint64_t w;
    memcpy(&w, b, 8);
    x = (x ^ w) * 0x9E3779B97F4A7C15ull;
    x ^= x >> 29;
  }
  for (; n; b++, n--) x = (x ^ *b) * 0x100000001b3ull;
  *h = x;
}

int cct_digest_file(const char *path, uint64_t *h, long long *bytes, cct_err *err) {
  enum { CHUNK = 1 << 20 };
  FILE *f = cct_fopen_regular(path, err);
  if (!f) return CCT_EIO;
  unsigned char *buf = malloc(CHUNK);
  size_t n;
  int rc = buf ? CCT_OK : cct_err_set(err, CCT_ENOMEM, "out of memory reading '%s'", path);
  while (!rc && (n = fread(buf, 1, CHUNK, f)) > 0) {
    cct_digest_update(h, buf, n);
    *bytes += (long long)n;
  }
  if (!rc && ferror(f)) rc = cct_err_set(err, CCT_EIO, "cannot read '%s': %s", path, strerror(errno));
  free(buf);
  fclose(f);
  return rc;
}
