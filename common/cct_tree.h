/* cct_tree.h: the packed tree image of one run: the calling-context tree as
 * pre-order arrays, the value the view engine computes over (query/), written
 * once at ingest into the archive's table tree_image (schema/base.sql) and read
 * back in one go.  Private to the libraries (common/); no SQLite here: the
 * ingest side builds it from the context table (ingest/tree_image.c), the
 * query side reads the BLOB (query/archive.c), and in-memory transformations
 * (filters) make new trees with cct_tree_alloc.
 *
 * Node i (0 <= i < n) is the context whose pre-order number is base + i (pre is
 * unique in the archive; a run's contexts are numbered base .. base + n - 1).
 * Every pointer below is a node index (not a pre), -1 for none.
 *
 * Invariants (cct_tree_check verifies each one; a tree that passes cannot make
 * a view read out of bounds or loop):
 *   n >= 1; node 0 is the root: parent[0] = -1, depth[0] = 0, kind[0] = CCT_KIND_ROOT,
 *     frame[0] = 0, fdepth[0] = 0, ldepth[0] = 0, last[0] = n - 1
 *   pre order: for i > 0, parent[i] < i, depth[i] = depth[parent[i]] + 1, and
 *     i <= last[i] <= last[parent[i]]; the subtree of x is x .. last[x]; the
 *     children of x are c = x + 1, then c = last[c] + 1 while c <= last[x]
 *     (so last[x] = x for a leaf, and the children's subtrees tile x + 1 .. last[x])
 *   kind[i] in 0..4 (CCT_KIND_* of cct_kinds.h), only node 0 is a root;
 *     relation[i] in 0..2 (CCT_REL_*); callsite[i] in 0..1
 *   frame[i]: the nearest ancestor-or-self that is a frame (a function context, or an
 *     instruction context entered by a call; the root is its own frame): frame[i] = i
 *     for a frame, else frame[parent[i]]
 *   fdepth[i]: frames strictly above frame[i]: 0 for the root's frame, else
 *     fdepth[frame[parent[frame[i]]]] + 1 (the root counts as a frame)
 *   fparent[i]: for a frame, frame[parent[i]] (the caller's frame; -1 for the root);
 *     for other nodes, frame[i]
 *   ldepth[i], lparent[i]: the line-granularity level and the node at level
 *     ldepth - 1 above (schema/base.sql: the callee of a call-site line takes the
 *     call site's level and parent); lparent[i] < i, ldepth[lparent[i]] = ldepth[i] - 1
 *   nframes[i]: frames strictly inside the subtree of i
 *   function[i] >= 0 (0: none; the archive's function.id, the frame's function for
 *     nodes inside a frame); file[i], module[i], call_file[i] >= 0 (0: none);
 *     line[i], call_line[i] >= -1 (-1: none); offset[i] any (instructions' and loops' offset)
 *   id[i]: the database's own context id ('#ID')
 *   incl[i], excl[i], lex[i]: the run's primary metric (run.primary_metric):
 *     inclusive, exclusive ('function' scope) and exclusive_lex, 0 where the
 *     context has no value (all 0 when the run has no primary metric); finite
 *
 * Ownership: a tree owns its arrays (one block, mem); cct_tree_free frees them.
 * Views take a const cct_tree * and never change it. */
#ifndef CCT_TREE_H
#define CCT_TREE_H

#include <stddef.h>
#include <stdint.h>

/* Version of the image layout (tree_image.version); a reader refuses others. */
#define CCT_TREE_VERSION 2 /* 2: a checksum in the header */

typedef struct cct_tree {
  int32_t n;          /* nodes (>= 1) */
  int64_t base;       /* pre of node 0 */
  int64_t *id;        /* the database's context id */
  int32_t *parent, *last, *depth;
  int32_t *frame, *fdepth, *fparent, *ldepth, *lparent, *nframes;
  int32_t *function, *file, *line, *module, *call_file, *call_line;
  int64_t *offset;
  uint8_t *kind, *relation, *callsite;
  double *incl, *excl, *lex;
  void *mem;          /* the block holding every array (owned) */
} cct_tree;

/* A block of size bytes for big arrays (zeroed when zero), on 2 MiB pages where the
 * system allows it (a tree of 1M nodes: 50 page faults instead of 25,000); free()
 * frees it.  NULL when out of memory. */
void *cct_big_alloc(size_t size, int zero);

/* Allocates the arrays of a tree of n nodes (n >= 1) into t (zeroed arrays,
 * base 0).  Returns 0, or -1 when out of memory or n is out of range. */
int cct_tree_alloc(cct_tree *t, int32_t n);

/* Frees t's arrays and zeroes t.  A zeroed t is a no-op. */
void cct_tree_free(cct_tree *t);

/* Checks every invariant above.  Returns 0, or -1 with a description of the
 * first violation in why (size bytes). */
int cct_tree_check(const cct_tree *t, char *why, size_t size);

/* The image of t: a malloc'd little-endian block of *size bytes (header, then
 * the arrays).  Returns 0, or -1 when out of memory. */
int cct_tree_encode(const cct_tree *t, void **buf, size_t *size);

/* Reads bytes [off, off + n) of an image into dst; returns 0, or non-zero when it cannot. */
typedef int cct_tree_reader(void *arg, void *dst, size_t n, size_t off);

/* Reads the image of size bytes through read(arg, ...) into t (a malloc'd block
 * that t owns), its checksum computed piece by piece as it is read, and checks
 * it (cct_tree_check).  Returns 0; -1 with the reason in why (bad magic or
 * version, sizes, checksum, a broken invariant, out of memory); -2 when read
 * failed.  t is zeroed on failure. */
int cct_tree_read(size_t size, cct_tree_reader *read, void *arg, cct_tree *t, char *why, size_t whysize);

/* As cct_tree_read, from the image buf[0..size) in memory (copied; buf stays the
 * caller's).  Returns 0, or -1 with the reason in why. */
int cct_tree_decode(const void *buf, size_t size, cct_tree *t, char *why, size_t whysize);

/* Children of x: for (c = cct_tree_first(t, x); c >= 0; c = cct_tree_next(t, x, c)). */
static inline int32_t cct_tree_first(const cct_tree *t, int32_t x) { return t->last[x] > x ? x + 1 : -1; }
static inline int32_t cct_tree_next(const cct_tree *t, int32_t x, int32_t c) {
  return t->last[c] < t->last[x] ? t->last[c] + 1 : -1;
}

#endif
