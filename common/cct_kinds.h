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
 * a loop or line row of a view), the one rule every place that keys loops and lines
 * uses (the ingest writer, the query library):
 *   - a loop whose database stores its address (module, offset: v4 loops with a point,
 *     HPCToolkit >= 2023.08; classic 2.2 'L v='), a point key: the offset and the line
 *     (0 without one), so that two loops on one source line, or two loops of a binary
 *     without a line map, stay two scopes.  The module is not in the key (the file half
 *     and the line go with it); an address past 2^40 or a line past 2^21 takes the rule
 *     below instead (one scope per line, as before the addresses were read);
 *   - else the context's line;
 *   - else, for a loop or line without one (code of a binary without a line map:
 *     hpcprof's file '[libfoo.so]', line 0), -2 minus its enclosing function's id, so that
 *     such loops and lines are told apart by their function instead of every one of a
 *     binary making one row.  No format stores an address for lines
 *     (docs/hpctoolkit-formats.md).
 * Ranges: lines >= 0, -1 none, function keys -2 - id (> -2^61), point keys below -2^61. */
enum { CCT_SCOPE_LINE_BITS = 21, CCT_SCOPE_OFFSET_BITS = 40 };
#define CCT_SCOPE_POINT_BASE (-((long long)1 << 62))
static inline long long cct_scope_line(int kind, long long line, long long function, long long module,
                                       long long offset) {
  if (kind == CCT_KIND_LOOP && module > 0 && offset > 0 && offset < (1LL << CCT_SCOPE_OFFSET_BITS) &&
      line < (1LL << CCT_SCOPE_LINE_BITS))
    return CCT_SCOPE_POINT_BASE + ((line > 0 ? line : 0) << CCT_SCOPE_OFFSET_BITS) + offset;
  return line >= 0 ? line : -2 - (function > 0 ? function : 0);
}
/* Whether a scope line of cct_scope_line is a point key. */
static inline int cct_scope_is_point(long long s) { return s < -(1LL << 61); }
/* The function a scope line stands for: > 0 for a loop or line keyed by its function,
 * else 0. */
static inline long long cct_scope_function(long long s) {
  return s <= -2 && !cct_scope_is_point(s) ? -2 - s : 0;
}
/* The source line of a scope line (-1 for none). */
static inline long long cct_scope_source_line(long long s) {
  if (cct_scope_is_point(s)) {
    long long l = (s - CCT_SCOPE_POINT_BASE) >> CCT_SCOPE_OFFSET_BITS;
    return l > 0 ? l : -1;
  }
  return s >= 0 ? s : -1;
}
/* The offset in its module of a point key, -1 for other scope lines. */
static inline long long cct_scope_offset(long long s) {
  return cct_scope_is_point(s) ? (s - CCT_SCOPE_POINT_BASE) & ((1LL << CCT_SCOPE_OFFSET_BITS) - 1) : -1;
}

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
