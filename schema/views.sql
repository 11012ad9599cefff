-- views.sql: the public SQL interface of a cctq archive (SPEC section 3).
-- These views are the stable contract for other tools; the tables under them
-- (base.sql) may change between schema versions.  Kinds and relations are
-- spelled out as text here.

-- One row per ingested database.
CREATE VIEW IF NOT EXISTS runs AS
  SELECT run, path, format, title, ingested_at, contexts, profiles FROM run;

-- One row per base metric (its 'sum' statistic); the other statistics are
-- further rows of the table metric.
CREATE VIEW IF NOT EXISTS metrics AS
  SELECT run, id AS metric, name, unit, description FROM metric WHERE stat = 'sum';

-- Functions with their module and file paths.
CREATE VIEW IF NOT EXISTS functions AS
  SELECT f.run, f.id AS function, f.name, m.path AS module, fi.path AS file, f.line
  FROM function f
  LEFT JOIN module m ON m.run = f.run AND m.id = f.module
  LEFT JOIN file fi ON fi.run = f.run AND fi.id = f.file;

-- The calling-context tree; name is the function's name for function contexts,
-- parent the parent's id (the table holds its pre).
CREATE VIEW IF NOT EXISTS contexts AS
  SELECT c.run, c.id, p.id AS parent, c.depth,
         CASE c.kind WHEN 0 THEN 'root' WHEN 1 THEN 'function' WHEN 2 THEN 'loop'
                     WHEN 3 THEN 'line' ELSE 'instruction' END AS kind,
         CASE c.relation WHEN 0 THEN 'lexical' WHEN 1 THEN 'call' ELSE 'inlined' END AS relation,
         CASE WHEN c.kind = 1 OR c.frame = c.pre THEN f.name END AS name,
         fi.path AS file, c.line, m.path AS module, c.offset
  FROM context c
  LEFT JOIN context p ON p.pre = c.parent
  LEFT JOIN function f ON f.run = c.run AND f.id = c.function
  LEFT JOIN file fi ON fi.run = c.run AND fi.id = c.file
  LEFT JOIN module m ON m.run = c.run AND m.id = coalesce(c.module, f.module);

-- Summary (sum) values per context; exclusive is the 'function' scope (value.key is
-- metric * 2^40 + pre).
CREATE VIEW IF NOT EXISTS context_values AS
  SELECT c.run, c.id, m.id AS metric, v.inclusive, v.exclusive
  FROM context c JOIN metric m ON m.run = c.run AND m.stat = 'sum'
  JOIN value v ON v.key = m.id * CCT_VALUE_KEY + c.pre;

-- Per-function totals: inclusive by the outermost rule (recursion counted once),
-- exclusive summed.
CREATE VIEW IF NOT EXISTS flat AS
  SELECT t.run, t.key AS function, t.metric, t.inclusive, t.exclusive
  FROM scope_total t JOIN metric m ON m.run = t.run AND m.id = t.metric AND m.stat = 'sum'
  WHERE t.kind = 0;
