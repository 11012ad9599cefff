/* fuzz_archive.c: libFuzzer target for the archive reader (cctq's side).  The
 * input is written as an archive file in a private temporary directory and
 * opened with cct_query_open; then the views a session typically runs are
 * computed on it (top-down, bottom-up, every flat scope, a center, its source
 * and stats, the SPEC invariants) and cctingest --list reads it.  The seed
 * corpus holds real small archives; mutated copies are damaged archives.  Any
 * outcome but a crash, a sanitizer report or a leak is fine: errors are the
 * expected answer to damage. */
#include "fuzz_util.h"
#include "cct_ingest.h"
#include "cct_query.h"
#include "../unit/test_view.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64], path[128];

static void remove_files(void) {
  static const char *const side[] = {"", "-wal", "-shm", "-journal"};
  char p[160];
  for (size_t i = 0; i < sizeof side / sizeof *side; i++) {
    snprintf(p, sizeof p, "%s%s", path, side[i]);
    unlink(p);
  }
}

static void cleanup(void) {
  remove_files();
  rmdir(dir);
}

static void view_done(int rc, cct_view *v) {
  if (rc == CCT_OK && !v) abort(); /* the contract: CCT_OK sets *out */
  if (rc != CCT_OK && v) abort();
  cct_view_free(v);
}

static void count_run(void *arg, const cct_run_info *r) {
  (void)r;
  ++*(int *)arg;
}

/* Centers on the function of the heaviest flat row, if there is one. */
static void center_on_top(cct_query *q) {
  cct_view *v = NULL;
  cct_err err = CCT_ERR_INIT;
  if (test_view(q, CCT_VIEW_FLAT, CCT_FLAT_FUNCTIONS, 3, &v, &err) == CCT_OK && v->nrows > 1 && v->rows[1].name) {
    char item[300];
    snprintf(item, sizeof item, "'%.280s'", v->rows[1].name);
    cct_err e2 = CCT_ERR_INIT;
    cct_center_apply(q, CCT_CENTER_SET, item, &e2);
  }
  cct_view_free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!dir[0]) { /* a private directory, in memory where possible, removed at exit */
    fuzz_private_dir(dir, sizeof dir, "archive");
    snprintf(path, sizeof path, "%s/a.sqlite", dir);
    atexit(cleanup);
  }
  remove_files();
  FILE *f = fopen(path, "wb");
  if (!f) abort();
  if (size && fwrite(data, 1, size, f) != size) abort();
  fclose(f);

  cct_err err = CCT_ERR_INIT;
  int runs = 0;
  cct_archive_list(path, count_run, &runs, &err);

  cct_query *q = NULL;
  err = (cct_err)CCT_ERR_INIT;
  if (cct_query_open(path, &q, &err) == CCT_OK) {
    cct_view *v = NULL;
    int rc;
    for (int k = CCT_FLAT_FUNCTIONS; k <= CCT_FLAT_MODULES; k++) {
      err = (cct_err)CCT_ERR_INIT;
      v = NULL;
      rc = test_view(q, CCT_VIEW_FLAT, k, 20, &v, &err);
      view_done(rc, v);
    }
    err = (cct_err)CCT_ERR_INIT;
    v = NULL;
    rc = test_view(q, CCT_VIEW_TOPDOWN, 4, 0, &v, &err);
    view_done(rc, v);
    err = (cct_err)CCT_ERR_INIT;
    v = NULL;
    rc = test_view(q, CCT_VIEW_BOTTOMUP, 3, 0, &v, &err);
    view_done(rc, v);
    center_on_top(q);
    cct_query_set_granularity(q, CCT_GRAN_LINE);
    err = (cct_err)CCT_ERR_INIT;
    v = NULL;
    rc = test_view(q, CCT_VIEW_TOPDOWN, 3, 0, &v, &err);
    view_done(rc, v);
    err = (cct_err)CCT_ERR_INIT;
    v = NULL;
    rc = test_view_source(q, NULL, &v, &err);
    view_done(rc, v);
    err = (cct_err)CCT_ERR_INIT;
    cct_stats *s = NULL;
    if (test_view_stats(q, 4, CCT_STATS_BY_VALUE, &s, &err) == CCT_OK && !s) abort();
    cct_stats_free(s);
    err = (cct_err)CCT_ERR_INIT;
    cct_check_invariants(q, &err);
    err = (cct_err)CCT_ERR_INIT;
    if (cct_query_set_run(q, 1, &err) == CCT_OK) {
      err = (cct_err)CCT_ERR_INIT;
      v = NULL;
      rc = test_view(q, CCT_VIEW_TOPDOWN, 2, 0, &v, &err);
      view_done(rc, v);
    }
    cct_query_close(q);
  }
  remove_files();
  return 0;
}
