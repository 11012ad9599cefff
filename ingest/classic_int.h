/* classic_int.h: the small decoders of classic.c and mdb.c (hpcviewer's
 * merged metric files), exposed for unit tests and the fuzz target. */
#ifndef CCT_CLASSIC_INT_H
#define CCT_CLASSIC_INT_H

#include "ingest_int.h"
#include <stddef.h>
#include <stdio.h>
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

/* The experiment.xml walk of classic.c, shared with the prof2 reader
 * (prof2.c), whose experiment.xml version 4.0 has the tree but no values. */
typedef struct cct_xml_hooks {
  void *arg;
  /* A Metric, MetricFormula or MetricDB element of the header, at xr (an
   * xmlTextReaderPtr on the element), instead of the classic handling. */
  int (*header)(void *arg, const char *tag, void *xr);
  /* After context id is entered (the root is 0): its summary values. */
  int (*context)(void *arg, int64_t id);
} cct_xml_hooks;

/* Streams db_dir/experiment.xml version 4.0 into w with hooks: elements with
 * negative ids (prof2's synthetic wrappers) are left out, their children
 * hang from the parent.  Returns CCT_OK or an error, as cct_read_classic. */
int cct_classic_read_tree(const char *db_dir, cct_writer *w, const cct_xml_hooks *hooks, cct_err *err);

/* hpcviewer's merged metric file (mdb.c): header size, end marker. */
enum { CCT_MDB_HEAD_SIZE = 8, CCT_MDB_MARKER_SIZE = 8 };
#define CCT_MDB_MARKER 0xFFFFFFFFDEADF00Dull

/* One embedded metric-db file of a merged file: rank and thread parsed by
 * hpcviewer from the original file name, and where the file lies. */
typedef struct cct_mdb_entry {
  int32_t proc, thread;
  uint64_t offset, size;
} cct_mdb_entry;

/* Checks the index of a merged file of size bytes: head holds its first
 * 8 + 16 * nFiles bytes (nFiles >= 1 read from head), tail its last 8.
 * Fills e[0 .. nFiles) with offsets and sizes.  Returns 0, or -1 with the
 * problem written to why. */
int cct_mdb_check_index(const unsigned char *head, uint64_t size, const unsigned char *tail, cct_mdb_entry *e,
                        char *why, size_t nwhy);

/* Reads and checks the index of the merged file f (named path in messages).
 * Returns CCT_OK with *entries (malloc'd, *n >= 1 of them), or an error. */
int cct_mdb_read_index(FILE *f, const char *path, cct_mdb_entry **entries, uint32_t *n, cct_err *err);

/* Looks in dir for hpcviewer's merged metric file (experiment.mdb or
 * experiment-N.mdb).  *path gets its malloc'd path, or NULL when there is
 * none or when dir still has *.metric-db files (they are read instead).
 * Returns CCT_OK, CCT_EFORMAT when there are several, or CCT_EIO. */
int cct_mdb_find(const char *dir, char **path, cct_err *err);

#endif
