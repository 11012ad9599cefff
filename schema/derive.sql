-- derive.sql: the statements of ingest/derive.c, which reads one run of an
-- archive back (tree, values, declarations, profiles) to write it again with
-- filters applied (SPEC section 5, Filters) as the one run of a new archive.
-- Each statement follows a line '-- @NAME'; ?1 is always the run.

-- @run  (?1 run) -> path, format, title, digest, root pre, root last
SELECT r.path, r.format, r.title, r.digest, c.pre, c.last
FROM run r JOIN context c ON c.pre = r.root WHERE r.run = ?1;

-- @modules  (?1 run) -> id, path
SELECT id, path FROM module WHERE run = ?1 ORDER BY id;

-- @files  (?1 run) -> id, path, size, zstd frame of the stored copy (NULL when none)
SELECT id, path, size, source FROM file WHERE run = ?1 ORDER BY id;

-- @functions  (?1 run) -> id, name, module, file, line (synthetic MODULE+0xOFFSET ones included)
SELECT id, name, module, file, line FROM function WHERE run = ?1 ORDER BY id;

-- @metrics  (?1 run) -> id, name, description, has_lex of the 'sum' columns (the others,
-- mean, min, max, ..., are statistics over profiles that a filter cannot recompute)
SELECT id, name, description, has_lex FROM metric WHERE run = ?1 AND stat = 'sum' ORDER BY id;

-- @contexts  (?1 run, ?2 root pre, ?3 root last) -> the run's tree in pre-order: id, kind, relation,
-- function, file, line, module, offset, callsite, last, whether it is a frame
SELECT id, kind, relation, function, file, line, module, offset, callsite, last, frame = pre
FROM context WHERE pre BETWEEN ?2 AND ?3 ORDER BY pre;

-- @values  (?1 run, ?2 metric, ?3 root pre, ?4 root last) -> pre, inclusive, exclusive,
-- exclusive_lex of one metric column (one rowid range: value.key = metric * 2^40 + pre)
SELECT key - ?2 * CCT_VALUE_KEY, inclusive, exclusive, exclusive_lex FROM value
WHERE key BETWEEN ?2 * CCT_VALUE_KEY + ?3 AND ?2 * CCT_VALUE_KEY + ?4;

-- @profiles  (?1 run) -> id, node, rank, thread, core, gpucontext, gpustream, source
SELECT id, node, rank, thread, core, gpucontext, gpustream, source FROM profile WHERE run = ?1 ORDER BY id;

-- @profile_values  (?1 run, ?2 profile, ?3 metric) -> the zstd frame of one profile's values
SELECT data FROM profile_value WHERE run = ?1 AND profile = ?2 AND metric = ?3;
