-- shell.sql: the statements the cctq shell (query/shell.c) runs itself, on the
-- public views of views.sql.  Each statement follows a line '-- @NAME' and is
-- prepared by that name (cct_schema_prepare_named).  Parameters are positional.

-- @runs  (?1 current run) -> the 'runs' listing, the current run marked
SELECT run, run = ?1 AS current, title, format, contexts, profiles, ingested_at, path
FROM runs ORDER BY run;

-- @metrics  (?1 run, ?2 display metric name) -> the 'metrics' listing
SELECT metric, name = ?2 AS current, name, unit, description
FROM metrics WHERE run = ?1 ORDER BY metric;

-- @run_count  -> how many runs the archive holds (for 'diff')
SELECT count(*) FROM runs;
