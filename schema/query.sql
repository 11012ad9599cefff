-- query.sql: the statements the query library (query/) runs.
-- Each statement follows a line '-- @NAME' and is prepared once per session by
-- that name (cct_schema_prepare_named, cached in the session).  Parameters are
-- positional, as listed; ?1 is always the run.  The views walk the run's tree
-- image in memory (common/cct_tree.h); what they still read here (names, paths,
-- other metrics' values, static-scope totals) are range scans or point look-ups,
-- pinned by tests/unit/test_query.c (no full scan of context in a view).

-- @begin  one read transaction around a whole view or center resolution, so that the
-- hundreds of point look-ups of a view do not each take and release the file locks
BEGIN;

-- @commit  ends the read transaction of @begin
COMMIT;

-- @cells  on every connection to an archive (schema.c): SQLite checks each b-tree cell's
-- size against its page as it reads it, so a damaged page is an error ("database disk image
-- is malformed") rather than rows read from garbage (a LULESH archive with 200 bytes of its
-- first scope_total leaf overwritten listed 98 of 274 functions with status 0)
PRAGMA cell_size_check = ON;

-- @check_tables  at open (archive.c): SQLite's integrity_check of the small tables whose rows
-- the views find by key (runs, metrics, modules, files, functions, profiles).  Cell checks
-- miss damage inside a cell: a page of function swapped with another page listed numbers as
-- function names with status 0, garbled keys end a range scan early.  -> the first problem
SELECT t.column1 || ': ' || c.integrity_check
FROM (VALUES ('run'), ('metric'), ('module'), ('file'), ('function'), ('profile')) t,
     pragma_integrity_check(t.column1) c
WHERE c.integrity_check <> 'ok' LIMIT 1;

-- @check_totals  the same for scope_total, before a statement first reads it (flat lost rows
-- from a damaged leaf with status 0); at first use, not at open: it is ~2 % of an archive
SELECT 'scope_total: ' || integrity_check FROM pragma_integrity_check('scope_total')
WHERE integrity_check <> 'ok' LIMIT 1;

-- @mmap  at open: read the archive through a memory map (no copy per page read)
PRAGMA mmap_size = 4294967296;

-- @cache  at open: a page cache large enough for the pages one view touches
PRAGMA cache_size = -65536;

-- @image_mmap_off  before reading a tree image (archive.c, then @mmap and @cache again): without
-- the map and with a small cache SQLite reads each overflow page of the BLOB straight into the
-- caller's buffer (one pread, no copy out of a mapped page, no page of cache filled): 30-50 ms
-- of CPU for the 100 MB image of a 1M-context run, 110-375 ms through the map
PRAGMA mmap_size = 0;

-- @image_cache  with @image_mmap_off: a small page cache (16 pages) while the image is read
PRAGMA cache_size = 16;

-- @runs  -> every run number, ascending
SELECT run FROM run ORDER BY run;

-- @run_exists  (?1 run) -> 1 when the run exists, and the database directory it was ingested from
SELECT 1, path FROM run WHERE run = ?1;

-- @columns  (?1 run) -> metric columns (id, base name, stat, whether it is the primary metric
-- whose values context rows carry), 'sum' ones first, by id
SELECT id, name, stat, id IS (SELECT primary_metric FROM run WHERE run = ?1)
FROM metric WHERE run = ?1 ORDER BY stat <> 'sum', id;

-- @root  (?1 run) -> the root context (its pre is run.root), with the values of the run's
-- primary metric (run.primary_metric) it carries; NULL pointers and lines read as -1, NULL
-- ids as 0 (q_read_ctx)
SELECT id, pre, last, frame, fdepth, ldepth, kind, relation, callsite, function, ifnull(fparent, -1), file,
       ifnull(line, -1), call_file, ifnull(call_line, -1), module, offset, nframes, inclusive, exclusive, exclusive_lex
FROM context WHERE pre = (SELECT root FROM run WHERE run = ?1);

-- @ctx  (?1 run, ?2 id) -> one context (same columns as @root), by the database id
SELECT id, pre, last, frame, fdepth, ldepth, kind, relation, callsite, function, ifnull(fparent, -1), file,
       ifnull(line, -1), call_file, ifnull(call_line, -1), module, offset, nframes, inclusive, exclusive, exclusive_lex
FROM context WHERE run = ?1 AND id = ?2;

-- @value  (?1 run, ?2 metric, ?3 context pre) -> inclusive, exclusive, exclusive_lex (no row = 0):
-- a rowid look-up (value.key = metric * 2^40 + pre; ?1 is not needed, pre is unique in the archive)
SELECT inclusive, exclusive, exclusive_lex FROM value WHERE key = ?2 * CCT_VALUE_KEY + ?3;

-- @values  (?1 run, ?2 keys, ?3 metric) -> i, inclusive, exclusive, exclusive_lex of the
-- contexts whose pre numbers are the keys bound to ?2 (cct_keys, query/keys.c; i: the key's
-- index, no row where a context has no value): a rowid look-up per key in one statement run
SELECT k.i, v.inclusive, v.exclusive, v.exclusive_lex
FROM cct_keys(?2) k CROSS JOIN value v ON v.key = ?3 * CCT_VALUE_KEY + k.key;

-- @column_values  (?1 run, ?2 metric, ?3 first pre, ?4 last pre) -> pre, inclusive, exclusive,
-- exclusive_lex of one metric column over a range of contexts (one rowid range: value.key =
-- metric * 2^40 + pre): what a filtered run carries through its filters (query/archive.c)
SELECT key - ?2 * 1099511627776, inclusive, exclusive, exclusive_lex FROM value
WHERE key BETWEEN ?2 * 1099511627776 + ?3 AND ?2 * 1099511627776 + ?4;

-- @function_info  (?1 run, ?2 function) -> name, module id, file id, line, file path, module path
SELECT f.name, f.module, f.file, f.line, fi.path, m.path
FROM function f
LEFT JOIN file fi ON fi.run = f.run AND fi.id = f.file
LEFT JOIN module m ON m.run = f.run AND m.id = f.module
WHERE f.run = ?1 AND f.id = ?2;

-- @file_path  (?1 run, ?2 file) -> path
SELECT path FROM file WHERE run = ?1 AND id = ?2;

-- @module_path  (?1 run, ?2 module) -> path
SELECT path FROM module WHERE run = ?1 AND id = ?2;

-- @functions_by_name  (?1 run, ?2 name) -> function ids named NAME, with or without
-- hpcprof's ' [module]' decoration of names from binaries without source information
-- ('_int_free' covers '_int_free [libc-2.28.so]', SPEC section 4): the decorated names
-- are the index range from 'NAME [' up to 'NAME \' ('\' follows '[' in ASCII).
SELECT id FROM function WHERE run = ?1 AND name = ?2
UNION ALL
SELECT id FROM function
WHERE run = ?1 AND name > ?2 || ' [' AND name < ?2 || ' \' AND substr(name, -1) = ']';

-- @functions_by_glob  (?1 run, ?2 pattern) -> function ids whose name matches the GLOB
SELECT id FROM function WHERE run = ?1 AND name GLOB ?2;

-- @function_names  (?1 run) -> every function (id, name), for regular expressions and suggestions
SELECT id, name FROM function WHERE run = ?1;

-- @functions_by_file  (?1 run, ?2 file) -> functions defined in a file
SELECT id FROM function WHERE run = ?1 AND file = ?2;

-- @functions_by_module  (?1 run, ?2 module) -> functions of a load module
SELECT id FROM function WHERE run = ?1 AND module = ?2;

-- @functions_by_class  (?1 run, ?2 name) -> functions whose class is NAME or ends with '::NAME'
SELECT id FROM function
WHERE run = ?1 AND (class = ?2 OR substr(class, -length(?2) - 2) = '::' || ?2);

-- @functions_by_namespace  (?1 run, ?2 name) -> functions whose namespace is NAME or starts with 'NAME::'
SELECT id FROM function
WHERE run = ?1 AND (namespace = ?2 OR substr(namespace, 1, length(?2) + 2) = ?2 || '::');

-- @files  (?1 run) -> every file (id, path), for suffix matching in C
SELECT id, path FROM file WHERE run = ?1;

-- @modules  (?1 run) -> every module (id, path), for suffix matching in C
SELECT id, path FROM module WHERE run = ?1;

-- @contexts_at  (?1 run, ?2 file, ?3 line, ?4 kind) -> contexts of a kind at file:line (columns of @root)
SELECT c.id, c.pre, c.last, c.frame, c.fdepth, c.ldepth, c.kind, c.relation, c.callsite, c.function,
       ifnull(c.fparent, -1), c.file, ifnull(c.line, -1), c.call_file, ifnull(c.call_line, -1), c.module, c.offset,
       c.nframes, c.inclusive, c.exclusive, c.exclusive_lex
FROM context_by_line CROSS JOIN context c ON c.pre = context_by_line.pre
WHERE context_by_line.run = ?1 AND context_by_line.file = ?2 AND context_by_line.line = ?3
  AND context_by_line.kind = ?4 AND context_by_line.line >= 0;

-- @instructions_at  (?1 run, ?2 module, ?3 offset) -> lexical instruction contexts at module+offset
-- (no index: used only to resolve an '@N' item naming an instruction row)
SELECT id, pre, last, frame, fdepth, ldepth, kind, relation, callsite, function, ifnull(fparent, -1), file,
       ifnull(line, -1), call_file, ifnull(call_line, -1), module, offset, nframes, inclusive, exclusive, exclusive_lex
FROM context WHERE run = ?1 AND module = ?2 AND offset = ?3 AND kind = 4;

-- @line_costs  (?1 run, ?2 file, ?3 metric) -> lines of a file with cost (suggestions, source view)
SELECT line, inclusive, exclusive FROM scope_total
WHERE run = ?1 AND kind = 2 AND metric = ?3 AND key = ?2 ORDER BY line;

-- @loop_costs  (?1 run, ?2 file, ?3 metric) -> loop header lines of a file with cost (suggestions)
SELECT line, inclusive, exclusive FROM scope_total
WHERE run = ?1 AND kind = 1 AND metric = ?3 AND key = ?2 ORDER BY line;

-- @functions_at  (?1 run, ?2 file, ?3 line) -> names of the functions defined at file:line
-- (error messages only: a scan of the run's functions)
SELECT DISTINCT name FROM function WHERE run = ?1 AND file = ?2 AND line = ?3 ORDER BY name;

-- @occ_function  (?1 run, ?2 function) -> the function's occurrences: its frames, as @function_frames
-- lists them (function contexts; instruction contexts entered by a call), counted on context_by_function
SELECT count(*) FROM context_by_function WHERE run = ?1 AND function = ?2 AND kind IN (1, 4);

-- @flat  (?1 run, ?2 kind, ?3 metric) -> static scopes of a kind (CCT_TOTAL_*): key, line,
-- inclusive, exclusive, contexts
SELECT key, line, inclusive, exclusive, contexts FROM scope_total WHERE run = ?1 AND kind = ?2 AND metric = ?3;

-- @flat_one  (?1 run, ?2 kind, ?3 metric, ?4 key, ?5 line) -> inclusive, exclusive, contexts of one scope
SELECT inclusive, exclusive, contexts FROM scope_total
WHERE run = ?1 AND kind = ?2 AND metric = ?3 AND key = ?4 AND line = ?5;

-- @file_contexts  (?1 run, ?2 file) -> the loop and line contexts of a file (pre, last,
-- frame, line, kind), in pre order: the source view's marks and center share
SELECT c.pre, c.last, c.frame, c.line, c.kind
FROM context_by_line CROSS JOIN context c ON c.pre = context_by_line.pre
WHERE context_by_line.run = ?1 AND context_by_line.file = ?2 ORDER BY c.pre;

-- @source  (?1 run, ?2 file) -> size, zstd frame of the stored copy (NULL when none)
SELECT size, source FROM file WHERE run = ?1 AND id = ?2;

-- @profiles  (?1 run) -> profiles with their identity
SELECT id, node, rank, thread, gpucontext, gpustream FROM profile WHERE run = ?1 ORDER BY id;

-- @profile_values  (?1 run, ?2 metric) -> per-profile value blobs of one metric
SELECT profile, data FROM profile_value WHERE run = ?1 AND metric = ?2;

-- @complete_functions  (?1 run, ?2 prefix) -> distinct function names starting with prefix
-- (in order, so a name comes right before its ' [module]'-decorated forms)
SELECT DISTINCT name FROM function
WHERE run = ?1 AND name >= ?2 AND name < ?2 || char(1114111) ORDER BY name;

-- @complete_metrics  (?1 run) -> distinct base metric names
SELECT DISTINCT name FROM metric WHERE run = ?1 ORDER BY name;

-- @recursive_functions  (?1 run) -> functions with a frame below another frame of the same
-- function (direct or indirect recursion), with the number of such nested frames
SELECT c.function, count(*) FROM context_by_function c
WHERE c.run = ?1 AND c.kind IN (1, 4)
  AND EXISTS (SELECT 1 FROM context_by_function a CROSS JOIN context ac ON ac.pre = a.pre
              WHERE a.run = c.run AND a.function = c.function AND a.kind IN (1, 4)
                AND a.pre < c.pre AND ac.last >= c.pre)
GROUP BY c.function ORDER BY count(*) DESC;
