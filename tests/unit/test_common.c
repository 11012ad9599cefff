/* test_common.c: tests of the private utility layer (common/): growth with
 * overflow checks, the hash map, basename, Levenshtein distance, number
 * formatting under a host locale with a comma decimal point, and the names of
 * the archive's codes.  Expected values are worked out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cct_kinds.h"
#include "cct_schema.h"
#include "cct_shorten.h"
#include "cct_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

static void test_grow(void **state) {
  (void)state;
  int *a = NULL;
  size_t cap = 0;
  for (int i = 0; i < 1000; i++) {
    assert_int_equal(CCT_GROW(a, (size_t)i + 1, cap), 0);
    assert_true(cap >= (size_t)i + 1);
    a[i] = i * 7;
  }
  for (int i = 0; i < 1000; i++) assert_int_equal(a[i], i * 7);
  assert_true(cap < 4096); /* doubling, not one slot at a time nor wild overshoot */
  /* no change when there is room */
  int *before = a;
  size_t cap0 = cap;
  assert_int_equal(CCT_GROW(a, 10, cap), 0);
  assert_ptr_equal(a, before);
  assert_int_equal(cap, cap0);
  /* a size that overflows fails and leaves the array as it was */
  assert_int_equal(CCT_GROW(a, SIZE_MAX / 2, cap), -1);
  assert_ptr_equal(a, before);
  assert_int_equal(cap, cap0);
  assert_int_equal(a[999], 999 * 7);
  free(a);
  /* the checked multiply and realloc */
  size_t out = 5;
  assert_int_equal(cct_mul(SIZE_MAX / 3 + 1, 3, &out), -1);
  assert_int_equal(out, 5);
  assert_int_equal(cct_mul(1u << 20, 1u << 10, &out), 0);
  assert_int_equal(out, (size_t)1 << 30);
  assert_null(cct_reallocarray(NULL, SIZE_MAX / 4, 8));
  assert_int_equal(cct_grow_cap(0, 1, 8), 16);
  assert_int_equal(cct_grow_cap(16, 17, 8), 32);
  assert_int_equal(cct_grow_cap(16, 100, 8), 100);
  assert_int_equal(cct_grow_cap(0, SIZE_MAX / 4, 8), 0);
  /* zeroed growth (the writer's module and file paths): new slots are NULL, the
   * old ones kept; on failure the old array stays (the writer's own grow_array
   * returned NULL there and its callers overwrote, so leaked, the array) */
  char **s = NULL;
  size_t scap = 0;
  assert_int_equal(CCT_GROW_ZERO(s, 3, scap), 0);
  for (size_t i = 0; i < scap; i++) assert_null(s[i]);
  s[2] = strdup("kept");
  size_t scap0 = scap;
  assert_int_equal(CCT_GROW_ZERO(s, scap0 + 1, scap), 0);
  assert_true(scap > scap0);
  assert_string_equal(s[2], "kept");
  for (size_t i = scap0; i < scap; i++) assert_null(s[i]);
  char **sbefore = s;
  size_t scap1 = scap;
  assert_int_equal(CCT_GROW_ZERO(s, SIZE_MAX / 2, scap), -1);
  assert_ptr_equal(s, sbefore);
  assert_int_equal(scap, scap1);
  assert_string_equal(s[2], "kept");
  free(s[2]);
  free(s);
}

static void test_hmap(void **state) {
  (void)state;
  cct_hmap m = CCT_HMAP_INIT(5);
  int added;
  int64_t k[5];
  assert_null(cct_hmap_get(&m, (int64_t[5]){1, 2, 3, 4, 5}));
  for (int64_t i = 0; i < 50000; i++) {
    int64_t key[5] = {i, i % 3, -i, 7, i >> 4};
    int64_t *v = cct_hmap_put(&m, key, i * 10, &added);
    assert_non_null(v);
    assert_int_equal(added, 1);
  }
  assert_int_equal(m.count, 50000);
  assert_true(m.cap >= 50000 * 4 / 3 && (m.cap & (m.cap - 1)) == 0);
  for (int64_t i = 0; i < 50000; i += 97) {
    int64_t key[5] = {i, i % 3, -i, 7, i >> 4};
    int64_t *v = cct_hmap_get(&m, key);
    assert_non_null(v);
    assert_int_equal(*v, i * 10);
  }
  /* keys differing in one word only are different */
  memcpy(k, (int64_t[5]){42, 0, -42, 7, 2}, sizeof k);
  assert_non_null(cct_hmap_get(&m, k));
  k[4] = 3;
  assert_null(cct_hmap_get(&m, k));
  /* an existing key keeps its value; the address writes through */
  int64_t *v = cct_hmap_put(&m, (int64_t[5]){42, 0, -42, 7, 2}, -1, &added);
  assert_int_equal(added, 0);
  assert_int_equal(*v, 420);
  *v = 5;
  assert_int_equal(*cct_hmap_get(&m, (int64_t[5]){42, 0, -42, 7, 2}), 5);
  cct_hmap_release(&m);
  assert_int_equal(m.count, 0);
  assert_null(cct_hmap_get(&m, (int64_t[5]){42, 0, -42, 7, 2}));
  /* reusable after release, with one-word keys too */
  cct_hmap one = CCT_HMAP_INIT(1);
  assert_non_null(cct_hmap_put(&one, (int64_t[1]){INT64_MIN}, 3, &added));
  assert_int_equal(*cct_hmap_get(&one, (int64_t[1]){INT64_MIN}), 3);
  assert_null(cct_hmap_get(&one, (int64_t[1]){0}));
  cct_hmap_release(&one);
  /* FNV-1a 64 of "a" (published test vector) */
  assert_true(cct_hash_str("a") == 0xaf63dc4c8601ec8cull);
  assert_true(cct_hash_str(NULL) == cct_hash_str(""));
}

static void test_basename(void **state) {
  (void)state;
  assert_string_equal(cct_basename("/usr/lib/libc.so.6"), "libc.so.6");
  assert_string_equal(cct_basename("libc.so.6"), "libc.so.6");
  assert_string_equal(cct_basename("dir/"), "");
  assert_null(cct_basename(NULL));
}

static void test_levenshtein(void **state) {
  (void)state;
  assert_int_equal(cct_levenshtein("kitten", "sitting", 99), 3);
  assert_int_equal(cct_levenshtein("", "abc", 99), 3);
  assert_int_equal(cct_levenshtein("TopDown", "topdown", 99), 0); /* case-insensitive */
  assert_int_equal(cct_levenshtein("flat", "falt", 99), 2);        /* a transposition is two edits */
  assert_int_equal(cct_levenshtein("kitten", "sitting", 2), 2);    /* capped */
  assert_int_equal(cct_levenshtein("a", "abcdefghij", 4), 4);      /* capped by the length difference */
  /* long words (more than a stack row): one substitution in 300 characters */
  char a[301], b[301];
  memset(a, 'x', 300);
  a[300] = 0;
  memcpy(b, a, sizeof b);
  b[150] = 'y';
  assert_int_equal(cct_levenshtein(a, b, 99), 1);
}

/* An embedding host with a comma locale must not change what is written. */
static void test_numbers_locale(void **state) {
  (void)state;
  char buf[64];
  assert_int_equal(cct_fmt_double(buf, sizeof buf, "%.3f", 1234.5), 8);
  assert_string_equal(buf, "1234.500");
  if (!test_comma_locale()) skip();
  snprintf(buf, sizeof buf, "%.1f", 2.5);
  assert_string_equal(buf, "2,5"); /* the host locale is in effect */
  assert_int_equal(cct_fmt_double(buf, sizeof buf, "%.3f", 1234.5), 8);
  assert_string_equal(buf, "1234.500");
  cct_fmt_double(buf, sizeof buf, "%.17g", 0.1);
  assert_string_equal(buf, "0.10000000000000001");
  cct_fmt_double(buf, sizeof buf, "%g", HUGE_VAL);
  assert_string_equal(buf, "inf");
  cct_c_numeric s = cct_c_numeric_begin();
  snprintf(buf, sizeof buf, "%.1f|%g", 2.5, 0.25);
  assert_string_equal(buf, "2.5|0.25");
  cct_c_numeric_end(s);
  snprintf(buf, sizeof buf, "%.1f", 2.5);
  assert_string_equal(buf, "2,5"); /* the host's locale is back */
  cct_err e = CCT_ERR_INIT; /* the libraries' messages too */
  cct_err_set(&e, CCT_ECORRUPT, "total %g exceeds %.2f", 1.5, 2.25);
  assert_string_equal(e.msg, "total 1.5 exceeds 2.25");
  setlocale(LC_ALL, "C");
}

static void test_kinds(void **state) {
  (void)state;
  /* the values stored in the archive (schema/base.sql: context.kind, context.relation) */
  assert_int_equal(CCT_KIND_ROOT, 0);
  assert_int_equal(CCT_KIND_INSTRUCTION, 4);
  assert_string_equal(cct_kind_name(CCT_KIND_LOOP), "loop");
  assert_string_equal(cct_kind_name(5), "?");
  assert_string_equal(cct_relation_name(CCT_REL_INLINED), "inlined");
  assert_string_equal(cct_scope_name(CCT_EXCLUSIVE_LEX), "exclusive_lex");
  assert_string_equal(cct_scope_name(-1), "?");
  /* the archive's CHECK constraints accept exactly these codes */
  sqlite3 *db = NULL;
  assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
  cct_err e = CCT_ERR_INIT;
  assert_int_equal(cct_schema_exec(db, cct_sql_base, &e), CCT_OK);
  for (int kind = -1; kind <= CCT_KIND_COUNT; kind++)
    for (int rel = -1; rel <= CCT_REL_COUNT; rel++) {
      char sql[300];
      snprintf(sql, sizeof sql, "INSERT INTO context(run, id, depth, kind, relation, last, frame, fdepth, ldepth, nframes, "
                                "inclusive, exclusive, exclusive_lex) VALUES (1, %d, 0, %d, %d, 0, 0, 0, 0, 0, 0, 0, 0)",
               (kind + 1) * 10 + rel + 1, kind, rel);
      int ok = kind >= 0 && kind < CCT_KIND_COUNT && rel >= 0 && rel < CCT_REL_COUNT;
      assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), ok ? SQLITE_OK : SQLITE_CONSTRAINT);
    }
  for (int kind = -1; kind <= CCT_TOTAL_COUNT; kind++) { /* scope_total.kind: CCT_TOTAL_* */
    char sql[200];
    snprintf(sql, sizeof sql, "INSERT INTO scope_total VALUES (1, %d, 1, 0, 1, 1.0, 1.0, 1)", kind);
    int ok = kind >= 0 && kind < CCT_TOTAL_COUNT;
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), ok ? SQLITE_OK : SQLITE_CONSTRAINT);
  }
  sqlite3_close(db);
}

/* The metric a run opens on, and whose values the writer keeps beside each context. */
/* cct_shorten on one name at a width; checks the text. */
static void expect_short(const char *name, int width, const char *want) {
  char *t = cct_shorten(name, width);
  assert_non_null(t);
  assert_string_equal(t, want);
  free(t);
}

/* Names cut to a width (issue 27 item 2), each worked out by hand from the
 * rules of cct_shorten.h: the module first, parameter lists, template
 * arguments, qualifiers from the left, then the middle. */
static void test_shorten(void **state) {
  (void)state;
  expect_short("main", 30, "main");                             /* fits: unchanged */
  expect_short("grid_fillguardcells_", 30, "grid_fillguardcells_"); /* Fortran */
  expect_short("__hydro_module_MOD_hydro_1d_sweep_", 20, "__hydro_m...d_sweep_"); /* no structure: the middle (9 + 3 + 8) */
  expect_short("abcdefgh", 4, "abcd");                          /* under 5 columns: the end */
  /* the module shrinks first: 30 - 'gomp_thread_start' (17) leaves ' [' + 7 + '...]' */
  expect_short("gomp_thread_start [libgomp.so.1.0.0]", 30, "gomp_thread_start [libgomp...]");
  expect_short("gomp_thread_start [libgomp.so.1.0.0]", 23, "gomp_thread_start [...]");
  expect_short("gomp_thread_start [libgomp.so.1.0.0]", 20, "gomp_thread_start"); /* no room even for [...] */
  /* hpcprof's unknown procedures keep their address: 36 - 27 leaves ' [lib...]' */
  expect_short("<unknown procedure> 0x10209 [libpsm_infinipath.so.1.16]", 36, "<unknown procedure> 0x10209 [lib...]");
  expect_short("<unknown procedure> 0x10209 [libpsm_infinipath.so.1.16]", 20, "<unknown ... 0x10209");
  /* deep rows leave 12 columns: the address stays whole (it was '<unkn...0209') */
  expect_short("<unknown procedure> 0x10209 [libpsm_infinipath.so.1.16]", 12, "<u...0x10209");
  expect_short("<unknown procedure> 0x1a2b3c4d5e [libpsm_infinipath.so.1.16]", 12, "<unkn...4d5e");
  expect_short("window 0x", 8, "win...0x");
  /* a name too wide even without its '(...)' is cut in its middle without it: both
   * ends of the function's name (LULESH at 80 columns; it was 'CalcHou...ms(...)') */
  expect_short("CalcHourglassControlForElems(Domain&, double*, double)", 17, "CalcHou...orElems");
  /* loops: 'loop at' reads 'loop' before any cut, and a cut keeps the address (issue 27 item 5) */
  expect_short("loop at loops.c:1010 (+0x14d5)", 27, "loop loops.c:1010 (+0x14d5)");
  expect_short("loop at loops.c:1010 (+0x14d5)", 25, "loop l...c:1010 (+0x14d5)"); /* 15 + 10 */
  expect_short("loop at [libgomp.so.1.0.0]+0x1f5a0", 31, "loop [libgomp.so.1.0.0]+0x1f5a0");
  expect_short("loop at [libgomp.so.1.0.0]+0x1f5a0", 20, "loop [lib...+0x1f5a0"); /* 9 + 3 + 8 */
  /* C++: parameter lists, then templates, then qualifiers */
  const char *lmp = "LAMMPS_NS::PairLJCutOMP::eval<0, 0, 1>(int, int, LAMMPS_NS::ThrData*) [inlined]";
  expect_short(lmp, 60, "LAMMPS_NS::PairLJCutOMP::eval<0, 0, 1>(...) [inlined]"); /* 43 + 10 */
  expect_short(lmp, 49, "LAMMPS_NS::PairLJCutOMP::eval<...>(...) [inlined]");
  expect_short(lmp, 40, "PairLJCutOMP::eval<...>(...) [inlined]");
  expect_short(lmp, 30, "eval<...>(...) [inlined]");
  expect_short("std::vector<int, std::allocator<int> >::push_back(int const&)", 30, "vector<...>::push_back(...)");
  /* a short parameter list '(int)' stays (nothing to gain from '(...)') */
  expect_short("LAMMPS_NS::NeighList::vgot(int) [liblammps.so.0]", 20, "vgot(int) [libla...]"); /* 9 + 11 */
  /* operators: 'operator()' and 'operator<<' are names, not groups */
  expect_short("operator<<(std::ostream&, Vec const&)", 20, "operator<<(...)");
  expect_short("Vec::operator<(Vec const&) const", 25, "Vec::operator<(...) const"); /* an operator keeps its class */
  expect_short("main::{lambda(int)#1}::operator()(int) const", 40, "{lambda(int)#1}::operator()(int) const");
  expect_short("std::operator<< <std::char_traits<char> >(std::basic_ostream<char, std::char_traits<char> >&, char const*)",
               40, "std::operator<< <...>(...)");
  /* tags stay: the call site and the location */
  expect_short("bar(int, double) @ foo.c:12", 20, "bar(...) @ foo.c:12");
  expect_short("LAMMPS_NS::PairLJCutOMP::compute(int, int) [clone ._omp_fn.0] [liblammps.so.0]", 34,
               "compute(...) [clone ._omp_fn.0]");
  expect_short("solve(double*, int) (gauss_mpi.cpp:77)", 30, "solve(...) (gauss_mpi.cpp:77)");

  /* Several names: what tells them apart stays.  LAMMPS' two instances of
   * eval: their template arguments stay, their qualifiers go. */
  const char *two[] = {lmp, "LAMMPS_NS::PairLJCutOMP::eval<1, 1, 1>(int, int, LAMMPS_NS::ThrData*) [liblammps.so.0]"};
  int w2[] = {37, 45};
  char *out[3];
  assert_int_equal(cct_shorten_all(two, w2, 2, out), 0);
  assert_string_equal(out[0], "eval<0, 0, 1>(...) [inlined]");
  assert_string_equal(out[1], "PairLJCutOMP::eval<1, 1, 1>(...) [liblamm...]"); /* 32 + ' [' 7 '...]' */
  free(out[0]), free(out[1]);
  /* overloads: the parameter lists stay (cut in their middle: 3 + 3 + 2) */
  const char *ov[] = {"f(int, int, int)", "f(double, double)", "g(int, int, int)"};
  int w3[] = {8, 8, 8};
  assert_int_equal(cct_shorten_all(ov, w3, 3, out), 0);
  assert_string_equal(out[0], "f(i...t)");
  assert_string_equal(out[1], "f(d...e)");
  assert_string_equal(out[2], "g(...)");
  for (int i = 0; i < 3; i++) free(out[i]);
  /* one name in two classes: the class stays; the same name twice is no conflict */
  const char *cls[] = {"A::run(int, int)", "B::run(int, int)", "A::run(int, int)"};
  assert_int_equal(cct_shorten_all(cls, w3, 3, out), 0);
  assert_string_equal(out[0], "A::....)"); /* 'A::run(...)' in its middle: 3 + 3 + 2 */
  assert_string_equal(out[1], "B::....)");
  assert_string_equal(out[2], "A::....)");
  for (int i = 0; i < 3; i++) free(out[i]);
  int w12[] = {12, 12, 12};
  assert_int_equal(cct_shorten_all(cls, w12, 3, out), 0);
  assert_string_equal(out[0], "A::run(...)");
  assert_string_equal(out[1], "B::run(...)");
  assert_string_equal(out[2], "A::run(...)");
  for (int i = 0; i < 3; i++) free(out[i]);
  /* one name in two binaries: the modules keep their ends (20 - 9 leaves ' [...' 5 ']') */
  const char *mods[] = {"_int_free [libc-2.28.so]", "_int_free [libc-2.31.so]"};
  int w20[] = {20, 20};
  assert_int_equal(cct_shorten_all(mods, w20, 2, out), 0);
  assert_string_equal(out[0], "_int_free [...28.so]");
  assert_string_equal(out[1], "_int_free [...31.so]");
  free(out[0]), free(out[1]);
}

static void test_metric_rank(void **state) {
  (void)state;
  assert_int_equal(cct_metric_rank("CPUTIME (usec)"), 0);
  assert_int_equal(cct_metric_rank("cputime (sec)"), 0);
  assert_int_equal(cct_metric_rank("REALTIME (sec)"), 1);
  assert_int_equal(cct_metric_rank("PAPI_TOT_CYC"), 2);
  assert_int_equal(cct_metric_rank("perf::CYCLES"), 2);
  assert_int_equal(cct_metric_rank("GPUOP (sec)"), 3);
  assert_int_equal(cct_metric_rank("GKER (sec)"), 4);
  assert_int_equal(cct_metric_rank("perf::task-clock"), 5);
  assert_int_equal(cct_metric_rank("GINS:STL_ANY"), 6);
  assert_int_equal(cct_metric_rank("CPUTIMEX"), 5); /* not CPUTIME: a time event by its name */
  assert_int_equal(cct_metric_rank(NULL), 7);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_grow),       cmocka_unit_test(test_hmap),           cmocka_unit_test(test_basename),
      cmocka_unit_test(test_levenshtein), cmocka_unit_test(test_numbers_locale), cmocka_unit_test(test_kinds), cmocka_unit_test(test_metric_rank),
      cmocka_unit_test(test_shorten),
  };
  return cmocka_run_group_tests(tests, NULL, test_tmpdir_remove);
}
