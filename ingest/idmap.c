/* idmap.c: the (int64, int64) -> int64 hash map of idmap.h. */
#include "idmap.h"

#include <stdlib.h>

struct cct_idmap_slot {
  int64_t a, b, v;
  int used;
};

static size_t hash2(int64_t a, int64_t b) {
  uint64_t h = (uint64_t)a * 0x9E3779B97F4A7C15ull ^ ((uint64_t)b + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;
  return (size_t)(h ^ (h >> 29));
}

int64_t *cct_idmap_get(const cct_idmap *m, int64_t a, int64_t b) {
  if (!m->capacity) return NULL;
  for (size_t i = hash2(a, b) & (m->capacity - 1);; i = (i + 1) & (m->capacity - 1)) {
    struct cct_idmap_slot *s = &m->slots[i];
    if (!s->used) return NULL;
    if (s->a == a && s->b == b) return &s->v;
  }
}

static int grow(cct_idmap *m) {
  size_t cap = m->capacity ? m->capacity * 2 : 1024;
  struct cct_idmap_slot *slots = calloc(cap, sizeof *slots);
  if (!slots) return -1;
  for (size_t j = 0; j < m->capacity; j++) {
    struct cct_idmap_slot *s = &m->slots[j];
    if (!s->used) continue;
    size_t i = hash2(s->a, s->b) & (cap - 1);
    while (slots[i].used) i = (i + 1) & (cap - 1);
    slots[i] = *s;
  }
  free(m->slots);
  m->slots = slots;
  m->capacity = cap;
  return 0;
}

int64_t *cct_idmap_put(cct_idmap *m, int64_t a, int64_t b, int64_t v, int *added) {
  if ((m->count + 1) * 4 > m->capacity * 3 && grow(m)) return NULL;
  size_t i = hash2(a, b) & (m->capacity - 1);
  for (; m->slots[i].used; i = (i + 1) & (m->capacity - 1))
    if (m->slots[i].a == a && m->slots[i].b == b) {
      *added = 0;
      return &m->slots[i].v;
    }
  m->slots[i] = (struct cct_idmap_slot){a, b, v, 1};
  m->count++;
  *added = 1;
  return &m->slots[i].v;
}

void cct_idmap_release(cct_idmap *m) {
  free(m->slots);
  *m = (cct_idmap)CCT_IDMAP_INIT;
}

int cct_idset_add(cct_idset *s, uint32_t id) {
  if (!s->pages && !(s->pages = calloc(65536, sizeof *s->pages))) return -1;
  uint64_t **page = &s->pages[id >> 16];
  if (!*page && !(*page = calloc(1024, sizeof **page))) return -1;
  uint64_t bit = 1ull << (id & 63), *word = &(*page)[(id & 0xffff) >> 6];
  if (*word & bit) return 0;
  *word |= bit;
  return 1;
}

int cct_idset_has(const cct_idset *s, uint32_t id) {
  const uint64_t *page = s->pages ? s->pages[id >> 16] : NULL;
  return page && (page[(id & 0xffff) >> 6] >> (id & 63) & 1);
}

void cct_idset_release(cct_idset *s) {
  for (size_t i = 0; s->pages && i < 65536; i++) free(s->pages[i]);
  free(s->pages);
  s->pages = NULL;
}
