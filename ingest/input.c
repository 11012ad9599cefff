/* input.c: opening the files of a database for reading: regular files only,
 * so that a FIFO, /dev/zero or a directory named like an input gives one
 * error line instead of a hang or an endless read.  Kept apart from ingest.c
 * so that readers tested against a fake writer link without the real one. */
#include "ingest_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
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
