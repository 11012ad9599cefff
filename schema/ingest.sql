-- ingest.sql: the statements the ingest writer (ingest/writer.c) runs.
-- Each statement follows a line '-- @NAME' and is prepared by that name
-- (cct_schema_prepare_named).  Parameters are positional, as listed.

-- @find_digest  (?1 digest) -> run of an existing run with the same content
SELECT run FROM run WHERE digest = ?1;

-- @next_run  -> the number the new run gets
SELECT coalesce(max(run), 0) + 1 FROM run;

-- @insert_run  (run, path, format, title, ingested_at, tool, digest)
INSERT INTO run(run, path, format, title, ingested_at, tool, digest, contexts, profiles)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 0, 0);

-- @finish_run  (run, contexts, profiles, elided, seconds, root)
UPDATE run SET contexts = ?2, profiles = ?3, elided = ?4, seconds = ?5, root = ?6 WHERE run = ?1;

-- @next_pre  -> the pre-order number the new run's root gets
SELECT coalesce(max(pre), -1) + 1 FROM context;

-- @insert_module  (run, id, path)
INSERT INTO module(run, id, path) VALUES (?1, ?2, ?3);

-- @insert_file  (run, id, path, size, source)
INSERT INTO file(run, id, path, size, source) VALUES (?1, ?2, ?3, ?4, ?5);

-- @insert_function  (run, id, name, module, file, line, class, namespace)
INSERT INTO function(run, id, name, module, file, line, class, namespace)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8);

-- @insert_metric  (run, id, name, stat, unit, description, has_lex)
INSERT INTO metric(run, id, name, stat, unit, description, has_lex) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7);

-- @insert_context  (run, id, parent, depth, kind, relation, function, file, line, module,
--                   offset, callsite, call_file, call_line, pre, last, frame, fdepth,
--                   fparent, ldepth, lparent, nframes)
INSERT INTO context(run, id, parent, depth, kind, relation, function, file, line, module, offset,
                    callsite, call_file, call_line, pre, last, frame, fdepth, fparent, ldepth, lparent, nframes)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22);

-- @insert_value  (run, metric, pre, inclusive, exclusive, exclusive_lex)
INSERT INTO value(run, metric, pre, inclusive, exclusive, exclusive_lex) VALUES (?1, ?2, ?3, ?4, ?5, ?6);

-- @insert_scope_total  (run, kind, key, line, metric, inclusive, exclusive)
INSERT INTO scope_total(run, kind, key, line, metric, inclusive, exclusive) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7);

-- @insert_profile  (run, id, node, rank, thread, core, gpucontext, gpustream, source)
INSERT INTO profile(run, id, node, rank, thread, core, gpucontext, gpustream, source)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9);

-- @insert_profile_value  (run, profile, metric, data)
INSERT INTO profile_value(run, profile, metric, data) VALUES (?1, ?2, ?3, ?4);

-- @delete_run  (run): every row of a run, for --replace and --remove
DELETE FROM profile_value WHERE run = ?1;
DELETE FROM profile WHERE run = ?1;
DELETE FROM scope_total WHERE run = ?1;
DELETE FROM value WHERE run = ?1;
DELETE FROM context WHERE run = ?1;
DELETE FROM metric WHERE run = ?1;
DELETE FROM function WHERE run = ?1;
DELETE FROM file WHERE run = ?1;
DELETE FROM module WHERE run = ?1;
DELETE FROM run WHERE run = ?1;

-- @list_runs  -> the runs of an archive, for cctingest --list
SELECT run, title, ingested_at, format, contexts, profiles,
       (SELECT count(*) FROM metric m WHERE m.run = r.run AND m.stat = 'sum') AS metrics, path, elided
FROM run r ORDER BY run;

-- @has_run  (run) -> 1 when the archive holds that run
SELECT 1 FROM run WHERE run = ?1;
