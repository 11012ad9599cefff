/* fuzz_v4.c: libFuzzer target for the v4 reader (ingest/v4.c).
 *
 * Input layout: u32 little-endian length L, then L bytes written as meta.db,
 * then the rest written as profile.db (L is clamped to what is there; an input
 * shorter than 4 bytes becomes meta.db alone).  Both go to a private temporary
 * directory and cct_read_v4 runs on it against a fake writer that checks the
 * reader keeps the writer contract of ingest_int.h (balanced enter/exit,
 * declared references, valid metric indexes, ascending profile contexts) and
 * aborts otherwise.  Any crash, sanitizer report or abort is a finding. */
#include "fuzz_util.h"
#include "cct_ingest.h"
#include "ingest_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- a set of int64 ids (open addressing) ---- */
typedef struct idset {
  int64_t *v;
  size_t cap, n;
} idset;

static uint64_t mix(int64_t x) {
  uint64_t h = (uint64_t)x * 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 29);
}

static int idset_has(const idset *s, int64_t x) {
  if (!s->cap) return 0;
  for (size_t i = mix(x) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
    if (s->v[i] == INT64_MIN) return 0;
    if (s->v[i] == x) return 1;
  }
}

/* Adds x; returns 0 when it was already there. */
static int idset_add(idset *s, int64_t x) {
  if (x == INT64_MIN) abort();
  if (idset_has(s, x)) return 0;
  if (2 * (s->n + 1) > s->cap) {
    idset t = {NULL, s->cap ? 2 * s->cap : 64, 0};
    t.v = malloc(t.cap * sizeof *t.v);
    if (!t.v) abort();
    for (size_t i = 0; i < t.cap; i++) t.v[i] = INT64_MIN;
    for (size_t i = 0; i < s->cap; i++)
      if (s->v[i] != INT64_MIN) idset_add(&t, s->v[i]);
    free(s->v);
    *s = t;
  }
  for (size_t i = mix(x) & (s->cap - 1);; i = (i + 1) & (s->cap - 1))
    if (s->v[i] == INT64_MIN) {
      s->v[i] = x;
      s->n++;
      return 1;
    }
}

static void idset_free(idset *s) {
  free(s->v);
  memset(s, 0, sizeof *s);
}

/* ---- fake writer ---- */
struct cct_writer {
  idset modules, files, functions, contexts;
  int nmetrics, depth, entered, in_profile;
  cct_err err;
};

#define CHECK(c) \
  do {           \
    if (!(c)) abort(); \
  } while (0)

int cct_writer_module(cct_writer *w, int64_t id, const char *path) {
  CHECK(path && !w->entered);
  CHECK(idset_add(&w->modules, id));
  return CCT_OK;
}

int cct_writer_file(cct_writer *w, int64_t id, const char *path, const char *src_rel) {
  CHECK(path && !w->entered);
  CHECK(idset_add(&w->files, id));
  CHECK(!src_rel || src_rel == path); /* v4 names the copy by the file's own path; the writer vets it */
  return CCT_OK;
}

int cct_writer_function(cct_writer *w, int64_t id, const char *name, int64_t module, int64_t file, int64_t line) {
  CHECK(name && !w->entered);
  CHECK(module == CCT_NONE || idset_has(&w->modules, module));
  CHECK(file == CCT_NONE || idset_has(&w->files, file));
  (void)line;
  CHECK(idset_add(&w->functions, id));
  return CCT_OK;
}

int cct_writer_metric(cct_writer *w, const char *name, const char *stat, const char *description, int has_lex,
                      cct_err *err) {
  (void)description, (void)has_lex, (void)err;
  CHECK(name && stat && !w->entered);
  return w->nmetrics++;
}

int cct_writer_enter(cct_writer *w, const cct_context *c) {
  CHECK(!w->in_profile);
  CHECK(w->entered == 0 ? c->kind == CCT_KIND_ROOT && w->depth == 0 : w->depth > 0);
  CHECK(w->entered == 0 || c->kind != CCT_KIND_ROOT);
  CHECK(c->kind >= 0 && c->kind <= CCT_KIND_INSTRUCTION && c->relation >= 0 && c->relation <= CCT_REL_INLINED);
  CHECK(c->function == CCT_NONE || idset_has(&w->functions, c->function));
  CHECK(c->kind != CCT_KIND_FUNCTION || c->function != CCT_NONE);
  CHECK(c->file == CCT_NONE || idset_has(&w->files, c->file));
  CHECK(c->module == CCT_NONE || idset_has(&w->modules, c->module));
  CHECK(c->id >= 0 && c->id <= UINT32_MAX);
  if (!idset_add(&w->contexts, c->id)) return cct_err_set(&w->err, CCT_ECORRUPT, "duplicate context %lld", (long long)c->id);
  w->entered++;
  w->depth++;
  return CCT_OK;
}

int cct_writer_value(cct_writer *w, int m, int which, double v) {
  (void)v;
  CHECK(w->depth > 0 && m >= 0 && m < w->nmetrics && which >= 0 && which <= 2);
  return CCT_OK;
}

int cct_writer_exit(cct_writer *w) {
  CHECK(w->depth > 0);
  w->depth--;
  return CCT_OK;
}

void cct_writer_note_elided(cct_writer *w, long long n) {
  CHECK(n >= 0 && w->depth == 0);
}

int cct_writer_profile(cct_writer *w, const cct_profile_id *id) {
  CHECK(w->depth == 0 && w->entered > 0 && id && id->source);
  w->in_profile = 1;
  return CCT_OK;
}

int cct_writer_profile_values(cct_writer *w, int m, size_t n, const uint32_t *ctx, const double *incl,
                              const double *excl) {
  CHECK(w->in_profile && m >= 0 && m < w->nmetrics);
  for (size_t i = 0; i < n; i++) {
    CHECK(i == 0 || ctx[i] > ctx[i - 1]);
    CHECK(idset_has(&w->contexts, ctx[i]));
    volatile double s = incl[i] + excl[i];
    (void)s;
  }
  return CCT_OK;
}

void cct_writer_progress(cct_writer *w, long long bytes_done, long long bytes_total) {
  (void)w;
  CHECK(bytes_done >= 0 && bytes_done <= bytes_total);
}

cct_err *cct_writer_err(cct_writer *w) { return &w->err; }

/* ---- driver ---- */
static char dir[64];
static char meta_path[96], prof_path[96];

static void cleanup(void) {
  unlink(meta_path);
  unlink(prof_path);
  rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!dir[0]) {
    fuzz_private_dir(dir, sizeof dir, "v4");
    snprintf(meta_path, sizeof meta_path, "%s/meta.db", dir);
    snprintf(prof_path, sizeof prof_path, "%s/profile.db", dir);
    atexit(cleanup);
  }
  size_t lm = size;
  const uint8_t *m = data;
  if (size >= 4) {
    uint32_t l = (uint32_t)data[0] | ((uint32_t)data[1] << 8) | ((uint32_t)data[2] << 16) | ((uint32_t)data[3] << 24);
    m = data + 4;
    lm = l < size - 4 ? l : size - 4;
  }
  fuzz_write_file(meta_path, m, lm);
  fuzz_write_file(prof_path, m + lm, size - (size_t)(m - data) - lm);
  cct_writer w;
  memset(&w, 0, sizeof w);
  cct_err err = CCT_ERR_INIT;
  int rc = cct_read_v4(dir, &w, &err);
  /* errors are fine; they must come with a message and a known code */
  if (rc != CCT_OK) CHECK(err.code == rc && err.msg[0] && strchr(err.msg, '\n') == NULL);
  if (rc == CCT_OK) CHECK(w.depth == 0 && w.entered > 0);
  idset_free(&w.modules);
  idset_free(&w.files);
  idset_free(&w.functions);
  idset_free(&w.contexts);
  return 0;
}
