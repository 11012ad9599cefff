/* fuzz_shell_split.c: libFuzzer target for the cctq shell's command splitter
 * (cct_shell_split, cct_shell_words) and completion-kind parser
 * (cct_shell_complete_kind): any input must be split without crashing, every
 * command must lie inside the input and be non-empty, and the splitter must
 * always advance. */
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
  /* Completion parsing of the input as a typed line (up to its first NUL). */
  size_t n = strlen(text), ws = 0;
  const char *const *words = NULL;
  int kind = cct_shell_complete_kind(text, n, &ws, &q, &words);
  CHECK(ws <= n);
  CHECK(kind != 'w' || words);
  free(text);
  return 0;
}
