/* ingest.c: the entry point of the ingest library: detects the database's
 * format from its files, computes the content digest that identifies it, and
 * runs the matching reader into an archive writer. */
#include "cct_ingest.h"
#include "classic_int.h"
#include "ingest_int.h"
#include "trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Reads the first n bytes of path into buf.  Returns the count read, or -1 with err set. */
static long head(const char *path, char *buf, size_t n, cct_err *err) {
  FILE *f = cct_fopen_regular(path, err);
  if (!f) return -1;
  size_t got = fread(buf, 1, n, f);
  fclose(f);
  return (long)got;
}

/* 1 when a directory entry exists at path (a dangling symlink counts). */
static int present(const char *path) {
  struct stat sb;
  return lstat(path, &sb) == 0;
}

int cct_ingest(const cct_ingest_options *opt, cct_ingest_stats *stats, cct_err *err) {
  char xml[4096], meta[4096], prof[4096];
  struct stat sb;
  if (stat(opt->db_dir, &sb) != 0)
    return cct_err_set(err, CCT_EIO, "cannot open '%s': %s", opt->db_dir, strerror(errno));
  if (!S_ISDIR(sb.st_mode))
    return cct_err_set(err, CCT_EUSAGE, "'%s' is not a directory; give an HPCToolkit database directory", opt->db_dir);
  snprintf(xml, sizeof xml, "%s/experiment.xml", opt->db_dir);
  snprintf(meta, sizeof meta, "%s/meta.db", opt->db_dir);
  snprintf(prof, sizeof prof, "%s/profile.db", opt->db_dir);

  const char *format = NULL;
  char buf[512];
  long n;
  uint64_t h = 0xcbf29ce484222325ull;
  long long bytes = 0;
  if (present(meta)) {
    format = "v4";
    int rc = cct_digest_file(meta, &h, &bytes, err);
    if (!rc && present(prof)) rc = cct_digest_file(prof, &h, &bytes, err);
    if (rc) return rc;
  } else if (present(xml)) {
    if ((n = head(xml, buf, sizeof buf - 1, err)) < 0) return CCT_EIO;
    buf[n] = 0;
    const char *v = strstr(buf, "<HPCToolkitExperiment");
    int prof2 = v && (v = strstr(v, "version=\"")) && v[9] == '4'; /* values in profile.db */
    format = prof2 ? "prof2" : "classic";
    int rc = cct_digest_file(xml, &h, &bytes, err);
    if (!rc && prof2 && present(prof)) rc = cct_digest_file(prof, &h, &bytes, err);
    if (rc) return rc;
    char *mdb = NULL; /* per-thread values in hpcviewer's merged file */
    rc = prof2 ? CCT_OK : cct_mdb_find(opt->db_dir, &mdb, err);
    if (rc) return rc;
    if (mdb) format = "classic+mdb";
    free(mdb);
  } else {
    return cct_err_set(err, CCT_EFORMAT, "'%s' holds neither experiment.xml nor meta.db: not an HPCToolkit database",
                       opt->db_dir);
  }
  /* The traces are part of the content: read first (the tree takes each context's
   * traced time), their files digested too. */
  cct_traces *traces = NULL;
  int rc = cct_traces_scan(opt->db_dir, format, &traces, err);
  if (!rc) rc = cct_traces_digest(traces, &h, &bytes, err);
  if (rc) return cct_traces_free(traces), rc;
  char digest[17];
  snprintf(digest, sizeof digest, "%016llx", (unsigned long long)h);

  /* A new archive that another ingest published while this one wrote its
   * own (CCT_EEXISTS from the commit) gets this run appended: read again. */
  rc = CCT_EEXISTS;
  for (int attempt = 0; rc == CCT_EEXISTS && attempt < 2; attempt++) {
    cct_writer *w = NULL;
    rc = attempt ? cct_traces_scan(opt->db_dir, format, &traces, err) : CCT_OK; /* the writer took the first */
    if (!rc) rc = cct_writer_open(opt->out_path, opt->db_dir, format, opt->title, digest, bytes, opt->replace, &w, err);
    if (rc) return cct_traces_free(traces), rc;
    cct_writer_traces(w, traces);
    rc = format[0] == 'v'   ? cct_read_v4(opt->db_dir, w, err)
         : format[0] == 'p' ? cct_read_prof2(opt->db_dir, w, err)
                            : cct_read_classic(opt->db_dir, w, err);
    if (rc) {
      cct_err_set(err, rc, "%s", cct_writer_err(w)->msg);
      cct_writer_abort(w);
      return rc;
    }
    rc = cct_writer_commit(w, stats, err);
  }
  return rc;
}
