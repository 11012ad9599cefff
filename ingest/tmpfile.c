/* tmpfile.c: the temporary file a new archive is built in (OUT.tmpPID beside
 * OUT) and its publication under the final name.  The temporary is flock'ed
 * by its ingest for its whole life, so that a later ingest on the same OUT
 * can tell the leftovers of a killed one (process gone, no lock) from the
 * temporary of one still running, and remove them.  Publication makes the
 * archive durable: the file is synced before the rename, the directory after.
 * Publication never replaces an archive another ingest published meanwhile
 * (six concurrent ingests into one new OUT kept one run): it reports it, and
 * the ingest appends its run instead. */
#define _GNU_SOURCE /* renameat2 */
#include "ingest_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* Splits path into its directory (dir, "." when none) and its last component. */
static const char *split_path(const char *path, char *dir, size_t n) {
  const char *slash = strrchr(path, '/');
  if (!slash) {
    snprintf(dir, n, ".");
    return path;
  }
  size_t len = slash == path ? 1 : (size_t)(slash - path);
  snprintf(dir, n, "%.*s", (int)len, path);
  return slash + 1;
}

/* 1 when the temporary 'path' of process pid is a leftover: the process is
 * gone and nobody holds the file's lock (a live ingest in another PID
 * namespace still holds it).  A missing file is a leftover too (its -wal). */
static int is_stale(const char *path, long pid) {
  if (pid <= 0 || pid == (long)getpid() || pid > INT_MAX) return 0;
  if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) return 0;
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT;
  int unlocked = flock(fd, LOCK_EX | LOCK_NB) == 0;
  close(fd);
  return unlocked;
}

void cct_tmp_remove_stale(const char *out_path) {
  char dir[PATH_MAX];
  const char *name = split_path(out_path, dir, sizeof dir);
  DIR *d = opendir(dir);
  if (!d) return;
  size_t nlen = strlen(name);
  struct dirent *e;
  while ((e = readdir(d))) {
    if (strncmp(e->d_name, name, nlen) || strncmp(e->d_name + nlen, ".tmp", 4)) continue;
    const char *digits = e->d_name + nlen + 4;
    char *end;
    errno = 0;
    long pid = strtol(digits, &end, 10);
    if (end == digits || *digits < '0' || *digits > '9' || errno) continue;
    if (*end && strcmp(end, "-wal") && strcmp(end, "-shm") && strcmp(end, "-journal")) continue;
    char path[PATH_MAX], main_path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path) continue;
    snprintf(main_path, sizeof main_path, "%.*s", (int)(strlen(path) - strlen(end)), path);
    struct stat sb;
    if (lstat(path, &sb) == 0 && S_ISREG(sb.st_mode) && is_stale(main_path, pid)) unlink(path);
  }
  closedir(d);
}

int cct_tmp_create(const char *out_path, char **ptmp, int *pfd, cct_err *err) {
  *ptmp = NULL;
  *pfd = -1;
  size_t n = strlen(out_path) + 32;
  char *tmp = malloc(n);
  if (!tmp) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  snprintf(tmp, n, "%s.tmp%ld", out_path, (long)getpid());
  unlink(tmp); /* left by an earlier process with this PID */
  int fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) {
    int rc = cct_err_set(err, CCT_EIO, "cannot write '%s': %s", out_path, strerror(errno));
    free(tmp);
    return rc;
  }
  flock(fd, LOCK_EX | LOCK_NB); /* a fresh file: fails only where flock is not supported */
  *ptmp = tmp;
  *pfd = fd;
  return CCT_OK;
}

/* Moves tmp to out_path unless an entry appeared there: 0, or -1 with errno
 * (EEXIST when one did).  renameat2(RENAME_NOREPLACE) where the kernel and
 * file system have it, else link() and unlink(); only a file system with
 * neither (no hard links) gets a plain rename. */
static int move_noreplace(const char *tmp, const char *out_path) {
#ifdef RENAME_NOREPLACE
  if (renameat2(AT_FDCWD, tmp, AT_FDCWD, out_path, RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP) return -1;
#endif
  if (link(tmp, out_path) == 0) return unlink(tmp), 0;
  if (errno != EPERM && errno != ENOTSUP && errno != EOPNOTSUPP) return -1;
  return rename(tmp, out_path);
}

int cct_tmp_publish(const char *tmp, int fd, const char *out_path, char *warning, size_t wn, cct_err *err) {
  if (fsync(fd)) return cct_err_set(err, CCT_EIO, "cannot write '%s': sync: %s", out_path, strerror(errno));
  if (move_noreplace(tmp, out_path)) {
    struct stat sb;
    /* an empty regular file (touch OUT) is replaced, as a missing one is created */
    if (errno == EEXIST && lstat(out_path, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size == 0 && !rename(tmp, out_path))
      goto renamed;
    if (errno == EEXIST)
      return cct_err_set(err, CCT_EEXISTS, "'%s' appeared while its new archive was being written", out_path);
    return cct_err_set(err, CCT_EIO, "cannot rename to '%s': %s", out_path, strerror(errno));
  }
renamed:;
  /* The archive is in place: a failure to sync its directory is a warning. */
  char dir[PATH_MAX];
  split_path(out_path, dir, sizeof dir);
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if ((dfd < 0 || fsync(dfd)) && errno != EINVAL) { /* EINVAL: the file system has no directory sync */
    if (warning) snprintf(warning, wn, "'%s' is written, but its directory could not be synced (a crash may lose it): %s",
                          out_path, strerror(errno));
  }
  if (dfd >= 0) close(dfd);
  return CCT_OK;
}
