/* trace.h: the traces of a database (trace.c), between ingest.c, which finds
 * and scans them before the tree, and the writer, which takes each context's
 * traced time as it enters the tree and stores the records at commit.
 *
 * A trace is, per profile, a time-ordered sequence of records (time, context
 * id); each record stands for the time until that profile's next record (the
 * last record for none, context 0 for idle).  Formats: v4 trace.db, prof2
 * trace.db, classic *.hpctrace and hpcviewer's merged experiment.mt. */
#ifndef CCT_TRACE_H
#define CCT_TRACE_H

#include "ingest_int.h"

#include <stdint.h>

typedef struct cct_traces cct_traces;

/* Finds the traces of the database in db_dir (format as cct_writer_open's)
 * and reads them once: checks every record (times in order, the file's
 * layout) and sums each context's traced time.  Memory holds one entry per
 * distinct context id, never the records.  *out is NULL (CCT_OK) when the
 * database has no traces or they hold no records.  Returns CCT_OK or an error
 * naming the file. */
int cct_traces_scan(const char *db_dir, const char *format, cct_traces **out, cct_err *err);

/* The traced time (seconds, summed over profiles) of the context whose trace
 * id is id (classic S@it, else its context id), entered with pre offset off
 * (pre - the run's root pre); 0 for a context no record names. */
double cct_traces_enter(cct_traces *t, int64_t id, int64_t off);

/* The writer's profile number of a profile: traces of the same identity (v4
 * and prof2: its source 'profile.db#N'; classic: node, rank and thread) refer
 * to it. */
void cct_traces_bind(cct_traces *t, const cct_profile_id *id, int64_t profile);

/* Where cct_traces_store puts what it encodes: the writer's trace tables
 * (writer.c), so that this file needs nothing of the writer.  Each call returns
 * CCT_OK or an error code whose text message(arg) gives; chunk takes z (a
 * malloc'd zstd frame of n records: n context offsets, then n time steps, all
 * little-endian) in every case. */
typedef struct cct_trace_sink {
  void *arg;
  int (*chunk)(void *arg, int64_t lane, int64_t seq, int64_t first, int64_t end, uint32_t n, void *z, size_t zn);
  int (*lane)(void *arg, int64_t lane, int64_t profile, const cct_profile_id *id, long long records,
              long long strays, int64_t first, int64_t last, int64_t busy);
  int (*run)(void *arg, int64_t t0, int64_t span, long long records, long long strays, long long lanes);
  const char *(*message)(void *arg);
} cct_trace_sink;

/* Reads the traces a second time and stores them through sink: per lane its
 * chunks of records then the lane, then the run; each record's context as its
 * pre offset.  A record naming a context that is not
 * in the tree is a stray: counted, and stored as idle; a trace of which most
 * records are strays is not this database's, an error naming the file.
 * Returns CCT_OK or an error. */
int cct_traces_store(cct_traces *t, const cct_trace_sink *sink, cct_err *err);

/* After cct_traces_store: the records stored and the strays among them. */
void cct_traces_counts(const cct_traces *t, long long *records, long long *strays);

/* Mixes the content of every trace file found (cct_traces_scan's, in its
 * order) into the content digest *h (cct_digest_update) and adds their sizes to
 * *bytes, so that a database whose traces differ is not 'the same content'.
 * Returns CCT_OK or an error naming the file. */
int cct_traces_digest(const cct_traces *t, uint64_t *h, long long *bytes, cct_err *err);

/* Frees t (NULL is a no-op). */
void cct_traces_free(cct_traces *t);

/* Records per stored chunk (trace_chunk row). */
enum { CCT_TRACE_CHUNK = 65536 };

#endif
