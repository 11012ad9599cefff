/* hmap.c: the hash map of cct_util.h (keys of a few int64 words -> int64),
 * the one map of the libraries: ingest's id maps, the query session's row
 * maps and the picture's function table all use it. */
#include "cct_util.h"

#include <stdlib.h>
#include <string.h>

static uint64_t hash_words(const int64_t *k, unsigned n) {
  uint64_t h = 0x9E3779B97F4A7C15ull;
  for (unsigned i = 0; i < n; i++) {
    h ^= (uint64_t)k[i] + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    h *= 0xBF58476D1CE4E5B9ull;
  }
  return h ^ (h >> 31);
}

static int64_t *slot(const cct_hmap *m, size_t i) { return m->slots + i * (m->nkey + 1); }

int64_t *cct_hmap_get(const cct_hmap *m, const int64_t *key) {
  if (!m->cap) return NULL;
  size_t bytes = m->nkey * sizeof *key;
  for (size_t i = (size_t)hash_words(key, m->nkey) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
    if (!m->used[i]) return NULL;
    int64_t *s = slot(m, i);
    if (!memcmp(s, key, bytes)) return s + m->nkey;
  }
}

static int grow(cct_hmap *m) {
  size_t ncap = m->cap ? m->cap * 2 : 64, stride = m->nkey + 1, words;
  if (ncap < m->cap || cct_mul(ncap, stride, &words)) return -1;
  int64_t *slots = cct_reallocarray(NULL, words, sizeof *slots);
  unsigned char *used = calloc(ncap, 1);
  if (!slots || !used) {
    free(slots);
    free(used);
    return -1;
  }
  for (size_t j = 0; j < m->cap; j++) {
    if (!m->used[j]) continue;
    const int64_t *s = slot(m, j);
    size_t i = (size_t)hash_words(s, m->nkey) & (ncap - 1);
    while (used[i]) i = (i + 1) & (ncap - 1);
    used[i] = 1;
    memcpy(slots + i * stride, s, stride * sizeof *s);
  }
  free(m->slots);
  free(m->used);
  m->slots = slots;
  m->used = used;
  m->cap = ncap;
  return 0;
}

int64_t *cct_hmap_put(cct_hmap *m, const int64_t *key, int64_t v, int *added) {
  *added = 0;
  if ((m->count + 1) * 4 > m->cap * 3 && grow(m)) return NULL; /* at most 3/4 full */
  size_t bytes = m->nkey * sizeof *key;
  size_t i = (size_t)hash_words(key, m->nkey) & (m->cap - 1);
  for (; m->used[i]; i = (i + 1) & (m->cap - 1)) {
    int64_t *s = slot(m, i);
    if (!memcmp(s, key, bytes)) return s + m->nkey;
  }
  int64_t *s = slot(m, i);
  memcpy(s, key, bytes);
  s[m->nkey] = v;
  m->used[i] = 1;
  m->count++;
  *added = 1;
  return s + m->nkey;
}

void cct_hmap_release(cct_hmap *m) {
  free(m->slots);
  free(m->used);
  m->slots = NULL;
  m->used = NULL;
  m->cap = m->count = 0;
}

uint64_t cct_hash_str(const char *s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) h = (h ^ *p) * 0x100000001b3ull;
  return h;
}
