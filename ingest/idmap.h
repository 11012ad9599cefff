/* idmap.h: the ingest library's maps from the database's ids to the
 * archive's: a pair of 64-bit keys to a 64-bit value (the shared cct_hmap of
 * common/cct_util.h with two-word keys), and a set of 32-bit ids. */
#ifndef CCT_IDMAP_H
#define CCT_IDMAP_H

#include "cct_util.h"

#include <stddef.h>
#include <stdint.h>

/* A cct_hmap with keys (a, b); a zeroed map is an empty one. */
typedef cct_hmap cct_idmap;
#define CCT_IDMAP_INIT CCT_HMAP_INIT(2)

/* Looks up (a, b).  Returns a pointer to the stored value, or NULL if absent.
 * The pointer is valid until the next cct_idmap_put. */
static inline int64_t *cct_idmap_get(const cct_idmap *m, int64_t a, int64_t b) {
  const int64_t k[2] = {a, b};
  return m->cap ? cct_hmap_get(m, k) : NULL;
}

/* Inserts (a, b) -> v, or finds the existing entry.  Sets *added to 1 when the
 * entry is new (then its value is v), 0 when it existed (value unchanged).
 * Returns the value's address, or NULL when out of memory. */
static inline int64_t *cct_idmap_put(cct_idmap *m, int64_t a, int64_t b, int64_t v, int *added) {
  const int64_t k[2] = {a, b};
  m->nkey = 2;
  return cct_hmap_put(m, k, v, added);
}

/* Frees the map's memory and re-initializes it. */
static inline void cct_idmap_release(cct_idmap *m) { cct_hmap_release(m); }


/* A set of 32-bit ids as a paged bitmap: 64 Ki ids a page, pages allocated on
 * first use, so memory follows the ids in use.  Faster than cct_idmap for the
 * dense ids of context trees. */
typedef struct cct_idset {
  uint64_t **pages; /* 65536 page pointers (allocated on first add), NULL = empty page */
} cct_idset;
#define CCT_IDSET_INIT {NULL}

/* Adds id.  Returns 1 if it was new, 0 if already there, -1 when out of memory. */
int cct_idset_add(cct_idset *s, uint32_t id);

/* Returns 1 when id is in the set, else 0. */
int cct_idset_has(const cct_idset *s, uint32_t id);

/* Frees the set's memory and re-initializes it. */
void cct_idset_release(cct_idset *s);

#endif
