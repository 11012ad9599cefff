/* cct_kinds.h: the codes of the archive's tree shared by ingest, schema and
 * query (private).  Their values are those stored in the archive and listed in
 * schema/base.sql: change them only with a schema version bump. */
#ifndef CCT_KINDS_H
#define CCT_KINDS_H

/* context.kind */
enum { CCT_KIND_ROOT = 0, CCT_KIND_FUNCTION = 1, CCT_KIND_LOOP = 2, CCT_KIND_LINE = 3, CCT_KIND_INSTRUCTION = 4,
       CCT_KIND_COUNT };

/* context.relation: how a context hangs off its parent */
enum { CCT_REL_LEXICAL = 0, CCT_REL_CALL = 1, CCT_REL_INLINED = 2, CCT_REL_COUNT };

/* scope_total.kind: the static scopes, in the order of the public CCT_FLAT_* */
enum { CCT_TOTAL_FUNCTION = 0, CCT_TOTAL_LOOP = 1, CCT_TOTAL_LINE = 2, CCT_TOTAL_FILE = 3, CCT_TOTAL_MODULE = 4,
       CCT_TOTAL_COUNT };

/* value.key = metric * CCT_VALUE_KEY + pre (pre < CCT_VALUE_KEY, checked by the writer).
 * The one place the stride is written: the build reads CCT_VALUE_KEY_BITS from here
 * and puts 2^CCT_VALUE_KEY_BITS for the word CCT_VALUE_KEY into the SQL of schema/. */
#define CCT_VALUE_KEY_BITS 40
#define CCT_VALUE_KEY ((long long)1 << CCT_VALUE_KEY_BITS)

/* profile_value.scope / metric scopes */
enum { CCT_INCLUSIVE = 0, CCT_EXCLUSIVE = 1, CCT_EXCLUSIVE_LEX = 2, CCT_SCOPE_COUNT };

/* The metric of a run's traced time (SPEC section 5, Time windows), 'sum' statistic. */
#define CCT_TRACE_METRIC "trace (sec)"

/* Names of the codes above ("function", "call", "exclusive_lex"); "?" out of range. */
const char *cct_kind_name(int kind);
const char *cct_relation_name(int relation);
const char *cct_scope_name(int scope);

#endif
