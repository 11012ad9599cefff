/* shell_split.c: the cctq shell's command splitter.  Input from every source
 * (-c, -f, stdin, readline) is cut into commands here (';' and newlines,
 * quote-aware) and each command into words.  Pure functions on byte buffers,
 * unit-tested (tests/unit/test_shell.c) and fuzzed (tests/fuzz/fuzz_shell_split.c). */
#include "shell_int.h"

#include <stdlib.h>
#include <string.h>

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

int cct_shell_split(const char *text, size_t len, size_t *pos, size_t *start, size_t *end, char *open_quote) {
  size_t i = *pos;
  if (open_quote) *open_quote = 0;
  for (;;) {
    while (i < len && (is_blank(text[i]) || text[i] == ';' || text[i] == '\n')) i++;
    if (i >= len) {
      *pos = len;
      return 0;
    }
    if (text[i] != '#') break;
    while (i < len && text[i] != '\n') i++; /* a comment runs to the end of the line */
  }
  size_t s = i;
  char quote = 0;
  for (; i < len; i++) {
    char c = text[i];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == ';' || c == '\n') {
      break;
    }
  }
  size_t e = i;
  while (e > s && is_blank(text[e - 1])) e--;
  *start = s;
  *end = e;
  *pos = i < len ? i + 1 : len;
  if (open_quote) *open_quote = quote;
  return 1;
}

int cct_shell_scan(cct_split_state *st, const char *text, size_t len) {
  for (size_t i = 0; i < len; i++) {
    char c = text[i];
    if (st->in_comment) {
      st->in_comment = c != '\n';
    } else if (!st->in_cmd) {
      if (c == '#') st->in_comment = 1;
      else if (!is_blank(c) && c != ';' && c != '\n') st->in_cmd = 1, st->quote = c == '\'' || c == '"' ? c : 0;
    } else if (st->quote) {
      if (c == st->quote) st->quote = 0;
    } else if (c == '\'' || c == '"') {
      st->quote = c;
    } else if (c == ';' || c == '\n') {
      st->in_cmd = 0;
    }
  }
  return st->in_cmd && st->quote;
}

void cct_words_release(cct_words *w) {
  if (w->argv)
    for (size_t i = 0; w->argv[i]; i++) free(w->argv[i]); /* every word: a command may shrink argc ('by KEY') */
  free(w->argv);
  free(w->offset);
  memset(w, 0, sizeof *w);
}

int cct_shell_words(const char *text, size_t len, cct_words *w) {
  memset(w, 0, sizeof *w);
  w->text = text;
  w->len = len;
  /* At most len/2 + 1 words; count them first to size the arrays exactly. */
  size_t cap = 1;
  for (size_t i = 0; i < len; i++)
    if (is_blank(text[i]) || text[i] == '\n') cap++;
  w->argv = calloc(cap + 1, sizeof *w->argv);
  w->offset = calloc(cap + 1, sizeof *w->offset);
  if (!w->argv || !w->offset) goto oom;
  int unterminated = 0;
  size_t i = 0;
  while (i < len) {
    while (i < len && (is_blank(text[i]) || text[i] == '\n')) i++;
    if (i >= len) break;
    size_t s = i;
    char *word = malloc(len - s + 1);
    if (!word) goto oom;
    size_t n = 0;
    char quote = 0;
    for (; i < len; i++) {
      char c = text[i];
      if (quote) {
        if (c == quote) quote = 0;
        else word[n++] = c;
      } else if (c == '\'' || c == '"') {
        quote = c;
      } else if (is_blank(c) || c == '\n') {
        break;
      } else {
        word[n++] = c;
      }
    }
    word[n] = '\0';
    if (quote) unterminated = 1;
    w->offset[w->argc] = s;
    w->argv[w->argc++] = word;
  }
  return unterminated ? -1 : 0;
oom:
  cct_words_release(w);
  return -2;
}
