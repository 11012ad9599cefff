/* idmap.c: the paged id set of idmap.h (the id map is the shared cct_hmap). */
#include "idmap.h"

#include <stdlib.h>

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
