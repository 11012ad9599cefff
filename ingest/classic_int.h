/* classic_int.h: the small decoders of classic.c, exposed for unit tests and
 * the fuzz target. */
#ifndef CCT_CLASSIC_INT_H
#define CCT_CLASSIC_INT_H

#include "ingest_int.h"
#include <stddef.h>
#include <stdint.h>

enum { CCT_METRICDB_HEADER = 32 }; /* real header size (the XML's db-header-sz="24" is wrong) */

/* Splits a classic metric name 'CPUTIME (usec):Mean:num-src (I)' into base
 * 'CPUTIME (usec)', statistic 'mean:num-src' (lowercase, 'sum' when absent) and
 * *which = CCT_INCLUSIVE for '(I)', CCT_EXCLUSIVE_LEX for '(E)', -1 otherwise. */
void cct_classic_split_metric(const char *name, char *base, size_t nbase, char *stat, size_t nstat, int *which);

/* Parses rank, thread and host id from a metric-db file name
 * '<grp>.<exe>-<rank>-<thread>-<hostid>-<pid>-<gen>.metric-db'; -1 where absent. */
void cct_classic_profile_id(const char *name, cct_profile_id *id);

/* Checks a metric-db header (buf holds the first n bytes of the file) and
 * returns its node and column counts.  Returns 0, or -1 with *why set. */
int cct_classic_metricdb_header(const unsigned char *buf, size_t n, uint32_t *nodes, uint32_t *metrics,
                                const char **why);

#endif
