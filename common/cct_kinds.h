/* cct_kinds.h: the codes of the archive's tree shared by ingest, schema and
 * query (private).  Their values are those stored in the archive and listed in
 * schema/base.sql: change them only with a schema version bump. */
#ifndef CCT_KINDS_H
#define CCT_KINDS_H

#include <stddef.h>
#include <stdint.h>

/* context.kind */
enum { CCT_KIND_ROOT = 0, CCT_KIND_FUNCTION = 1, CCT_KIND_LOOP = 2, CCT_KIND_LINE = 3, CCT_KIND_INSTRUCTION = 4,
       CCT_KIND_COUNT };

/* context.relation: how a context hangs off its parent */
enum { CCT_REL_LEXICAL = 0, CCT_REL_CALL = 1, CCT_REL_INLINED = 2, CCT_REL_COUNT };

/* scope_total.kind: the static scopes, in the order of the public CCT_FLAT_* */
enum { CCT_TOTAL_FUNCTION = 0, CCT_TOTAL_LOOP = 1, CCT_TOTAL_LINE = 2, CCT_TOTAL_FILE = 3, CCT_TOTAL_MODULE = 4,
       CCT_TOTAL_COUNT };

/* The line half of the key of a loop or line scope (scope_total.line, and the line of
 * a loop or line row of a view): the context's line, or for a loop or line without one
 * (code of a binary without a line map: hpcprof's file '[libfoo.so]', line 0) -2 minus
 * its enclosing function's id, so that such loops and lines are told apart by their
 * function instead of every one of a binary making one row.  No format stores more
 * for lines, nor for the loops of the older v4 databases (docs/hpctoolkit-formats.md). */
static inline long long cct_scope_line(long long line, long long function) {
  return line >= 0 ? line : -2 - (function > 0 ? function : 0);
}
/* The function a scope line of cct_scope_line stands for: > 0 for a loop or line
 * without a line, 0 for one with a line (or none known). */
static inline long long cct_scope_function(long long scope_line) { return scope_line <= -2 ? -2 - scope_line : 0; }

/* value.key = metric * CCT_VALUE_KEY + pre (pre < CCT_VALUE_KEY, checked by the writer).
 * The one place the stride is written: the build reads CCT_VALUE_KEY_BITS from here
 * and puts 2^CCT_VALUE_KEY_BITS for the word CCT_VALUE_KEY into the SQL of schema/. */
#define CCT_VALUE_KEY_BITS 40
#define CCT_VALUE_KEY ((long long)1 << CCT_VALUE_KEY_BITS)

/* profile_value.scope / metric scopes */
enum { CCT_INCLUSIVE = 0, CCT_EXCLUSIVE = 1, CCT_EXCLUSIVE_LEX = 2, CCT_SCOPE_COUNT };

/* The metric of a run's traced time (SPEC section 5, Time windows), 'sum' statistic. */
#define CCT_TRACE_METRIC "trace (sec)"

/* trace_chunk.data before zstd (schema/trace.sql): n records as n little-endian u32
 * context offsets, then n u64 time steps, whatever the host; written by ingest
 * (trace.c), read by query (window.c).  Record i of a block buf of n records: */
enum { CCT_TRACE_RECORD_BYTES = 12 };
static inline void cct_trace_record_put(unsigned char *buf, size_t n, size_t i, uint32_t ctx, uint64_t dt) {
  for (int b = 0; b < 4; b++) buf[4 * i + (size_t)b] = (unsigned char)(ctx >> (8 * b));
  for (int b = 0; b < 8; b++) buf[4 * n + 8 * i + (size_t)b] = (unsigned char)(dt >> (8 * b));
}
static inline void cct_trace_record_get(const unsigned char *buf, size_t n, size_t i, uint32_t *ctx, uint64_t *dt) {
  *ctx = 0, *dt = 0;
  for (int b = 0; b < 4; b++) *ctx |= (uint32_t)buf[4 * i + (size_t)b] << (8 * b);
  for (int b = 0; b < 8; b++) *dt |= (uint64_t)buf[4 * n + 8 * i + (size_t)b] << (8 * b);
}

/* Names of the codes above ("function", "call", "exclusive_lex"); "?" out of range. */
const char *cct_kind_name(int kind);
const char *cct_relation_name(int relation);
const char *cct_scope_name(int scope);

#endif
