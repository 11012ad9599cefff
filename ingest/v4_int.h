/* v4_int.h: the small byte-level decoders of the v4 reader (v4.c), exposed
 * only so that tests/unit/test_v4.c can exercise them on hand-made bytes.
 * Everything here reads little-endian bytes explicitly and checks every
 * offset against the size of the buffer it is given. */
#ifndef CCT_V4_INT_H
#define CCT_V4_INT_H

#include "cct.h"
#include <stddef.h>
#include <stdint.h>

/* Checks the common v4 file header of the n bytes at p: magic "HPCTOOLKIT",
 * format id fmt ("meta" or "prof"), major version 4, footer ("_meta.db" or
 * "_prof.db" from fmt) and a section table of nsec {size, pointer} pairs that
 * lie inside the file.  path names the file in messages.
 * Returns CCT_OK, CCT_EFORMAT (other format or version, prof2 profile.db) or
 * CCT_ECORRUPT, with err set. */
int cct_v4_check_header(const uint8_t *p, size_t n, const char *fmt, unsigned nsec, const char *path, cct_err *err);

/* The flex fields of one context record, as flags bits 0..2 announce them. */
typedef struct cct_v4_flex {
  int has_function, has_srcloc, has_point;
  uint64_t function; /* pFunction */
  uint64_t file;     /* pFile */
  uint32_t line;
  uint64_t module; /* pModule */
  uint64_t offset;
} cct_v4_flex;

/* Decodes the flex words of a context record (flags byte, nwords words at
 * flex; packing order function, file, line, module, offset).
 * Returns 0, or -1 when nwords is too small for the announced fields. */
int cct_v4_decode_flex(uint8_t flags, const uint8_t *flex, unsigned nwords, cct_v4_flex *out);

/* A profile's sparse value block ({PSVB}), validated against its file. */
typedef struct cct_v4_block {
  uint64_t nvalues, pvalues; /* {u16 metricId, f64 value} pairs (10 B each) */
  uint32_t nctxs;
  uint64_t pidx; /* {u32 ctxId, u64 startIndex} (12 B each) */
} cct_v4_block;

/* Reads the 32-byte value block at offset off of the n-byte file p and checks
 * it: both arrays inside the file, ctx ids strictly ascending, start indices
 * non-decreasing and at most nvalues.  what names the profile in messages.
 * Returns CCT_OK or CCT_ECORRUPT with err set. */
int cct_v4_decode_block(const uint8_t *p, size_t n, uint64_t off, cct_v4_block *b, const char *path, const char *what,
                        cct_err *err);

/* Entry i of a block checked by cct_v4_decode_block: its ctx id and the range
 * [*first, *end) of its values. */
void cct_v4_block_ctx(const uint8_t *p, const cct_v4_block *b, uint32_t i, uint32_t *ctx, uint64_t *first,
                      uint64_t *end);

/* Value j of a checked block: metric id and value. */
void cct_v4_block_value(const uint8_t *p, const cct_v4_block *b, uint64_t j, uint16_t *metric, double *v);

#endif
