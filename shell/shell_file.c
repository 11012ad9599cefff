/* shell_file.c: writing a file the user named (export, in the shell and the
 * TUI) without ever destroying what was there (issue 26 item 1).  The content
 * goes to a temporary file beside the target, which is renamed over it only
 * when everything was written and flushed to disk; on any failure the
 * temporary goes and the old file stays as it was.  A symbolic link or a
 * path that is not a regular file, or a file we may not write, is refused
 * before anything is written:
 * following the link would replace a file elsewhere, replacing the link would
 * surprise whoever made it. */
#include "shell_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int cct_file_check(const char *path, char *msg, size_t n) {
  struct stat sb;
  if (lstat(path, &sb) != 0) {
    if (errno == ENOENT) return 0;
    snprintf(msg, n, "cannot write '%s': %s", path, strerror(errno));
    return -1;
  }
  if (S_ISLNK(sb.st_mode)) {
    snprintf(msg, n, "cannot write '%s': it is a symbolic link (export to the file it names, or remove the link)",
             path);
    return -1;
  }
  if (!S_ISREG(sb.st_mode)) {
    snprintf(msg, n, "cannot write '%s': %s", path, S_ISDIR(sb.st_mode) ? "it is a directory" : "not a regular file");
    return -1;
  }
  if (access(path, W_OK) != 0) { /* a read-only file stays so, as fopen("w") would refuse it */
    snprintf(msg, n, "cannot write '%s': %s", path, strerror(errno));
    return -1;
  }
  return 0;
}

/* The mode a new file gets from fopen("w"): 0666 less the umask. */
static mode_t new_file_mode(void) {
  mode_t m = umask(022);
  umask(m);
  return 0666 & ~m;
}

int cct_file_replace(const char *path, int (*fill)(FILE *f, void *arg), void *arg, char *msg, size_t n) {
  msg[0] = '\0';
  if (cct_file_check(path, msg, n)) return -1;
  struct stat sb;
  mode_t mode = stat(path, &sb) == 0 ? (sb.st_mode & 07777) : new_file_mode();
  /* The temporary: '.NAME.cctq-XXXXXX' in the target's directory (a rename
   * within one file system replaces the target in one step). */
  const char *slash = strrchr(path, '/');
  size_t dlen = slash ? (size_t)(slash - path) + 1 : 0;
  const char *base = path + dlen;
  size_t tn = dlen + strlen(base) + sizeof ".cctq-XXXXXX" + 1;
  char *tmp = malloc(tn);
  if (!tmp) return snprintf(msg, n, "out of memory"), -1;
  snprintf(tmp, tn, "%.*s.%s.cctq-XXXXXX", (int)dlen, path, base);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    snprintf(msg, n, "cannot write '%s': %s", path, strerror(errno));
    free(tmp);
    return -1;
  }
  FILE *f = fdopen(fd, "w");
  if (!f) {
    snprintf(msg, n, "cannot write '%s': %s", path, strerror(errno));
    close(fd);
    unlink(tmp);
    free(tmp);
    return -1;
  }
  errno = 0;
  int rc = fill(f, arg) ? 1 : 0;
  int e = ferror(f) && errno ? errno : 0; /* the failed write's (EFBIG, ENOSPC) if nothing changed it since */
  if (!rc) {
    errno = 0;
    int bad = ferror(f) || fflush(f) != 0 || fchmod(fd, mode) != 0 || fsync(fd) != 0;
    if (!e) e = errno ? errno : EIO;
    if (fclose(f) != 0 && !bad) bad = 1, e = errno ? errno : EIO;
    f = NULL;
    if (!bad && rename(tmp, path) != 0) bad = 1, e = errno;
    if (bad) {
      snprintf(msg, n, "cannot write '%s': %s", path, strerror(e));
      rc = -1;
    }
  }
  if (f) fclose(f);
  if (rc) unlink(tmp);
  free(tmp);
  return rc;
}
