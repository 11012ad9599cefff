/* fuzz_shell_split.c: libFuzzer target for the cctq shell's command splitter
 * (cct_shell_split, cct_shell_words) and completion-kind parser
 * (cct_shell_complete_kind): any input must be split without crashing, every
 * command must lie inside the input and be non-empty, the splitter must
 * always advance, and the incremental scan of input read line by line
 * (cct_shell_scan) must agree with it at every line end. */
#include "shell_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* CHECK() that survives NDEBUG (release builds are fuzzed too). */
#define CHECK(c) \
  do { \
    if (!(c)) abort(); \
  } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  size_t pos = 0, s, e;
  char q;
  for (;;) {
    size_t before = pos;
    if (!cct_shell_split(text, size, &pos, &s, &e, &q)) break;
    CHECK(pos > before && pos <= size && s < e && e <= size && s >= before);
    cct_words w;
    int rc = cct_shell_words(text + s, e - s, &w);
    CHECK(rc == 0 || rc == -1 || rc == -2);
    for (int i = 0; i < w.argc; i++) CHECK(w.offset[i] < e - s && w.argv[i]);
    cct_words_release(&w);
  }
  /* The incremental scan (input read line by line) agrees with the splitter
   * at every line end. */
  cct_split_state st = {0};
  size_t from = 0;
  for (size_t i = 0; i < size; i++) {
    if (text[i] != '\n' && i + 1 < size) continue;
    int open = cct_shell_scan(&st, text + from, i + 1 - from);
    from = i + 1;
    size_t p2 = 0, s2, e2;
    char q2 = 0;
    int split = 0;
    while (cct_shell_split(text, i + 1, &p2, &s2, &e2, &q2)) split |= q2 != 0;
    CHECK(open == split);
  }
  /* Completion parsing of the input as a typed line (up to its first NUL). */
  size_t n = strlen(text), ws = 0;
  const char *const *words = NULL;
  int kind = cct_shell_complete_kind(text, n, &ws, &q, &words);
  CHECK(ws <= n);
  CHECK(kind != 'w' || words);
  free(text);
  return 0;
}
