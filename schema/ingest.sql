-- ingest.sql: the statements the ingest writer (ingest/writer.c) runs.
-- Each statement follows a line '-- @NAME' and is prepared by that name
-- (cct_schema_prepare_named).  Parameters are positional, as listed.  The
-- inserts read a batch of rows from the writer's virtual table cct_rows
-- (ingest/rowtab.c: columns a1, a2, ... in the order listed), one statement
-- step per batch.

-- @tune_new  a new archive, built in a temporary file that is renamed into place only when
-- complete (so no journal and no syncs while writing it), with a page cache of 256 MiB and
-- two sorter threads for the index builds
PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;
PRAGMA cache_size = -262144;
PRAGMA temp_store = MEMORY;
PRAGMA threads = 2;

-- @tune_append  a run appended to an existing archive, in place: its journal stays (a crash
-- or kill -9 leaves the archive as it was), synced at commit
PRAGMA synchronous = NORMAL;
PRAGMA cache_size = -262144;
PRAGMA temp_store = MEMORY;
PRAGMA threads = 2;

-- @begin  the one write transaction of an ingest or a removal
BEGIN IMMEDIATE;

-- @analyze  planner statistics, sampled, before COMMIT (nothing that can fail after it)
PRAGMA analysis_limit = 1000;
ANALYZE;

-- @commit  ends the write transaction
COMMIT;

-- @rollback  after a failure: nothing of the run stays
ROLLBACK;

-- @wal  a new archive, once complete: readers and a later appending ingest do not block each other
PRAGMA journal_mode = WAL;

-- @find_digest  (?1 digest) -> run of an existing run with the same content
SELECT run FROM run WHERE digest = ?1;

-- @next_run  -> the number the new run gets
SELECT coalesce(max(run), 0) + 1 FROM run;

-- @insert_run  (run, path, format, title, ingested_at, tool, digest)
INSERT INTO run(run, path, format, title, ingested_at, tool, digest, contexts, profiles)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 0, 0);

-- @finish_run  (run, contexts, profiles, elided, seconds, root, primary metric)
UPDATE run SET contexts = ?2, profiles = ?3, elided = ?4, seconds = ?5, root = ?6, primary_metric = ?7 WHERE run = ?1;

-- @next_pre  -> the pre-order number the new run's root gets
SELECT coalesce(max(pre), -1) + 1 FROM context;

-- @insert_module  (run, id, path)
INSERT INTO module(run, id, path) SELECT a1, a2, a3 FROM cct_rows;

-- @insert_file  (run, id, path, size, source)
INSERT INTO file(run, id, path, size, source) SELECT a1, a2, a3, a4, a5 FROM cct_rows;

-- @insert_function  (run, id, name, module, file, line, class, namespace)
INSERT INTO function(run, id, name, module, file, line, class, namespace)
SELECT a1, a2, a3, a4, a5, a6, a7, a8 FROM cct_rows;

-- @insert_metric  (run, id, name, stat, unit, description, has_lex)
INSERT INTO metric(run, id, name, stat, unit, description, has_lex) SELECT a1, a2, a3, a4, a5, a6, a7 FROM cct_rows;

-- @insert_context  (run, id, parent, depth, kind, relation, function, file, line, module,
--                   offset, callsite, call_file, call_line, pre, last, frame, fdepth,
--                   fparent, ldepth, lparent, nframes, inclusive, exclusive, exclusive_lex)
INSERT INTO context(run, id, parent, depth, kind, relation, function, file, line, module, offset,
                    callsite, call_file, call_line, pre, last, frame, fdepth, fparent, ldepth, lparent, nframes,
                    inclusive, exclusive, exclusive_lex)
SELECT a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22,
       a23, a24, a25 FROM cct_rows;

-- @insert_value  (key = metric * 2^40 + pre, inclusive, exclusive, exclusive_lex)
INSERT INTO value(key, inclusive, exclusive, exclusive_lex) SELECT a1, a2, a3, a4 FROM cct_rows;

-- @insert_by_function  (run, function, kind, pre), in key order
INSERT INTO context_by_function(run, function, kind, pre) SELECT a1, a2, a3, a4 FROM cct_rows;

-- @insert_by_line  (run, file, line, kind, pre), in key order
INSERT INTO context_by_line(run, file, line, kind, pre) SELECT a1, a2, a3, a4, a5 FROM cct_rows;

-- @insert_scope_total  (run, kind, key, line, metric, inclusive, exclusive, contexts)
INSERT INTO scope_total(run, kind, key, line, metric, inclusive, exclusive, contexts)
SELECT a1, a2, a3, a4, a5, a6, a7, a8 FROM cct_rows;

-- @insert_profile  (run, id, node, rank, thread, core, gpucontext, gpustream, source)
INSERT INTO profile(run, id, node, rank, thread, core, gpucontext, gpustream, source)
SELECT a1, a2, a3, a4, a5, a6, a7, a8, a9 FROM cct_rows;

-- @insert_profile_value  (run, profile, metric, data)
INSERT INTO profile_value(run, profile, metric, data) SELECT a1, a2, a3, a4 FROM cct_rows;

-- @insert_trace_chunk  (run, lane, seq, first, end, n, data): see trace.sql
INSERT INTO trace_chunk(run, lane, seq, first, end, n, data) SELECT a1, a2, a3, a4, a5, a6, a7 FROM cct_rows;

-- @insert_trace_lane  (run, lane, profile, node, rank, thread, core, gpucontext, gpustream, source, records, strays, first, last, busy)
INSERT INTO trace_lane(run, lane, profile, node, rank, thread, core, gpucontext, gpustream, source, records, strays, first,
                       last, busy)
SELECT a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15 FROM cct_rows;

-- @insert_trace_run  (run, t0, span, records, strays, lanes)
INSERT INTO trace_run(run, t0, span, records, strays, lanes) SELECT a1, a2, a3, a4, a5, a6 FROM cct_rows;

-- @delete_run  (run): every row of a run, for --replace and --remove
DELETE FROM tree_image WHERE run = ?1;
DELETE FROM trace_chunk WHERE run = ?1;
DELETE FROM trace_lane WHERE run = ?1;
DELETE FROM trace_run WHERE run = ?1;
DELETE FROM profile_value WHERE run = ?1;
DELETE FROM profile WHERE run = ?1;
DELETE FROM scope_total WHERE run = ?1;
DELETE FROM value WHERE key IN (
  SELECT v.key FROM metric m, run r JOIN context c ON c.pre = r.root, value v
  WHERE m.run = ?1 AND r.run = ?1 AND v.key BETWEEN m.id * CCT_VALUE_KEY + c.pre AND m.id * CCT_VALUE_KEY + c.last);
DELETE FROM context_by_function WHERE run = ?1;
DELETE FROM context_by_line WHERE run = ?1;
DELETE FROM context WHERE run = ?1;
DELETE FROM metric WHERE run = ?1;
DELETE FROM function WHERE run = ?1;
DELETE FROM file WHERE run = ?1;
DELETE FROM module WHERE run = ?1;
DELETE FROM run WHERE run = ?1;

-- @tree_rows  (?1 run) -> the run's contexts in pre order, the fields of the tree image
-- (common/cct_tree.h), NULL pointers, lines and ids as -1 / 0
SELECT pre, id, ifnull(parent, -1), last, depth, frame, fdepth, ifnull(fparent, -1), ldepth, ifnull(lparent, -1),
       nframes, ifnull(function, 0), ifnull(file, 0), ifnull(line, -1), ifnull(module, 0), ifnull(call_file, 0),
       ifnull(call_line, -1), ifnull(offset, 0), kind, relation, callsite, inclusive, exclusive, exclusive_lex
FROM context WHERE run = ?1 ORDER BY pre;

-- @insert_tree_image  (?1 run, ?2 version, ?3 nodes, ?4 image)
INSERT OR REPLACE INTO tree_image(run, version, nodes, data) VALUES (?1, ?2, ?3, ?4);

-- @reindex_done  the archive now has every image: the current schema version
PRAGMA user_version = 5;

-- @list_runs  -> the runs of an archive, for cctingest --list
SELECT run, title, ingested_at, format, contexts, profiles,
       (SELECT count(*) FROM metric m WHERE m.run = r.run AND m.stat = 'sum') AS metrics, path, elided
FROM run r ORDER BY run;

-- @has_run  (run) -> 1 when the archive holds that run
SELECT 1 FROM run WHERE run = ?1;
