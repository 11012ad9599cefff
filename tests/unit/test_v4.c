/* test_v4.c: unit tests of the v4 reader (ingest/v4.c): the byte decoders of
 * v4_int.h on hand-made bytes, then cct_read_v4 end to end on the real
 * databases in $CCT_DATA against a recording fake writer (this file defines
 * the cct_writer_* functions, so the real writer is not linked), then damaged
 * copies (truncations, flipped bytes, pointer loops) that must fail cleanly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cct_ingest.h"
#include "ingest_int.h"
#include "test_tmp.h"
#include "v4_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- recording fake writer ---- */
typedef struct rec_ctx {
  cct_context c;
  int64_t parent;
  double v[64][3]; /* first 64 metric columns */
} rec_ctx;

struct cct_writer {
  rec_ctx *ctx;
  size_t nctx, cap;
  int depth;
  int nmetrics;
  int nfunctions;
  long long elided;
  int profiles;
  cct_profile_id last_id; /* source points to last_source */
  char last_source[64];
  double prof_incl[64], prof_excl[64]; /* sums over profiles and contexts */
  size_t prof_values;
  long long progress_done, progress_total;
  cct_err err;
  /* read only below the counts above (depth, nmetrics, nfunctions): reset_writer
     leaves them as they are */
  int64_t stack[20000];
  char names[256][64], stats[256][16];
  int has_lex[256];
  int64_t fn_id[4096];
  char fn_name[4096][64];
};

int cct_writer_module(cct_writer *w, int64_t id, const char *path) {
  (void)w, (void)id, (void)path;
  return CCT_OK;
}

int cct_writer_file(cct_writer *w, int64_t id, const char *path, const char *src_path) {
  (void)w, (void)id, (void)path, (void)src_path;
  return CCT_OK;
}

int cct_writer_function(cct_writer *w, int64_t id, const char *name, int64_t module, int64_t file, int64_t line) {
  (void)module, (void)file, (void)line;
  if (w->nfunctions < 4096) {
    w->fn_id[w->nfunctions] = id;
    snprintf(w->fn_name[w->nfunctions], 64, "%s", name);
  }
  w->nfunctions++;
  return CCT_OK;
}

int cct_writer_metric(cct_writer *w, const char *name, const char *stat, const char *description, int has_lex,
                      cct_err *err) {
  (void)description, (void)err;
  if (w->nmetrics < 256) {
    snprintf(w->names[w->nmetrics], 64, "%s", name);
    snprintf(w->stats[w->nmetrics], 16, "%s", stat);
    w->has_lex[w->nmetrics] = has_lex;
  }
  return w->nmetrics++;
}

int cct_writer_enter(cct_writer *w, const cct_context *c) {
  if (w->nctx == w->cap) {
    w->cap = w->cap ? 2 * w->cap : 64;
    w->ctx = realloc(w->ctx, w->cap * sizeof *w->ctx);
    assert_non_null(w->ctx);
  }
  rec_ctx *r = &w->ctx[w->nctx++];
  memset(r, 0, sizeof *r);
  r->c = *c;
  r->parent = w->depth ? w->stack[w->depth - 1] : -1;
  assert_true(w->depth < 20000);
  w->stack[w->depth++] = (int64_t)(w->nctx - 1);
  return CCT_OK;
}

int cct_writer_value(cct_writer *w, int m, int which, double v) {
  assert_true(w->depth > 0);
  assert_true(m >= 0 && m < w->nmetrics && which >= 0 && which < 3);
  if (m < 64) w->ctx[w->stack[w->depth - 1]].v[m][which] = v;
  return CCT_OK;
}

int cct_writer_exit(cct_writer *w) {
  assert_true(w->depth > 0);
  w->depth--;
  return CCT_OK;
}

void cct_writer_note_elided(cct_writer *w, long long n) { w->elided = n; }

int cct_writer_profile(cct_writer *w, const cct_profile_id *id) {
  w->profiles++;
  w->last_id = *id;
  snprintf(w->last_source, sizeof w->last_source, "%s", id->source); /* the reader's buffer is temporary */
  w->last_id.source = w->last_source;
  return CCT_OK;
}

int cct_writer_profile_values(cct_writer *w, int m, size_t n, const uint32_t *ctx, const double *incl,
                              const double *excl) {
  assert_true(m >= 0 && m < w->nmetrics);
  for (size_t i = 0; i < n; i++) {
    if (i) assert_true(ctx[i] > ctx[i - 1]);
    if (m < 64 && ctx[i] == 0) { /* root: its inclusive is the profile's total */
      w->prof_incl[m] += incl[i];
    }
    if (m < 64) w->prof_excl[m] += excl[i];
  }
  w->prof_values += n;
  return CCT_OK;
}

void cct_writer_progress(cct_writer *w, long long bytes_done, long long bytes_total) {
  assert_true(bytes_done >= w->progress_done && bytes_done <= bytes_total);
  w->progress_done = bytes_done;
  w->progress_total = bytes_total;
}

cct_err *cct_writer_err(cct_writer *w) { return &w->err; }

static cct_writer *new_writer(void) {
  cct_writer *w = calloc(1, sizeof *w);
  assert_non_null(w);
  return w;
}

/* w as new_writer made it, its context array's memory kept (the damaged-copy loops
 * run the reader ten thousand times: clearing the whole 450 KB writer each time was
 * most of this test's time). */
static void reset_writer(cct_writer *w) {
  rec_ctx *ctx = w->ctx;
  size_t cap = w->cap;
  memset(w, 0, offsetof(cct_writer, stack));
  w->ctx = ctx;
  w->cap = cap;
}

static void free_writer(cct_writer *w) {
  if (!w) return;
  free(w->ctx);
  free(w);
}

/* ---- helpers ---- */
static char *data_path(const char *rel) {
  const char *d = getenv("CCT_DATA");
  static char buf[4096];
  snprintf(buf, sizeof buf, "%s/%s", d ? d : "tests/data", rel);
  return buf;
}

static uint8_t *load(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) fail_msg("cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *p = malloc((size_t)len + 1);
  assert_non_null(p);
  assert_int_equal(fread(p, 1, (size_t)len, f), (size_t)len);
  fclose(f);
  *n = (size_t)len;
  return p;
}

static void store(const char *path, const uint8_t *p, size_t n) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  if (n) assert_int_equal(fwrite(p, 1, n, f), n);
  fclose(f);
}

static uint64_t rd64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}

static void wr64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* A scratch database directory holding the given meta.db / profile.db bytes, and
 * the writer the reader runs into.  A file is written only when its bytes change
 * (the damaged-copy loops change one file at a time). */
typedef struct scratch {
  char dir[256], meta[300], prof[300];
  uint8_t *meta_bytes, *prof_bytes; /* what the files hold; prof_bytes NULL: no profile.db */
  size_t nmeta, nprof;
  cct_writer *w;
} scratch;

static void scratch_init(scratch *s) {
  memset(s, 0, sizeof *s);
  snprintf(s->dir, sizeof s->dir, "%s/test_v4.XXXXXX", test_tmp_root());
  assert_non_null(mkdtemp(s->dir));
  snprintf(s->meta, sizeof s->meta, "%s/meta.db", s->dir);
  snprintf(s->prof, sizeof s->prof, "%s/profile.db", s->dir);
  s->w = new_writer();
}

static void scratch_done(scratch *s) {
  unlink(s->meta);
  unlink(s->prof);
  rmdir(s->dir);
  free(s->meta_bytes);
  free(s->prof_bytes);
  free_writer(s->w);
}

/* Makes path hold the n bytes p (p NULL: no file), *held and *nheld being what it holds. */
static void store_changed(const char *path, uint8_t **held, size_t *nheld, const uint8_t *p, size_t n) {
  if (!p) {
    unlink(path);
    free(*held);
    *held = NULL;
    return;
  }
  if (*held && *nheld == n && memcmp(*held, p, n) == 0) return;
  store(path, p, n);
  free(*held);
  *held = malloc(n ? n : 1);
  assert_non_null(*held);
  memcpy(*held, p, n);
  *nheld = n;
}

/* Runs the reader on (meta, prof) bytes; prof NULL leaves profile.db absent. */
static int run_bytes(scratch *s, const uint8_t *meta, size_t nm, const uint8_t *prof, size_t np, cct_err *err) {
  store_changed(s->meta, &s->meta_bytes, &s->nmeta, meta, nm);
  store_changed(s->prof, &s->prof_bytes, &s->nprof, prof, np);
  reset_writer(s->w);
  *err = (cct_err)CCT_ERR_INIT;
  int rc = cct_read_v4(s->dir, s->w, err);
  if (rc) {
    assert_int_equal(err->code, rc);
    assert_true(err->msg[0] != 0);
  }
  return rc;
}

/* ---- decoders ---- */
static void test_header(void **state) {
  (void)state;
  size_t n;
  uint8_t *p = load(data_path("v4-hpctoolkit-small_v4.0/meta.db"), &n);
  cct_err err = CCT_ERR_INIT;
  assert_int_equal(cct_v4_check_header(p, n, "meta", 8, "m", &err), CCT_OK);
  assert_int_equal(cct_v4_check_header(p, n, "prof", 2, "m", &err), CCT_ECORRUPT); /* wrong format id */
  assert_non_null(strstr(err.msg, "wrong format id"));

  err = (cct_err)CCT_ERR_INIT;
  p[14] = 5;
  assert_int_equal(cct_v4_check_header(p, n, "meta", 8, "db/meta.db", &err), CCT_EFORMAT);
  assert_string_equal(err.msg, "'db/meta.db': unsupported version 5.0; this build reads 4.x");
  p[14] = 4;

  err = (cct_err)CCT_ERR_INIT;
  p[0] = 'X';
  assert_int_equal(cct_v4_check_header(p, n, "meta", 8, "m", &err), CCT_ECORRUPT);
  p[0] = 'H';

  err = (cct_err)CCT_ERR_INIT;
  assert_int_equal(cct_v4_check_header(p, n - 1, "meta", 8, "m", &err), CCT_ECORRUPT); /* footer */

  err = (cct_err)CCT_ERR_INIT;
  assert_int_equal(cct_v4_check_header(p, 0x200, "meta", 8, "db/meta.db", &err), CCT_ECORRUPT);
  assert_non_null(strstr(err.msg, "section ends past end of file"));

  err = (cct_err)CCT_ERR_INIT;
  assert_int_equal(cct_v4_check_header(p, 20, "meta", 8, "m", &err), CCT_ECORRUPT);

  err = (cct_err)CCT_ERR_INIT;
  wr64(p + 0x18 + 16 * 3, (uint64_t)-8); /* context tree pointer wraps around */
  assert_int_equal(cct_v4_check_header(p, n, "meta", 8, "m", &err), CCT_ECORRUPT);

  err = (cct_err)CCT_ERR_INIT;
  static const uint8_t prof2[] = "HPCPROF-profdb__4.0";
  assert_int_equal(cct_v4_check_header(prof2, sizeof prof2, "prof", 2, "p", &err), CCT_EFORMAT);
  assert_non_null(strstr(err.msg, "prof2"));
  free(p);
}

static void test_flex(void **state) {
  (void)state;
  uint8_t w[5 * 8];
  memset(w, 0, sizeof w);
  wr64(w, 0x1111);      /* function */
  wr64(w + 8, 0x2222);  /* file */
  wr64(w + 16, 42);     /* line, in its own word */
  wr64(w + 24, 0x3333); /* module */
  wr64(w + 32, 0x4444); /* offset */
  cct_v4_flex f;
  assert_int_equal(cct_v4_decode_flex(7, w, 5, &f), 0);
  assert_true(f.has_function && f.has_srcloc && f.has_point);
  assert_int_equal(f.function, 0x1111);
  assert_int_equal(f.file, 0x2222);
  assert_int_equal(f.line, 42);
  assert_int_equal(f.module, 0x3333);
  assert_int_equal(f.offset, 0x4444);

  assert_int_equal(cct_v4_decode_flex(6, w, 4, &f), 0); /* binary loop: file, line, module, offset */
  assert_false(f.has_function);
  assert_int_equal(f.file, 0x1111);
  assert_int_equal(f.line, 0x2222);
  assert_int_equal(f.module, 42);
  assert_int_equal(f.offset, 0x3333);

  assert_int_equal(cct_v4_decode_flex(4, w, 2, &f), 0); /* instruction */
  assert_int_equal(f.module, 0x1111);
  assert_int_equal(f.offset, 0x2222);

  assert_int_equal(cct_v4_decode_flex(0, w, 0, &f), 0);
  assert_false(f.has_function || f.has_srcloc || f.has_point);
  assert_int_equal(cct_v4_decode_flex(3, w, 2, &f), -1); /* needs 3 words */
  assert_int_equal(cct_v4_decode_flex(4, w, 1, &f), -1);
}

/* A 32-byte block at 0, values at 32 (3 x 10 B), index at 62 (2 x 12 B). */
static size_t make_block(uint8_t *b) {
  memset(b, 0, 128);
  wr64(b, 3);
  wr64(b + 8, 32);
  b[16] = 2;
  wr64(b + 24, 62);
  for (int j = 0; j < 3; j++) {
    uint8_t *v = b + 32 + 10 * j;
    v[0] = (uint8_t)(j + 1);
    double d = 1.5 * (j + 1);
    uint64_t u;
    memcpy(&u, &d, 8);
    wr64(v + 2, u);
  }
  b[62] = 0; /* ctx 0 starts at 0 */
  wr64(b + 66, 0);
  b[74] = 7; /* ctx 7 starts at 2 */
  wr64(b + 78, 2);
  return 86;
}

static void test_block(void **state) {
  (void)state;
  uint8_t b[128];
  size_t n = make_block(b);
  cct_err err = CCT_ERR_INIT;
  cct_v4_block blk;
  assert_int_equal(cct_v4_decode_block(b, n, 0, &blk, "p", "profile 0", &err), CCT_OK);
  assert_int_equal(blk.nctxs, 2);
  uint32_t ctx;
  uint64_t first, end;
  cct_v4_block_ctx(b, &blk, 0, &ctx, &first, &end);
  assert_int_equal(ctx, 0);
  assert_int_equal(first, 0);
  assert_int_equal(end, 2);
  cct_v4_block_ctx(b, &blk, 1, &ctx, &first, &end);
  assert_int_equal(ctx, 7);
  assert_int_equal(first, 2);
  assert_int_equal(end, 3);
  uint16_t m;
  double v;
  cct_v4_block_value(b, &blk, 2, &m, &v);
  assert_int_equal(m, 3);
  assert_true(v == 4.5);

  assert_int_equal(cct_v4_decode_block(b, n - 1, 0, &blk, "p", "profile 0", &err), CCT_ECORRUPT); /* index cut */
  err = (cct_err)CCT_ERR_INIT;
  assert_int_equal(cct_v4_decode_block(b, n, 60, &blk, "p", "profile 0", &err), CCT_ECORRUPT); /* block cut */
  err = (cct_err)CCT_ERR_INIT;
  b[74] = 0; /* ctx ids not ascending */
  assert_int_equal(cct_v4_decode_block(b, n, 0, &blk, "p", "profile 0", &err), CCT_ECORRUPT);
  assert_non_null(strstr(err.msg, "not ascending"));
  n = make_block(b);
  err = (cct_err)CCT_ERR_INIT;
  wr64(b + 78, 4); /* start index past nValues */
  assert_int_equal(cct_v4_decode_block(b, n, 0, &blk, "p", "profile 0", &err), CCT_ECORRUPT);
  n = make_block(b);
  err = (cct_err)CCT_ERR_INIT;
  wr64(b, UINT64_MAX / 5); /* nValues * 10 overflows */
  assert_int_equal(cct_v4_decode_block(b, n, 0, &blk, "p", "profile 0", &err), CCT_ECORRUPT);
}

/* ---- end to end on the real samples ---- */
typedef struct sample {
  const char *dir;
  size_t contexts; /* root and entry points included */
  long long elided;
  int profiles;
  int metrics; /* writer columns */
} sample;

static const sample samples[] = {
    {"v4-hpctoolkit-small_v4.0", 15, 6, 1, 10},
    {"v4-hatchet-cpi", 206, 85, 16, 1},
    {"v4-hpcviewer-loop-fork-cycles", 40, 24, 2, 1},
    {"v4-pipit-ping-pong", 118, 60, 2, 1},
    {"v4-hpctoolkit-tests-dbase/small.d", 14, 8, 1, 1},
    {"v4-hpctoolkit-tests-dbase/loops-cputime-t.d", 119, 127, 4, 1},
    {"v4-hpctoolkit-tests-dbase/loops-cuda-nvidia-t.d", 19, 3, 2, 53},
};

static void test_samples(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
    const sample *s = &samples[i];
    cct_writer *w = new_writer();
    cct_err err = CCT_ERR_INIT;
    int rc = cct_read_v4(data_path(s->dir), w, &err);
    if (rc) fail_msg("%s: %s", s->dir, err.msg);
    assert_int_equal(w->depth, 0);
    assert_int_equal(w->nctx, s->contexts);
    assert_int_equal(w->elided, s->elided);
    assert_int_equal(w->profiles, s->profiles);
    assert_int_equal(w->nmetrics, s->metrics);
    assert_true(w->progress_total > 0 && w->progress_done == w->progress_total);
    /* the root first, entry points below it are function contexts */
    assert_int_equal(w->ctx[0].c.kind, CCT_KIND_ROOT);
    assert_int_equal(w->ctx[0].c.id, 0);
    size_t callsites = 0;
    for (size_t c = 1; c < w->nctx; c++) {
      const rec_ctx *r = &w->ctx[c];
      assert_true(r->parent >= 0);
      if (r->parent == 0) assert_int_equal(r->c.kind, CCT_KIND_FUNCTION);
      if (r->c.kind == CCT_KIND_FUNCTION) assert_true(r->c.function != CCT_NONE);
      if (r->c.callsite) {
        callsites++;
        assert_int_equal(r->c.kind, CCT_KIND_LINE);
      }
    }
    if (s->contexts > 20) assert_true(callsites > 0);
    /* every sum column: the profiles' root inclusive values add up to the summary's */
    for (int m = 0; m < w->nmetrics && m < 64; m++) {
      if (strcmp(w->stats[m], "sum") != 0) continue;
      double sum = w->ctx[0].v[m][CCT_INCLUSIVE];
      if (fabs(sum - w->prof_incl[m]) > 1e-9 * fmax(1.0, fabs(sum)))
        fail_msg("%s: metric %s: summary root %g, profiles add up to %g", s->dir, w->names[m], sum, w->prof_incl[m]);
    }
    free_writer(w);
  }
}

static void test_small_details(void **state) {
  (void)state;
  cct_writer *w = new_writer();
  cct_err err = CCT_ERR_INIT;
  assert_int_equal(cct_read_v4(data_path("v4-hpctoolkit-small_v4.0"), w, &err), CCT_OK);
  /* columns: per metric 'sum' first, then the other statistics */
  assert_string_equal(w->names[0], "cycles");
  assert_string_equal(w->stats[0], "sum");
  const char *stats[] = {"sum", "count", "sumsq", "min", "max"};
  for (int i = 0; i < 5; i++) {
    int found = 0;
    for (int m = 0; m < 5; m++) found |= strcmp(w->stats[m], stats[i]) == 0;
    assert_true(found);
  }
  assert_string_equal(w->names[5], "instructions");
  assert_false(w->has_lex[0]); /* the 2022 test database has no lex_aware scope */
  /* entry points are declared as functions by their pretty names */
  int unknown = 0, main_thread = 0;
  for (int f = 0; f < w->nfunctions; f++) {
    unknown |= strcmp(w->fn_name[f], "unknown entry") == 0;
    main_thread |= strcmp(w->fn_name[f], "main thread") == 0;
  }
  assert_true(unknown && main_thread);
  assert_true(w->last_id.node != -1 && w->last_id.thread == 0 && w->last_id.rank == -1);
  assert_string_equal(w->last_id.source, "profile.db#1");
  free_writer(w);

  w = new_writer();
  assert_int_equal(cct_read_v4(data_path("v4-hatchet-cpi"), w, &err), CCT_OK);
  assert_true(w->has_lex[0]);
  assert_true(w->last_id.rank >= 0 && w->last_id.rank < 16 && w->last_id.core >= 0);
  free_writer(w);
}

static void test_prerelease(void **state) {
  (void)state;
  cct_writer *w = new_writer();
  cct_err err = CCT_ERR_INIT;
  assert_int_equal(cct_read_v4(data_path("v4pre-hpcviewer-loop-inline"), w, &err), CCT_EFORMAT);
  assert_non_null(strstr(err.msg, "pre-release v4 layout"));
  assert_non_null(strstr(err.msg, "meta.db"));
  assert_int_equal(w->nctx, 0);
  free_writer(w);
}

static void test_missing(void **state) {
  (void)state;
  cct_writer *w = new_writer();
  cct_err err = CCT_ERR_INIT;
  assert_int_equal(cct_read_v4("/nonexistent/v4db", w, &err), CCT_EIO);
  assert_non_null(strstr(err.msg, "/nonexistent/v4db/meta.db"));
  free_writer(w);
}

/* ---- damaged copies ---- */
static void test_damaged(void **state) {
  (void)state;
  size_t nm, np;
  uint8_t *meta = load(data_path("v4-hpctoolkit-small_v4.0/meta.db"), &nm);
  uint8_t *prof = load(data_path("v4-hpctoolkit-small_v4.0/profile.db"), &np);
  uint8_t *buf = malloc(nm > np ? nm : np);
  scratch s;
  scratch_init(&s);
  cct_err err;

  assert_int_equal(run_bytes(&s, meta, nm, prof, np, &err), CCT_OK);
  assert_int_equal(run_bytes(&s, meta, nm, NULL, 0, &err), CCT_EIO); /* no profile.db */
  assert_non_null(strstr(err.msg, "profile.db"));

  /* every truncation of either file fails with a clean error */
  for (size_t len = 0; len < nm; len++) {
    int rc = run_bytes(&s, meta, len, prof, np, &err);
    if (rc != CCT_ECORRUPT) fail_msg("meta.db cut at %zu: rc %d (%s)", len, rc, err.msg);
    assert_non_null(strstr(err.msg, "meta.db"));
  }
  for (size_t len = 0; len < np; len++) {
    int rc = run_bytes(&s, meta, nm, prof, len, &err);
    if (rc != CCT_ECORRUPT) fail_msg("profile.db cut at %zu: rc %d (%s)", len, rc, err.msg);
    assert_non_null(strstr(err.msg, "profile.db"));
  }

  /* every single flipped byte: any outcome but a crash; header bytes must fail */
  for (size_t i = 0; i < nm; i++) {
    memcpy(buf, meta, nm);
    buf[i] ^= 0xff;
    int rc = run_bytes(&s, buf, nm, prof, np, &err);
    if ((i < 0x0f || i >= nm - 8) && rc != CCT_ECORRUPT && rc != CCT_EFORMAT)
      fail_msg("meta.db byte %zu flipped: rc %d", i, rc);
  }
  for (size_t i = 0; i < np; i++) {
    memcpy(buf, prof, np);
    buf[i] ^= 0xff;
    int rc = run_bytes(&s, meta, nm, buf, np, &err);
    if ((i < 0x0f || i >= np - 8) && rc != CCT_ECORRUPT && rc != CCT_EFORMAT)
      fail_msg("profile.db byte %zu flipped: rc %d", i, rc);
  }

  /* context tree section pointer past end of file */
  memcpy(buf, meta, nm);
  wr64(buf + 0x18 + 16 * 3, nm + 64);
  assert_int_equal(run_bytes(&s, buf, nm, prof, np, &err), CCT_ECORRUPT);
  assert_non_null(strstr(err.msg, "context tree section ends past end of file"));

  /* a context whose children array contains itself: a pointer loop */
  memcpy(buf, meta, nm);
  uint64_t ctxsec = rd64(buf + 0x18 + 16 * 3);
  uint64_t ep = rd64(buf + ctxsec);
  uint64_t szc = rd64(buf + ep), pc = rd64(buf + ep + 8);
  if (szc == 0) { /* first entry is a leaf: use the second */
    szc = rd64(buf + ep + 32);
    pc = rd64(buf + ep + 40);
  }
  assert_true(szc > 0);
  wr64(buf + pc, szc);
  wr64(buf + pc + 8, pc);
  assert_int_equal(run_bytes(&s, buf, nm, prof, np, &err), CCT_ECORRUPT);
  assert_non_null(strstr(err.msg, "meta.db"));

  /* a function pointer that is not a function record */
  memcpy(buf, meta, nm);
  wr64(buf + pc + 0x20, 1); /* first child's first flex word */
  int rc = run_bytes(&s, buf, nm, prof, np, &err);
  assert_true(rc == CCT_OK || rc == CCT_ECORRUPT);

  /* newer major version */
  memcpy(buf, meta, nm);
  buf[14] = 5;
  assert_int_equal(run_bytes(&s, buf, nm, prof, np, &err), CCT_EFORMAT);
  assert_non_null(strstr(err.msg, "unsupported version 5.0; this build reads 4.x"));

  /* prof2 profile.db */
  memcpy(buf, "HPCPROF-profdb__", 16);
  assert_int_equal(run_bytes(&s, meta, nm, buf, np, &err), CCT_EFORMAT);
  assert_non_null(strstr(err.msg, "prof2"));

  scratch_done(&s);
  free(buf);
  free(meta);
  free(prof);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_header),   cmocka_unit_test(test_flex),          cmocka_unit_test(test_block),
      cmocka_unit_test(test_samples),  cmocka_unit_test(test_small_details), cmocka_unit_test(test_prerelease),
      cmocka_unit_test(test_missing),  cmocka_unit_test(test_damaged),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
