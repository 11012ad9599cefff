/* tree.c: the packed tree image (cct_tree.h): allocation in the image's own
 * layout, the invariant check, encoding and decoding.
 *
 * Layout (little-endian): a 40-byte header (magic "CCTTREE\0", u32 version,
 * u32 n, i64 base, u64 total size, u64 checksum of the bytes after the header),
 * then the arrays in the order of the table below, each starting at a multiple
 * of 8 bytes.  The checksum catches damage the invariants cannot see (a value);
 * it is computed as the image is read, piece by piece, so that checking an image
 * costs one pass over memory besides the invariants'.  A read image is used in
 * place: the arrays point into the block read from the archive. */
#include "cct_tree.h"
#include "cct_kinds.h"
#include "cct_util.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HEADER 40
static const char magic[8] = "CCTTREE";

/* The arrays of the layout, in order: offset of the pointer in cct_tree and element size. */
static const struct {
  size_t field, elem;
} arrays[] = {
    {offsetof(cct_tree, id), 8},        {offsetof(cct_tree, offset), 8},    {offsetof(cct_tree, incl), 8},
    {offsetof(cct_tree, excl), 8},      {offsetof(cct_tree, lex), 8},       {offsetof(cct_tree, parent), 4},
    {offsetof(cct_tree, last), 4},      {offsetof(cct_tree, depth), 4},     {offsetof(cct_tree, frame), 4},
    {offsetof(cct_tree, fdepth), 4},    {offsetof(cct_tree, fparent), 4},   {offsetof(cct_tree, ldepth), 4},
    {offsetof(cct_tree, lparent), 4},   {offsetof(cct_tree, nframes), 4},   {offsetof(cct_tree, function), 4},
    {offsetof(cct_tree, file), 4},      {offsetof(cct_tree, line), 4},      {offsetof(cct_tree, module), 4},
    {offsetof(cct_tree, call_file), 4}, {offsetof(cct_tree, call_line), 4}, {offsetof(cct_tree, kind), 1},
    {offsetof(cct_tree, relation), 1},  {offsetof(cct_tree, callsite), 1}};
enum { NARRAYS = sizeof arrays / sizeof *arrays };

/* Bytes of the image of n nodes (n < 2^31: no overflow in 64 bits). */
static uint64_t image_size(int32_t n) {
  uint64_t s = HEADER;
  for (size_t k = 0; k < NARRAYS; k++) s += ((uint64_t)n * arrays[k].elem + 7) / 8 * 8;
  return s;
}

/* Points t's arrays into the image block mem (n nodes). */
static void point(cct_tree *t, char *mem, int32_t n) {
  uint64_t off = HEADER;
  for (size_t k = 0; k < NARRAYS; k++) {
    void *p = mem + off;
    memcpy((char *)t + arrays[k].field, &p, sizeof p);
    off += ((uint64_t)n * arrays[k].elem + 7) / 8 * 8;
  }
  t->n = n;
  t->mem = mem;
}

/* The checksum of the bytes after the header: four multiply-xor lanes over
 * 64-bit words (memory speed), fed in pieces as the image is read (sum_add takes
 * whole groups of 4 words; sum_end the last, partial group). */
typedef struct sumstate {
  uint64_t h[4];
} sumstate;
static const uint64_t SUM_K = 0x9E3779B97F4A7C15u;

static void sum_add(sumstate *s, const char *p, size_t nbytes) { /* nbytes: a multiple of 32 */
  for (size_t i = 0; i + 32 <= nbytes; i += 32)
    for (int l = 0; l < 4; l++) {
      uint64_t w;
      memcpy(&w, p + i + 8 * (size_t)l, 8);
      s->h[l] = (s->h[l] ^ w) * SUM_K;
      s->h[l] ^= s->h[l] >> 29;
    }
}

static uint64_t sum_end(sumstate *s, const char *p, size_t nbytes) { /* the words left, fewer than 4 */
  for (size_t i = 0; i + 8 <= nbytes; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    s->h[0] = (s->h[0] ^ w) * SUM_K;
  }
  return (s->h[0] ^ (s->h[1] * 3) ^ (s->h[2] * 5) ^ (s->h[3] * 7)) * SUM_K;
}

static uint64_t checksum(const char *p, size_t nbytes) {
  sumstate s = {{1, 2, 3, 4}};
  size_t whole = nbytes / 32 * 32;
  sum_add(&s, p, whole);
  return sum_end(&s, p + whole, nbytes - whole);
}

static void put_header(char *mem, int32_t n, int64_t base) {
  uint32_t v = CCT_TREE_VERSION, un = (uint32_t)n;
  uint64_t size = image_size(n);
  memcpy(mem, magic, 8);
  memcpy(mem + 8, &v, 4);
  memcpy(mem + 12, &un, 4);
  memcpy(mem + 16, &base, 8);
  memcpy(mem + 24, &size, 8);
}

static int little_endian(void) {
  const uint16_t one = 1;
  return *(const unsigned char *)&one == 1;
}

void *cct_big_alloc(size_t size, int zero) {
  const size_t huge = (size_t)2 << 20;
  if (size < 2 * huge) return zero ? calloc(1, size ? size : 1) : malloc(size ? size : 1);
  size_t whole = (size + huge - 1) / huge * huge;
  void *p = NULL;
  if (whole < size || posix_memalign(&p, huge, whole)) return NULL;
#ifdef MADV_HUGEPAGE
  madvise(p, whole, MADV_HUGEPAGE); /* advice only: without it, small pages */
#endif
  if (zero) memset(p, 0, size);
  return p;
}

int cct_tree_alloc(cct_tree *t, int32_t n) {
  memset(t, 0, sizeof *t);
  if (n < 1 || (uint64_t)image_size(n) > SIZE_MAX / 2) return -1;
  char *mem = cct_big_alloc((size_t)image_size(n), 1);
  if (!mem) return -1;
  put_header(mem, n, 0);
  point(t, mem, n);
  return 0;
}

void cct_tree_free(cct_tree *t) {
  free(t->mem);
  memset(t, 0, sizeof *t);
}

__attribute__((format(printf, 3, 4))) static int fail(char *why, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (why && size) vsnprintf(why, size, fmt, ap);
  va_end(ap);
  return -1;
}

static int is_frame(const cct_tree *t, int32_t i) {
  return t->kind[i] == CCT_KIND_ROOT || t->kind[i] == CCT_KIND_FUNCTION ||
         (t->kind[i] == CCT_KIND_INSTRUCTION && t->relation[i] == CCT_REL_CALL);
}

int cct_tree_check(const cct_tree *t, char *why, size_t size) {
  int32_t n = t->n;
  if (n < 1 || !t->mem) return fail(why, size, "empty tree");
  if (t->parent[0] != -1 || t->depth[0] != 0 || t->kind[0] != CCT_KIND_ROOT || t->last[0] != n - 1 ||
      t->frame[0] != 0 || t->fdepth[0] != 0 || t->fparent[0] != -1 || t->ldepth[0] != 0 || t->lparent[0] != -1)
    return fail(why, size, "node 0 is not a root spanning the tree");
  /* the open nodes (ancestors of the node at hand), each with the frames counted up to
   * it: a node's frame count is checked as its subtree closes (only the stack's first
   * max-depth entries are ever touched: no array of n entries to fill) */
  int32_t *stack = cct_big_alloc((size_t)n * sizeof *stack, 0);
  int64_t *seen_at = cct_big_alloc((size_t)n * sizeof *seen_at, 0);
  if (!stack || !seen_at) {
    free(stack);
    free(seen_at);
    return fail(why, size, "out of memory");
  }
  int rc = 0;
  int32_t top = 0;
  int64_t seen = 1; /* frames among the nodes before the one at hand (the root is one) */
  seen_at[top] = seen;
  stack[top++] = 0;
  for (int32_t i = 0; i < n && !rc; i++) {
    if (t->kind[i] > CCT_KIND_INSTRUCTION || t->relation[i] > CCT_REL_INLINED || t->callsite[i] > 1 ||
        t->function[i] < 0 || t->file[i] < 0 || t->module[i] < 0 || t->call_file[i] < 0 || t->line[i] < -1 ||
        t->call_line[i] < -1) {
      rc = fail(why, size, "node %ld: a field out of range", (long)i);
      break;
    }
    if (!isfinite(t->incl[i]) || !isfinite(t->excl[i]) || !isfinite(t->lex[i])) { /* a hand-edited archive: inf in pictures */
      rc = fail(why, size, "node %ld: a value is not a finite number", (long)i);
      break;
    }
    if (i == 0) continue;
    int32_t p = t->parent[i];
    if (p < 0 || p >= i || t->kind[i] == CCT_KIND_ROOT) {
      rc = fail(why, size, "node %ld: parent %ld is not before it", (long)i, (long)p);
      break;
    }
    while (top && t->last[stack[top - 1]] < i) { /* subtrees that end before i: each must end at i - 1 */
      if (t->last[stack[top - 1]] != i - 1) {
        rc = fail(why, size, "node %ld: subtree end %ld is not the end of its nodes", (long)stack[top - 1],
                  (long)t->last[stack[top - 1]]);
        break;
      }
      top--;
      if (t->nframes[stack[top]] != seen - seen_at[top]) {
        rc = fail(why, size, "node %ld: frame count %ld, not %ld", (long)stack[top], (long)t->nframes[stack[top]],
                  (long)(seen - seen_at[top]));
        break;
      }
    }
    if (rc) break;
    if (!top || stack[top - 1] != p || t->last[i] < i || t->last[i] > t->last[p]) {
      rc = fail(why, size, "node %ld: not in pre order under its parent %ld", (long)i, (long)p);
      break;
    }
    int fr = is_frame(t, i);
    seen += fr;
    seen_at[top] = seen;
    stack[top++] = i;
    int32_t ld = t->callsite[p] && t->relation[i] != CCT_REL_LEXICAL ? t->ldepth[p] : t->ldepth[p] + 1;
    int32_t lp = t->callsite[p] && t->relation[i] != CCT_REL_LEXICAL ? t->lparent[p] : p;
    if (t->depth[i] != t->depth[p] + 1 || t->frame[i] != (fr ? i : t->frame[p]) ||
        t->fdepth[i] != t->fdepth[p] + fr || t->fparent[i] != t->frame[p] || t->ldepth[i] != ld ||
        t->lparent[i] != lp || (!fr && t->function[i] != t->function[p])) {
      rc = fail(why, size, "node %ld: depth, frame or level fields disagree with its parent's", (long)i);
      break;
    }
  }
  while (!rc && top) { /* the subtrees open at the end end at n - 1 */
    if (t->last[stack[--top]] != n - 1) rc = fail(why, size, "node %ld: subtree end past the tree", (long)stack[top]);
    else if (t->nframes[stack[top]] != seen - seen_at[top])
      rc = fail(why, size, "node %ld: frame count %ld, not %ld", (long)stack[top], (long)t->nframes[stack[top]],
                (long)(seen - seen_at[top]));
  }
  free(stack);
  free(seen_at);
  return rc;
}

int cct_tree_encode(const cct_tree *t, void **buf, size_t *size) {
  *buf = NULL;
  *size = 0;
  if (t->n < 1) return -1;
  uint64_t s = image_size(t->n);
  if (s > SIZE_MAX / 2) return -1;
  char *mem = calloc(1, (size_t)s);
  if (!mem) return -1;
  put_header(mem, t->n, t->base);
  cct_tree img;
  point(&img, mem, t->n);
  for (size_t k = 0; k < NARRAYS; k++) {
    void *dst, *src;
    memcpy(&dst, (char *)&img + arrays[k].field, sizeof dst);
    memcpy(&src, (const char *)t + arrays[k].field, sizeof src);
    memcpy(dst, src, (size_t)t->n * arrays[k].elem);
  }
  uint64_t sum = checksum(mem + HEADER, (size_t)s - HEADER);
  memcpy(mem + 32, &sum, 8);
  *buf = mem;
  *size = (size_t)s;
  return 0;
}

/* The header of an image of size bytes: its node count, base and checksum. */
static int read_header(const char *b, size_t size, int32_t *n, int64_t *base, uint64_t *sum, char *why, size_t whysize) {
  uint32_t v, un;
  uint64_t total;
  if (!little_endian()) return fail(why, whysize, "tree image: a big-endian host cannot read it");
  if (size < HEADER || memcmp(b, magic, 8)) return fail(why, whysize, "tree image: bad header");
  memcpy(&v, b + 8, 4);
  memcpy(&un, b + 12, 4);
  memcpy(base, b + 16, 8);
  memcpy(&total, b + 24, 8);
  memcpy(sum, b + 32, 8);
  if (v != CCT_TREE_VERSION) return fail(why, whysize, "tree image: version %lu, this build reads %d", (unsigned long)v, CCT_TREE_VERSION);
  if (un < 1 || un > INT32_MAX || total != image_size((int32_t)un) || total != size)
    return fail(why, whysize, "tree image: %lu bytes for %lu nodes", (unsigned long)size, (unsigned long)un);
  *n = (int32_t)un;
  return 0;
}

int cct_tree_read(size_t size, cct_tree_reader *read, void *arg, cct_tree *t, char *why, size_t whysize) {
  memset(t, 0, sizeof *t);
  if (size < HEADER) return fail(why, whysize, "tree image: bad header");
  char *buf = size <= SIZE_MAX / 2 ? cct_big_alloc(size, 0) : NULL;
  if (!buf) return fail(why, whysize, "out of memory");
  int32_t n = 0;
  int64_t base = 0;
  uint64_t want = 0;
  int rc = read(arg, buf, HEADER, 0) ? -2 : read_header(buf, size, &n, &base, &want, why, whysize);
  /* the rest in pieces that stay in the cache while the checksum reads them (one pass over memory) */
  const size_t piece = (size_t)1 << 18; /* a multiple of 32 */
  sumstate s = {{1, 2, 3, 4}};
  uint64_t got = 0;
  size_t off = HEADER;
  while (!rc && off < size) {
    size_t k = size - off < piece ? size - off : piece;
    if (read(arg, buf + off, k, off)) {
      rc = -2;
      break;
    }
    sum_add(&s, buf + off, k / 32 * 32);
    off += k;
    if (off == size) got = sum_end(&s, buf + off - k % 32, k % 32);
  }
  if (rc == -2) fail(why, whysize, "tree image: cannot be read");
  if (!rc && got != want) rc = fail(why, whysize, "tree image: checksum mismatch");
  if (!rc) {
    point(t, buf, n);
    t->base = base;
    char w[200];
    if (cct_tree_check(t, w, sizeof w)) {
      memset(t, 0, sizeof *t);
      rc = fail(why, whysize, "tree image: %s", w);
    }
  }
  if (rc) free(buf);
  return rc;
}

/* A reader of an image in memory (cct_tree_decode). */
static int read_memory(void *arg, void *dst, size_t n, size_t off) {
  memcpy(dst, (const char *)arg + off, n);
  return 0;
}

int cct_tree_decode(const void *buf, size_t size, cct_tree *t, char *why, size_t whysize) {
  if (!size) {
    memset(t, 0, sizeof *t);
    return fail(why, whysize, "tree image: empty");
  }
  return cct_tree_read(size, read_memory, cct_unconst(buf), t, why, whysize) ? -1 : 0;
}
