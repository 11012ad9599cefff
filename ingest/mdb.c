/* mdb.c: hpcviewer's merged metric file `experiment-N.mdb` (formats doc
 * §1.5).  When hpcviewer first opens a classic database it concatenates the
 * per-thread *.metric-db files into one big-endian file (Java
 * DataOutputStream) and deletes them:
 *
 *   i32 type (1 multi-process | 2 multi-thread), i32 nFiles,
 *   nFiles x {i32 proc, i32 thread, i64 offset of the embedded file},
 *   the metric-db files verbatim, sorted by name, then the i64 marker
 *   0xFFFFFFFFDEADF00D.
 *
 * This file finds such a file and checks its index; classic.c reads the
 * embedded metric-db files exactly as it reads separate ones, and trace.c the
 * hpctrace files embedded in experiment.mt, which has the same layout.  It also
 * parses the identity of a profile from a metric-db or hpctrace file name. */
#include "classic_int.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t be32(const unsigned char *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be64(const unsigned char *p) { return (uint64_t)be32(p) << 32 | be32(p + 4); }

int cct_mdb_check_index(const unsigned char *head, uint64_t size, const unsigned char *tail, cct_mdb_entry *e,
                        char *why, size_t nwhy) {
  uint32_t type = be32(head), n = be32(head + 4);
  uint64_t end = size - CCT_MDB_MARKER_SIZE; /* where the embedded files must stop */
  if (be64(tail) != CCT_MDB_MARKER)
    return snprintf(why, nwhy, "no end marker 0xFFFFFFFFDEADF00D (truncated, or hpcviewer's merge did not finish)"), -1;
  if (type & ~3u) return snprintf(why, nwhy, "unknown type flags 0x%x in the header", type), -1;
  uint64_t first = CCT_MDB_HEAD_SIZE + 16ull * n;
  for (uint32_t k = 0; k < n; k++) {
    const unsigned char *q = head + CCT_MDB_HEAD_SIZE + 16 * (size_t)k;
    e[k].proc = (int32_t)be32(q);
    e[k].thread = (int32_t)be32(q + 4);
    e[k].offset = be64(q + 8);
    if (e[k].proc < 0 || e[k].thread < 0)
      return snprintf(why, nwhy, "file %u of %u has a negative rank or thread in the header", k + 1, n), -1;
    uint64_t want = k ? e[k - 1].offset + CCT_METRICDB_HEADER : first;
    if (k == 0 ? e[k].offset != first : e[k].offset < want)
      return snprintf(why, nwhy, "header says file %u of %u starts at offset %llu, %s %llu", k + 1, n,
                      (unsigned long long)e[k].offset, k ? "before the end of the previous file at" : "expected",
                      (unsigned long long)want),
             -1;
    if (e[k].offset > end || end - e[k].offset < CCT_METRICDB_HEADER)
      return snprintf(why, nwhy, "header says file %u of %u starts at offset %llu, past the end of the data (%llu)",
                      k + 1, n, (unsigned long long)e[k].offset, (unsigned long long)end),
             -1;
    if (k) e[k - 1].size = e[k].offset - e[k - 1].offset;
  }
  e[n - 1].size = end - e[n - 1].offset;
  return 0;
}

int cct_mdb_read_index(FILE *f, const char *path, cct_mdb_entry **out, uint32_t *nout, cct_err *err) {
  *out = NULL;
  *nout = 0;
  unsigned char head[CCT_MDB_HEAD_SIZE], tail[CCT_MDB_MARKER_SIZE];
  if (fseeko(f, 0, SEEK_END)) return cct_err_set(err, CCT_EIO, "cannot read '%s': %s", path, strerror(errno));
  off_t size = ftello(f);
  if (size < 0) return cct_err_set(err, CCT_EIO, "cannot read '%s': %s", path, strerror(errno));
  if (size < CCT_MDB_HEAD_SIZE + CCT_MDB_MARKER_SIZE)
    return cct_err_set(err, CCT_ECORRUPT, "'%s': truncated (%lld bytes)", path, (long long)size);
  if (fseeko(f, 0, SEEK_SET) || fread(head, 1, sizeof head, f) != sizeof head ||
      fseeko(f, size - CCT_MDB_MARKER_SIZE, SEEK_SET) || fread(tail, 1, sizeof tail, f) != sizeof tail)
    return cct_err_set(err, CCT_EIO, "cannot read '%s'", path);
  uint32_t n = be32(head + 4);
  if (n == 0 || n > INT32_MAX) return cct_err_set(err, CCT_ECORRUPT, "'%s': header says it holds %d files", path, (int32_t)n);
  uint64_t need = CCT_MDB_HEAD_SIZE + 16ull * n + (uint64_t)n * CCT_METRICDB_HEADER + CCT_MDB_MARKER_SIZE;
  if (need > (uint64_t)size)
    return cct_err_set(err, CCT_ECORRUPT, "'%s': header says it holds %u files, more than its %lld bytes can", path, n,
                       (long long)size);
  unsigned char *index = malloc(CCT_MDB_HEAD_SIZE + 16 * (size_t)n);
  cct_mdb_entry *e = calloc(n, sizeof *e);
  char why[300];
  int rc = CCT_OK;
  if (!index || !e) rc = cct_err_set(err, CCT_ENOMEM, "out of memory reading '%s'", path);
  else if (fseeko(f, 0, SEEK_SET) || fread(index, 1, CCT_MDB_HEAD_SIZE + 16 * (size_t)n, f) != CCT_MDB_HEAD_SIZE + 16 * (size_t)n)
    rc = cct_err_set(err, CCT_EIO, "cannot read '%s'", path);
  else if (cct_mdb_check_index(index, (uint64_t)size, tail, e, why, sizeof why))
    rc = cct_err_set(err, CCT_ECORRUPT, "'%s': %s", path, why);
  free(index);
  if (rc) {
    free(e);
    return rc;
  }
  *out = e;
  *nout = n;
  return CCT_OK;
}

/* 1 for the names hpcviewer gives merged metric files: experiment.mdb, experiment-N.mdb. */
static int is_mdb_name(const char *s) {
  if (strncmp(s, "experiment", 10)) return 0;
  s += 10;
  if (*s == '-')
    for (s++; *s >= '0' && *s <= '9'; s++) continue;
  return !strcmp(s, ".mdb");
}

int cct_mdb_find(const char *dir, char **path, cct_err *err) {
  *path = NULL;
  DIR *d = opendir(dir);
  if (!d) return cct_err_set(err, CCT_EIO, "cannot list '%s': %s", dir, strerror(errno));
  char first[256] = "", second[256] = "";
  int metricdb = 0;
  struct dirent *de;
  while ((de = readdir(d))) {
    size_t len = strlen(de->d_name);
    if (len > 10 && !strcmp(de->d_name + len - 10, ".metric-db")) metricdb = 1;
    if (!is_mdb_name(de->d_name)) continue;
    snprintf(first[0] ? second : first, sizeof first, "%s", de->d_name);
  }
  closedir(d);
  if (metricdb || !first[0]) return CCT_OK; /* the original files win when hpcviewer left them */
  if (second[0])
    return cct_err_set(err, CCT_EFORMAT, "'%s' holds several merged metric files ('%s', '%s'); keep only one", dir,
                       strcmp(first, second) < 0 ? first : second, strcmp(first, second) < 0 ? second : first);
  size_t n = strlen(dir) + strlen(first) + 2;
  if (!(*path = malloc(n))) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  snprintf(*path, n, "%s/%s", dir, first);
  return CCT_OK;
}

void cct_classic_profile_id(const char *name, cct_profile_id *id) {
  /* <grp>.<exe>-<rank:6d>-<thread:3d>-<hostid:8x>-<pid>-<gen>.metric-db */
  id->node = id->rank = id->thread = id->core = id->gpucontext = id->gpustream = -1;
  const char *dash[5] = {0};
  const char *end = strrchr(name, '.');
  if (!end) return;
  int k = 0;
  for (const char *p = end; p > name && k < 5; p--)
    if (p[-1] == '-') dash[k++] = p - 1;
  if (k < 5) return;
  id->rank = strtoll(dash[4] + 1, NULL, 10);
  id->thread = strtoll(dash[3] + 1, NULL, 10);
  id->node = strtoll(dash[2] + 1, NULL, 16);
}
