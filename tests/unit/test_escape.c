/* test_escape.c: unit tests of the one text escaper (common/escape.c): UTF-8
 * validation (each bad byte one U+FFFD) and the four output forms.  Expected
 * strings are written from the rules of cct_escape.h and the UTF-8 definition
 * (RFC 3629), not from the code's output. */
#include "cct_escape.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define FFFD "\xEF\xBF\xBD"

static void expect(const char *in, int how, const char *want) {
  char *got = cct_escape_dup(in, how);
  assert_non_null(got);
  assert_string_equal(got, want);
  free(got);
}

static void test_utf8(void **state) {
  (void)state;
  uint32_t cp;
  assert_int_equal(cct_utf8_decode("\xC3\xA9", 2, &cp), 2), assert_int_equal(cp, 0xE9);
  assert_int_equal(cct_utf8_decode("\xE2\x82\xAC", 3, &cp), 3), assert_int_equal(cp, 0x20AC);
  assert_int_equal(cct_utf8_decode("\xF0\x9F\x98\x80", 4, &cp), 4), assert_int_equal(cp, 0x1F600);
  assert_int_equal(cct_utf8_decode("\xC0\xAF", 2, &cp), 1), assert_int_equal(cp, 0xFFFD);     /* overlong '/' */
  assert_int_equal(cct_utf8_decode("\xE0\x80\xAF", 3, &cp), 1), assert_int_equal(cp, 0xFFFD); /* overlong */
  assert_int_equal(cct_utf8_decode("\xED\xA0\x80", 3, &cp), 1), assert_int_equal(cp, 0xFFFD); /* surrogate */
  assert_int_equal(cct_utf8_decode("\xF4\x90\x80\x80", 4, &cp), 1), assert_int_equal(cp, 0xFFFD); /* > 10FFFF */
  assert_int_equal(cct_utf8_decode("\xE2\x82", 2, &cp), 1), assert_int_equal(cp, 0xFFFD);     /* truncated */
  assert_int_equal(cct_utf8_decode("\x80", 1, &cp), 1), assert_int_equal(cp, 0xFFFD);         /* continuation */
  assert_int_equal(cct_utf8_decode("\xF8\x88\x80\x80\x80", 5, &cp), 1), assert_int_equal(cp, 0xFFFD);
}

static void test_term(void **state) {
  (void)state;
  expect("plain name", CCT_ESC_TERM, "plain name");
  expect("a\x1b[2Jb", CCT_ESC_TERM, "a\\x1b[2Jb");
  expect("t\x1b]0;x\x07", CCT_ESC_TERM, "t\\x1b]0;x\\x07");
  expect("c1\xC2\x9B" "31m", CCT_ESC_TERM, "c1\\u009b31m");
  expect("a\nb\tc\rd\x7f", CCT_ESC_TERM, "a\\nb\\tc\\rd\\x7f");
  expect("bad\xFFz\xC0\xAF", CCT_ESC_TERM, "bad" FFFD "z" FFFD FFFD);
  expect("caf\xC3\xA9", CCT_ESC_TERM, "caf\xC3\xA9");
  assert_true(cct_text_clean("caf\xC3\xA9 " FFFD));
  assert_false(cct_text_clean("a\x1b"));
  assert_false(cct_text_clean("a\xFF"));
}

static void test_csv_json_xml(void **state) {
  (void)state;
  expect("a,b", CCT_ESC_CSV, "\"a,b\"");
  expect("say \"hi\"", CCT_ESC_CSV, "\"say \"\"hi\"\"\"");
  expect("x\ny", CCT_ESC_CSV, "x\\ny"); /* one record per line */
  expect("q\"\\\n\x1b\xC2\x9B\xFF", CCT_ESC_JSON, "q\\\"\\\\\\n\\u001b\\u009b" FFFD);
  expect("<a href='x'>&\"\x1b\n", CCT_ESC_XML, "&lt;a href=&#39;x&#39;&gt;&amp;&quot;\\x1b&#10;");
  expect(NULL, CCT_ESC_TERM, "");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_utf8),
      cmocka_unit_test(test_term),
      cmocka_unit_test(test_csv_json_xml),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
