-- listing.sql: the listings the query library hands to its clients as
-- prepared statements (query/listing.c: cct_query_listing, cct_query_find_run),
-- on the public views of views.sql.  Each statement follows a line '-- @NAME'
-- and is prepared by that name (cct_schema_prepare_named).  Parameters are
-- positional.

-- @runs  (?1 current run) -> the 'runs' listing, the current run marked; the note says
-- how many context ids of a v4 profile.db meta.db does not have (hpcprof elides
-- instruction contexts; their cost is in their ancestors), from the table run
SELECT r.run, r.run = ?1 AS current, r.title, r.format, r.contexts, r.profiles, r.ingested_at, r.path,
       CASE WHEN b.elided > 0 THEN b.elided || ' context ids have values but no context in the database '
         || '(hpcprof elides instruction contexts: their cost is in their ancestors)' END AS note
FROM runs r JOIN run b ON b.run = r.run ORDER BY r.run;

-- @metrics  (?1 run, ?2 display metric name) -> the 'metrics' listing: each metric with its
-- program total (the root context's inclusive value, as hpcprof stored it: the base of every
-- percentage; a rowid look-up in the table value, by run.root; an integer when whole) and
-- unit, the display metric marked current = 1, and the statistics of it that hpcprof stored
-- ('NAME:Mean' ... as 'metric' takes them: the accumulators each is finalized from,
-- vmetric.c); the display metric first, then metrics with data, each group in file order.
-- The note says when the root's children (the top-level rows of 'topdown' and 'flat') add up
-- to another figure than the stored total: classic experiment.xml prints every value, the
-- root's too, with 6 significant digits (gauss: the root 8.94138e+08, its children 894,137,690).
-- The children are the pre-order chain root + 1, then each one's last + 1 inside the root's.
WITH RECURSIVE top(pre, last) AS (SELECT pre, last FROM context WHERE pre = (SELECT root FROM run WHERE run = ?1)),
kids(pre) AS (SELECT top.pre + 1 FROM top WHERE top.last > top.pre
              UNION ALL SELECT c.last + 1 FROM kids JOIN context c ON c.pre = kids.pre, top WHERE c.last < top.last),
listed AS (
  SELECT m.metric, m.name = ?2 AS current, m.name, coalesce(v.inclusive, 0) AS total, m.unit, m.description,
         (SELECT coalesce(sum(k.inclusive), 0) FROM kids JOIN value k ON k.key = m.metric * CCT_VALUE_KEY + kids.pre) AS kids,
         (SELECT group_concat(st, ' ') FROM (
            SELECT 1 AS k, 'Mean' AS st WHERE EXISTS (SELECT 1 FROM metric x WHERE x.run = ?1 AND x.name = m.name
                                                       AND x.stat IN ('mean:num-src', 'count'))
            UNION ALL SELECT 2, 'StdDev' WHERE EXISTS (SELECT 1 FROM metric x WHERE x.run = ?1 AND x.name = m.name
                                                       AND x.stat IN ('stddev:accum2', 'sumsq'))
            UNION ALL SELECT 3, 'CfVar' WHERE EXISTS (SELECT 1 FROM metric x WHERE x.run = ?1 AND x.name = m.name
                                                      AND x.stat IN ('cfvar:accum2', 'sumsq'))
            UNION ALL SELECT 4, 'Min' WHERE EXISTS (SELECT 1 FROM metric x WHERE x.run = ?1 AND x.name = m.name
                                                    AND x.stat = 'min')
            UNION ALL SELECT 5, 'Max' WHERE EXISTS (SELECT 1 FROM metric x WHERE x.run = ?1 AND x.name = m.name
                                                    AND x.stat = 'max')
            ORDER BY k)) AS statistics
  FROM metrics m
  LEFT JOIN value v ON v.key = m.metric * CCT_VALUE_KEY + (SELECT root FROM run WHERE run = ?1)
  WHERE m.run = ?1)
SELECT metric, current, name,
       CASE WHEN total = round(total) AND abs(total) < 1e15 THEN CAST(total AS INTEGER) ELSE total END AS total,
       unit, statistics, description,
       CASE WHEN abs(kids - total) > 1e-9 * abs(total) THEN
         'its top-level contexts add up to ' ||
         CASE WHEN kids = round(kids) AND abs(kids) < 1e15 THEN CAST(kids AS INTEGER) ELSE kids END ||
         CASE WHEN (SELECT format FROM run WHERE run = ?1) LIKE 'classic%'
              THEN ' (experiment.xml keeps 6 significant digits of each value)' ELSE '' END END AS note
FROM listed
ORDER BY current DESC, total = 0, metric;

-- @run_count  -> how many runs the archive holds
SELECT count(*) FROM runs;

-- @find_run  (?1 number or -1, ?2 title) -> the run numbered ?1, else every run titled ?2
SELECT run FROM runs WHERE run = ?1
UNION ALL
SELECT run FROM runs WHERE title = ?2 AND NOT EXISTS (SELECT 1 FROM runs WHERE run = ?1);

-- @metric_unit  (?1 run, ?2 metric name) -> unit of a base metric (diff: times in other units are rescaled)
SELECT unit FROM metrics WHERE run = ?1 AND name = ?2;

-- @run_title  (?1 run) -> the run's title (diff)
SELECT title FROM runs WHERE run = ?1;
