/* filter.c: filters (SPEC section 5).  A run seen through a list of filters
 * is computed once as the one run of a private archive: the items are
 * resolved in the run (center syntax, center.c), the ingest library writes the
 * filtered tree with the numbering and static-scope totals of any run
 * (cct_ingest_derive), and the file is opened immutable and unlinked at once,
 * so nothing is left behind.  The archive keeps the filtered runs it made
 * (keyed by run and filter list); views, centers and checks then run on them
 * unchanged (core.c binds a spec with filters to its filtered run); the
 * session's list of filters is in session.c. */
#include "cct_util.h"
#include "query_int.h"
#include "cct_ingest.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* At most this many filtered runs are kept per archive (the oldest goes). */
#define Q_FILTERED_MAX 8

struct qfiltered {
  char *key;  /* run and filter list (see filter_key) */
  int serial; /* cct_center.tree of centers resolved in it */
  qarch a;    /* run 1 is the filtered tree */
};

static const char *const kind_names[] = {"keep", "drop", "hide", "prune", "recursion"};

const char *cct_filter_name(int kind) {
  return kind >= 0 && kind < (int)(sizeof kind_names / sizeof *kind_names) ? kind_names[kind] : NULL;
}

int cct_filter_kind(const char *word) {
  for (int k = 0; k < (int)(sizeof kind_names / sizeof *kind_names); k++)
    if (word && !strcmp(word, kind_names[k])) return k;
  return -1;
}

char *cct_filter_text(const cct_filter *f) {
  const char *name = cct_filter_name(f->kind);
  size_t n = strlen(name ? name : "?") + (f->item ? strlen(f->item) + 1 : 0) + 1;
  char *t = malloc(n);
  if (t) snprintf(t, n, f->item ? "%s %s" : "%s", name ? name : "?", f->item ? f->item : "");
  return t;
}

/* "run\nkind item\nkind item..." (malloc'd), or NULL when out of memory. */
static char *filter_key(int run, const cct_filter *f, size_t n) {
  size_t len = 32;
  for (size_t i = 0; i < n; i++) len += 16 + (f[i].item ? strlen(f[i].item) : 0);
  char *k = malloc(len), *p = k;
  if (!k) return NULL;
  p += snprintf(p, len, "%d", run); /* len: room for every part, so no part is cut */
  for (size_t i = 0; i < n; i++)
    p += snprintf(p, len - (size_t)(p - k), "\n%d %s", f[i].kind, f[i].item ? f[i].item : "");
  return k;
}

static void filtered_free(qfiltered *d) {
  if (!d) return;
  q_arch_close(&d->a);
  free(d->key);
  free(d);
}

void q_filtered_close(qarch *a) {
  for (size_t i = 0; i < a->nfiltered; i++) filtered_free(a->filtered[i]);
  free(a->filtered);
  a->filtered = NULL;
  a->nfiltered = 0;
}

/* The context ids of filter f's item's occurrences in run r of a. */
static int item_ids(qarch *a, const qrun *r, const cct_filter *f, long long **ids, size_t *n, cct_err *err) {
  *ids = NULL;
  *n = 0;
  if (!f->item) return CCT_OK;
  qv q = {.a = a, .r = r, .c = &q_no_center, .gran = CCT_GRAN_FUNCTION, .shown_run = r->run};
  cct_center *c = NULL;
  cct_err e = CCT_ERR_INIT;
  int rc = q_center_edit(&q, NULL, CCT_CENTER_SET, f->item, NULL, 0, &c, &e);
  if (rc) return cct_err_set(err, rc, "filter %s %s: %s", cct_filter_name(f->kind), f->item, e.msg);
  if (!c) return CCT_OK;
  *ids = malloc((c->nO + 1) * sizeof **ids);
  if (!*ids) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
  for (size_t i = 0; !rc && i < c->nO; i++) (*ids)[(*n)++] = c->O[i].id;
  cct_center_free(c);
  return rc;
}

/* Removes what processes killed while writing a filtered copy left in dir
 * (cctq-filtered-PID-N.sqlite and its temporaries, PID no longer running). */
static void remove_stale(const char *dir) {
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d))) {
    long pid;
    int n = 0;
    if (sscanf(e->d_name, "cctq-filtered-%ld-%*d.sqlite%n", &pid, &n) != 1 || !n || pid <= 0) continue;
    if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue; /* alive, or not ours to judge */
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    unlink(p);
  }
  if (d) closedir(d);
}

int q_filtered(qarch *a, int run, const cct_filter *f, size_t n, qarch **out, int *serial, cct_err *err) {
  char *key = filter_key(run, f, n);
  if (!key) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  for (size_t i = a->nfiltered; i-- > 0;)
    if (!strcmp(a->filtered[i]->key, key)) {
      free(key);
      *out = &a->filtered[i]->a;
      *serial = a->filtered[i]->serial;
      return CCT_OK;
    }
  for (size_t i = 0; i < n; i++)
    if (!cct_filter_name(f[i].kind) || (!f[i].item && f[i].kind != CCT_FILTER_RECURSION)) {
      free(key);
      return cct_err_set(err, CCT_EUSAGE, "filter %zu: a %s needs an item", i + 1,
                         cct_filter_name(f[i].kind) ? cct_filter_name(f[i].kind) : "filter");
    }
  const qrun *r = NULL;
  int rc = q_run_get(a, run, &r, err);
  cct_derive_step *steps = calloc(n + 1, sizeof *steps);
  long long **ids = calloc(n + 1, sizeof *ids);
  if (!rc && (!steps || !ids)) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
  q_begin(a);
  for (size_t i = 0; !rc && i < n; i++) {
    steps[i].kind = f[i].kind;
    rc = item_ids(a, r, &f[i], &ids[i], &steps[i].nids, err);
    steps[i].ids = ids[i];
  }
  char path[4200];
  const char *tmp = getenv("TMPDIR");
  tmp = tmp && *tmp ? tmp : "/tmp";
  remove_stale(tmp);
  snprintf(path, sizeof path, "%s/cctq-filtered-%ld-%d.sqlite", tmp, (long)getpid(), a->serial + 1);
  unlink(path); /* a leftover of a dead process with our pid */
  if (!rc) rc = cct_ingest_derive(a->db, run, steps, n, path, err);
  q_end(a);
  qfiltered *d = rc ? NULL : calloc(1, sizeof *d);
  if (!rc && !d) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
  if (!rc) rc = q_arch_open(&d->a, path, CCT_OPEN_IMMUTABLE, NULL, err);
  unlink(path); /* open or not, the file is private: gone once closed */
  for (size_t i = 0; ids && i < n; i++) free(ids[i]);
  free(ids);
  free(steps);
  if (!rc && a->nfiltered == Q_FILTERED_MAX) {
    filtered_free(a->filtered[0]);
    memmove(a->filtered, a->filtered + 1, --a->nfiltered * sizeof *a->filtered);
  }
  qfiltered **grown = rc ? NULL : cct_reallocarray(a->filtered, (a->nfiltered + 1), sizeof *grown);
  if (!rc && !grown) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
  if (rc) {
    if (d) q_arch_close(&d->a);
    free(d);
    free(key);
    return rc;
  }
  a->filtered = grown;
  d->key = key;
  d->serial = ++a->serial;
  a->filtered[a->nfiltered++] = d;
  *out = &d->a;
  *serial = d->serial;
  return CCT_OK;
}
