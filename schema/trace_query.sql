-- trace_query.sql: the statements the query library (query/window.c) reads a
-- run's traces with (tables of trace.sql).  Each follows a line '-- @NAME'.

-- @span  (?1 run) -> the run's traces: first record (ns since the epoch), span (ns), records, strays, lanes
SELECT t0, span, records, strays, lanes FROM trace_run WHERE run = ?1;

-- @lanes  (?1 run) -> every lane: its identity (NULL where not applicable), records, busy ns
SELECT lane, profile, node, rank, thread, core, gpucontext, gpustream, source, records, busy
FROM trace_lane WHERE run = ?1 ORDER BY lane;

-- @chunks  (?1 run) -> every chunk of records, by lane and time
SELECT lane, seq, first, end, n, data FROM trace_chunk WHERE run = ?1 ORDER BY lane, seq;

-- @has_tables  -> 1 when the archive has the trace tables (archives made before them have not)
SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'trace_run';
