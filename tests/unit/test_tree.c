/* test_tree.c: the packed tree image (common/cct_tree.h): a tree built by hand
 * passes cct_tree_check and survives encode/decode; each invariant broken on
 * its own is refused (the damages tests/cli/tree_image.sh makes in an archive
 * are caught by the checksum first), and so is a changed byte of the image. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cct_kinds.h"
#include "cct_tree.h"

#include <stdlib.h>
#include <string.h>

/* root -> main (frame) -> loop -> line 12 (call site) -> f (call) -> line 3;
 *                      -> line 20
 * nodes 0..6 in pre order. */
static void hand_tree(cct_tree *t) {
  assert_int_equal(cct_tree_alloc(t, 7), 0);
  static const int32_t parent[] = {-1, 0, 1, 2, 3, 4, 1}, last[] = {6, 6, 5, 5, 5, 5, 6},
                       depth[] = {0, 1, 2, 3, 4, 5, 2}, frame[] = {0, 1, 1, 1, 4, 4, 1},
                       fdepth[] = {0, 1, 1, 1, 2, 2, 1}, fparent[] = {-1, 0, 1, 1, 1, 4, 1},
                       ldepth[] = {0, 1, 2, 3, 3, 4, 2}, lparent[] = {-1, 0, 1, 2, 2, 4, 1},
                       nframes[] = {2, 1, 1, 1, 0, 0, 0}, fn[] = {0, 1, 1, 1, 2, 2, 1},
                       line[] = {-1, -1, 10, 12, -1, 3, 20};
  static const uint8_t kind[] = {CCT_KIND_ROOT, CCT_KIND_FUNCTION, CCT_KIND_LOOP, CCT_KIND_LINE,
                                 CCT_KIND_FUNCTION, CCT_KIND_LINE, CCT_KIND_LINE},
                       rel[] = {0, CCT_REL_CALL, 0, 0, CCT_REL_CALL, 0, 0}, callsite[] = {0, 0, 0, 1, 0, 0, 0};
  for (int i = 0; i < 7; i++) {
    t->id[i] = 100 + i;
    t->parent[i] = parent[i], t->last[i] = last[i], t->depth[i] = depth[i], t->frame[i] = frame[i];
    t->fdepth[i] = fdepth[i], t->fparent[i] = fparent[i], t->ldepth[i] = ldepth[i], t->lparent[i] = lparent[i];
    t->nframes[i] = nframes[i], t->function[i] = fn[i], t->line[i] = line[i], t->call_line[i] = -1;
    t->kind[i] = kind[i], t->relation[i] = rel[i], t->callsite[i] = callsite[i];
    t->file[i] = i ? 1 : 0;
    t->incl[i] = 10.0 - i;
  }
  t->base = 1000;
}

static void test_valid(void **state) {
  (void)state;
  cct_tree t, u;
  char why[200];
  hand_tree(&t);
  assert_int_equal(cct_tree_check(&t, why, sizeof why), 0);
  void *img;
  size_t size;
  assert_int_equal(cct_tree_encode(&t, &img, &size), 0);
  assert_int_equal(cct_tree_decode(img, size, &u, why, sizeof why), 0);
  assert_int_equal(u.n, 7);
  assert_int_equal(u.base, 1000);
  for (int i = 0; i < 7; i++) {
    assert_int_equal(u.parent[i], t.parent[i]);
    assert_int_equal(u.last[i], t.last[i]);
    assert_int_equal(u.id[i], 100 + i);
    assert_true(u.incl[i] == 10.0 - i);
  }
  /* children of main: the loop (2), then line 20 (6) */
  assert_int_equal(cct_tree_first(&u, 1), 2);
  assert_int_equal(cct_tree_next(&u, 1, 2), 6);
  assert_int_equal(cct_tree_next(&u, 1, 6), -1);
  assert_int_equal(cct_tree_first(&u, 6), -1);
  cct_tree_free(&u);
  /* any changed byte after the header: the checksum */
  for (size_t off = 40; off < size; off += 13) {
    ((unsigned char *)img)[off] ^= 0x10;
    assert_int_equal(cct_tree_decode(img, size, &u, why, sizeof why), -1);
    ((unsigned char *)img)[off] ^= 0x10;
  }
  assert_int_equal(cct_tree_decode(img, size - 8, &u, why, sizeof why), -1);
  assert_int_equal(cct_tree_decode(img, size, &u, why, sizeof why), 0);
  cct_tree_free(&u);
  free(img);
  cct_tree_free(&t);
}

/* An image larger than the pieces it is read and checksummed in (256 KiB): the root and
 * 2,999 lines, 309,040 bytes, so the last piece ends in a partial group of words.  A
 * changed byte in the first piece, at the pieces' seam and in the last word is refused. */
static void test_pieces(void **state) {
  (void)state;
  enum { N = 3000 };
  cct_tree t, u;
  char why[200];
  assert_int_equal(cct_tree_alloc(&t, N), 0);
  for (int i = 0; i < N; i++) {
    t.parent[i] = i ? 0 : -1, t.last[i] = i ? i : N - 1, t.depth[i] = i > 0;
    t.fparent[i] = i ? 0 : -1, t.ldepth[i] = i > 0, t.lparent[i] = i ? 0 : -1;
    t.kind[i] = i ? CCT_KIND_LINE : CCT_KIND_ROOT, t.line[i] = i, t.call_line[i] = -1;
    t.incl[i] = i, t.id[i] = i;
  }
  assert_int_equal(cct_tree_check(&t, why, sizeof why), 0);
  void *img;
  size_t size;
  assert_int_equal(cct_tree_encode(&t, &img, &size), 0);
  assert_int_equal(size, 309040);
  assert_int_equal(cct_tree_decode(img, size, &u, why, sizeof why), 0);
  assert_int_equal(u.n, N);
  assert_int_equal(u.line[N - 1], N - 1);
  cct_tree_free(&u);
  const size_t at[] = {41, 40 + 262143, 40 + 262144, size - 1};
  for (size_t k = 0; k < sizeof at / sizeof *at; k++) {
    ((unsigned char *)img)[at[k]] ^= 0x01;
    assert_int_equal(cct_tree_decode(img, size, &u, why, sizeof why), -1);
    assert_non_null(strstr(why, "checksum"));
    ((unsigned char *)img)[at[k]] ^= 0x01;
  }
  free(img);
  cct_tree_free(&t);
}

/* Each broken invariant, alone, on a fresh tree. */
static void test_broken(void **state) {
  (void)state;
  for (int k = 0; k < 14; k++) {
    cct_tree t;
    char why[200] = "";
    hand_tree(&t);
    switch (k) {
    case 0: t.parent[3] = 5; break;               /* a parent after its child */
    case 1: t.parent[6] = 2; break;               /* not the nearest open node: 2's subtree ends at 5 */
    case 2: t.last[2] = 6; break;                 /* a subtree past its parent's */
    case 3: t.last[4] = 4; break;                 /* a subtree ending before its last node */
    case 4: t.last[0] = 5; break;                 /* the root not spanning the tree */
    case 5: t.depth[5] = 4; break;
    case 6: t.frame[5] = 1; break;                /* frame not the nearest frame */
    case 7: t.fdepth[4] = 1; break;
    case 8: t.fparent[4] = 0; break;
    case 9: t.ldepth[4] = 4; break;               /* the callee of a call site takes its level */
    case 10: t.lparent[5] = 3; break;
    case 11: t.nframes[2] = 0; break;
    case 12: t.kind[2] = 7; break;
    case 13: t.function[5] = 1; break;            /* a line of f carrying main */
    }
    assert_int_equal(cct_tree_check(&t, why, sizeof why), -1);
    assert_true(why[0] != 0);
    cct_tree_free(&t);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_valid), cmocka_unit_test(test_pieces),
                                     cmocka_unit_test(test_broken)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
