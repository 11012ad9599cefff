/* test_shell.c: unit tests of the cctq shell's pure parts: the command
 * splitter and word splitter (shell_split.c), command look-up, completion
 * kinds (shell.c) and the output primitives (shell_output.c). */
#include "shell_int.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* Splits text into commands joined by '|' into out. */
static void split_all(const char *text, char *out, size_t n, char *last_quote) {
  size_t pos = 0, s, e, len = strlen(text), used = 0;
  char q = 0, lastq = 0;
  out[0] = '\0';
  while (cct_shell_split(text, len, &pos, &s, &e, &q)) {
    lastq = q;
    int k = snprintf(out + used, n - used, "%s%.*s", used ? "|" : "", (int)(e - s), text + s);
    used = k < 0 ? used : used + (size_t)k < n ? used + (size_t)k : n - 1; /* cut at n - 1, as before */
  }
  if (last_quote) *last_quote = lastq;
}

static void test_split_basic(void **state) {
  (void)state;
  char out[256], q;
  split_all("center foo; topdown 3", out, sizeof out, &q);
  assert_string_equal(out, "center foo|topdown 3");
  split_all("  a ;; b\n\nc;  ", out, sizeof out, NULL);
  assert_string_equal(out, "a|b|c");
  split_all("", out, sizeof out, NULL);
  assert_string_equal(out, "");
  split_all(" ; \n ;", out, sizeof out, NULL);
  assert_string_equal(out, "");
}

static void test_split_quotes(void **state) {
  (void)state;
  char out[256], q;
  split_all("center 'operator new(unsigned long)'; top 2", out, sizeof out, &q);
  assert_string_equal(out, "center 'operator new(unsigned long)'|top 2");
  assert_int_equal(q, 0);
  split_all("sql SELECT 'a;b' FROM \"x;\ny\"; runs", out, sizeof out, &q);
  assert_string_equal(out, "sql SELECT 'a;b' FROM \"x;\ny\"|runs");
  split_all("center 'it\"s'", out, sizeof out, &q);
  assert_string_equal(out, "center 'it\"s'");
  split_all("center 'open; topdown", out, sizeof out, &q);
  assert_string_equal(out, "center 'open; topdown");
  assert_int_equal(q, '\'');
}

static void test_split_comments(void **state) {
  (void)state;
  char out[256];
  split_all("# a comment; not a command\ntopdown 2 # not a comment\ncenter #12", out, sizeof out, NULL);
  assert_string_equal(out, "topdown 2 # not a comment|center #12");
}

/* The splitter's answer: does text[0..len) end inside a quote? */
static int split_open(const char *text, size_t len) {
  size_t pos = 0, s, e;
  char q = 0;
  while (cct_shell_split(text, len, &pos, &s, &e, &q))
    if (q) return 1;
  return 0;
}

/* cct_shell_scan fed line by line agrees with the splitter at every line end. */
static void test_scan_lines(void **state) {
  (void)state;
  static const char *const inputs[] = {
      "center 'a\nb'\nflat 1\n", "# it's a comment\nflat 1\n", "flat 1 # it's not one\nx'\n",
      "'open\n\n\nstill\n", "a;\"b;c\n\";d\n", "  'x' ; 'y\n#'\n", "\";\n#\"'\n", ""};
  for (size_t k = 0; k < sizeof inputs / sizeof *inputs; k++) {
    const char *t = inputs[k];
    cct_split_state st = {0};
    size_t from = 0, n = strlen(t);
    for (size_t i = 0; i < n; i++) {
      if (t[i] != '\n') continue;
      int open = cct_shell_scan(&st, t + from, i + 1 - from);
      from = i + 1;
      if (open != split_open(t, i + 1)) fail_msg("input %zu, line end at %zu: scan says %d", k, i, open);
    }
  }
  cct_split_state st = {0};
  assert_int_equal(cct_shell_scan(&st, "center 'a\n", 10), 1);
  assert_int_equal(cct_shell_scan(&st, "flat 1\n", 7), 1);
  assert_int_equal(cct_shell_scan(&st, "'\n", 2), 0);
}

static void test_words(void **state) {
  (void)state;
  cct_words w;
  const char *t = "center  'operator new(unsigned long)' x\"y z\"";
  assert_int_equal(cct_shell_words(t, strlen(t), &w), 0);
  assert_int_equal(w.argc, 3);
  assert_string_equal(w.argv[0], "center");
  assert_string_equal(w.argv[1], "operator new(unsigned long)");
  assert_string_equal(w.argv[2], "xy z");
  assert_null(w.argv[3]);
  assert_int_equal(w.offset[1], 8);
  assert_int_equal(t[w.offset[2]], 'x');
  cct_words_release(&w);
  assert_int_equal(cct_shell_words("a 'b", 4, &w), -1);
  assert_int_equal(w.argc, 2);
  assert_string_equal(w.argv[1], "b");
  cct_words_release(&w);
  assert_int_equal(cct_shell_words("", 0, &w), 0);
  assert_int_equal(w.argc, 0);
  cct_words_release(&w);
}

static void test_find_command(void **state) {
  (void)state;
  assert_string_equal(cct_shell_command_name(cct_shell_find_command("top")), "topdown");
  assert_string_equal(cct_shell_command_name(cct_shell_find_command("run")), "run");
  assert_string_equal(cct_shell_command_name(cct_shell_find_command("metric")), "metric");
  assert_int_equal(cct_shell_find_command("t"), -2);
  assert_int_equal(cct_shell_find_command("xyz"), -1);
  assert_int_equal(cct_shell_find_command(""), -1);
}

static void test_complete_kind(void **state) {
  (void)state;
  size_t ws;
  char q;
  const char *const *words;
  const char *l = "topd";
  assert_int_equal(cct_shell_complete_kind(l, strlen(l), &ws, &q, &words), 'c');
  assert_int_equal(ws, 0);
  l = "center main; top";
  assert_int_equal(cct_shell_complete_kind(l, strlen(l), &ws, &q, &words), 'c');
  assert_int_equal(ws, 13);
  l = "center MPI_";
  assert_int_equal(cct_shell_complete_kind(l, strlen(l), &ws, &q, &words), 'g');
  assert_int_equal(ws, 7);
  l = "center + 'operator ne";
  assert_int_equal(cct_shell_complete_kind(l, strlen(l), &ws, &q, &words), 'g');
  assert_int_equal(q, '\'');
  assert_int_equal(ws, 10);
  l = "center @";
  assert_int_equal(cct_shell_complete_kind(l, strlen(l), &ws, &q, &words), '@');
  l = "center file cp";
  assert_int_equal(cct_shell_complete_kind(l, strlen(l), &ws, &q, &words), 'F');
  l = "source ";
  assert_int_equal(cct_shell_complete_kind(l, strlen(l), &ws, &q, &words), 'F');
  assert_int_equal(ws, 7);
  l = "metric CPU";
  assert_int_equal(cct_shell_complete_kind(l, strlen(l), &ws, &q, &words), 'm');
  l = "mode j";
  assert_int_equal(cct_shell_complete_kind(l, strlen(l), &ws, &q, &words), 'M'); /* the table cct_modes */
  l = "open /tm";
  assert_int_equal(cct_shell_complete_kind(l, strlen(l), &ws, &q, &words), 'o');
  l = "topdown 3";
  assert_int_equal(cct_shell_complete_kind(l, strlen(l), &ws, &q, &words), 0);
}

static int collect(void *arg, const char *name) {
  char *out = arg; /* a buffer of 512 (test_candidates) */
  size_t len = strlen(out);
  snprintf(out + len, 512 - len, "%s%s", len ? "," : "", name);
  return 0;
}

static void test_candidates(void **state) {
  (void)state;
  cct_shell p;
  char out[512] = "";
  cct_shell_init(&p, stdout, stderr);
  cct_shell_candidates(&p, 'c', NULL, "t", collect, out);
  assert_string_equal(out, "topdown,timeline,threshold,timer,tui");
  out[0] = '\0';
  cct_shell_candidates(&p, 'c', NULL, "m", collect, out);
  assert_string_equal(out, "metric,metrics,mode");
  out[0] = '\0';
  cct_shell_candidates(&p, 'f', NULL, "m", collect, out); /* no archive: nothing */
  assert_string_equal(out, "");
  cct_shell_release(&p);
}

/* Captures what fn writes to a FILE. */
static char captured[4096];
static void capture_begin(FILE **f) { *f = fmemopen(captured, sizeof captured - 1, "w"); }
static void capture_end(FILE *f) {
  long n = ftell(f);
  fclose(f);
  captured[n] = '\0';
}

static void test_output_primitives(void **state) {
  (void)state;
  FILE *f;
  capture_begin(&f);
  cct_out_json_string(f, "a\"b\\c\n\x01");
  fputc(' ', f);
  cct_out_json_string(f, NULL);
  capture_end(f);
  assert_string_equal(captured, "\"a\\\"b\\\\c\\n\\u0001\" null");
  capture_begin(&f);
  cct_out_csv_field(f, "plain");
  fputc('|', f);
  cct_out_csv_field(f, "a,\"b\"");
  capture_end(f);
  assert_string_equal(captured, "plain|\"a,\"\"b\"\"\"");
  capture_begin(&f);
  cct_out_number(f, 3998240);
  fputc(' ', f);
  cct_out_number(f, 0.1);
  fputc(' ', f);
  cct_out_number(f, 1.0 / 3);
  capture_end(f);
  assert_string_equal(captured, "3998240 0.1 0.3333333333333333");
  capture_begin(&f);
  assert_int_equal(cct_out_fit(f, "abcdefghijklmnop", 9, 0), 9);
  fputc('|', f);
  cct_out_fit(f, "short", 8, 1);
  fputc('|', f);
  cct_out_fit(f, "\xc3\xa9t\xc3\xa9-\xc3\xa9t\xc3\xa9-\xc3\xa9t\xc3\xa9", 7, 0);
  capture_end(f);
  assert_string_equal(captured, "abc...nop|short   |\xc3\xa9t...t\xc3\xa9");
  assert_int_equal(cct_out_width("\xc3\xa9t\xc3\xa9"), 3);
  /* hpcprof's 'name [module]': the module is cut, the address stays */
  capture_begin(&f);
  assert_int_equal(cct_out_fit(f, "<unknown procedure> 0x10209 [libpsm_infinipath.so.1.16]", 36, 0), 36);
  fputc('|', f);
  cct_out_fit(f, "<unknown procedure> 0x10209 [libpsm_infinipath.so.1.16]", 20, 0); /* name too long: the module goes, the name keeps both ends */
  capture_end(f);
  assert_string_equal(captured, "<unknown procedure> 0x10209 [lib...]|<unknown ... 0x10209");
}

static void test_help_is_complete(void **state) {
  (void)state;
  FILE *f;
  capture_begin(&f);
  assert_int_equal(cct_shell_help(f, NULL), 0);
  capture_end(f);
  const char *names[] = {"open", "runs", "run RUN", "center", "topdown", "bottomup", "flat", "source", "stats",
                         "metric", "metrics", "granularity", "threshold", "mode", "sql", "diff", "help", "quit"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) assert_non_null(strstr(captured, names[i]));
  capture_begin(&f);
  assert_int_equal(cct_shell_help(f, "cent"), 0);
  capture_end(f);
  assert_non_null(strstr(captured, "usage: center"));
  assert_int_equal(cct_shell_help(stdout, "nosuch"), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_split_basic),     cmocka_unit_test(test_split_quotes),
      cmocka_unit_test(test_split_comments),  cmocka_unit_test(test_words), cmocka_unit_test(test_scan_lines),
      cmocka_unit_test(test_find_command),    cmocka_unit_test(test_complete_kind),
      cmocka_unit_test(test_candidates),      cmocka_unit_test(test_output_primitives),
      cmocka_unit_test(test_help_is_complete),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
