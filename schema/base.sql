-- base.sql: the tables of a cctq archive (schema version 5).
--
-- One archive holds many runs; every table is keyed by run.  These tables are
-- private to cctq and may change between schema versions; other tools read the
-- public views of views.sql instead.  Indexes are in indexes.sql, created after
-- the bulk load of a new archive (faster than maintaining them row by row).
--
-- Enumerations used below:
--   context.kind      0 root, 1 function, 2 loop, 3 line, 4 instruction
--   context.relation  0 lexical, 1 call, 2 inlined   (to the parent context)
--   scope_total.kind  0 function, 1 loop, 2 line, 3 file, 4 module
--   (the codes of common/cct_kinds.h, shared by ingest and query; CHECKed below)

-- One ingested HPCToolkit database.
CREATE TABLE IF NOT EXISTS run(
  run         INTEGER PRIMARY KEY,  -- run number, 1, 2, ... in ingest order
  path        TEXT NOT NULL,        -- database directory as given to cctingest (absolute)
  format      TEXT NOT NULL,        -- 'classic', 'classic+mdb', 'prof2' or 'v4'
  title       TEXT NOT NULL,        -- --title, else the database's own title
  ingested_at TEXT NOT NULL,        -- UTC, ISO 8601
  tool        TEXT NOT NULL,        -- cctingest version that wrote the run
  digest      TEXT NOT NULL,        -- content hash of the input; refuses re-ingest
  contexts    INTEGER NOT NULL,     -- number of context rows (root included)
  profiles    INTEGER NOT NULL,     -- number of per-thread/rank/stream profiles
  elided      INTEGER NOT NULL DEFAULT 0, -- v4: context ids with values but absent from meta.db
  root        INTEGER,              -- context.pre of the run's root
  seconds     REAL,                 -- ingest wall time
  primary_metric INTEGER            -- metric.id whose values context rows carry (see context), NULL: none
);

-- Load modules (binaries and shared libraries).
CREATE TABLE IF NOT EXISTS module(
  run   INTEGER NOT NULL,
  id    INTEGER NOT NULL,           -- cctq's id, dense from 1 within the run
  path  TEXT NOT NULL,              -- path as recorded by HPCToolkit
  PRIMARY KEY(run, id)
) WITHOUT ROWID;

-- Source files, with the database's copy of the text when it has one.
CREATE TABLE IF NOT EXISTS file(
  run     INTEGER NOT NULL,
  id      INTEGER NOT NULL,         -- cctq's id, dense from 1 within the run
  path    TEXT NOT NULL,            -- path as recorded (classic './src/...' for copies)
  size    INTEGER,                  -- bytes of source text, NULL when no copy
  source  BLOB,                     -- zstd frame of the source text, NULL when no copy
  PRIMARY KEY(run, id)
) WITHOUT ROWID;

-- Functions (classic procedures, v4 function records, and synthetic frames
-- MODULE+0xOFFSET for instruction contexts entered by a call), one row per
-- function identity (SPEC section 5): the database's records that agree on
-- name, module, file and line (hpcprof writes one v4 record per inlined
-- instance) are one row.  Modules and files likewise are one row per path.
-- Schema version 2; version 1 kept one row per record.
CREATE TABLE IF NOT EXISTS function(
  run       INTEGER NOT NULL,
  id        INTEGER NOT NULL,       -- cctq's id, dense from 1 within the run
  name      TEXT NOT NULL,          -- name as recorded (demangled by hpcstruct)
  module    INTEGER,                -- module.id, NULL when unknown
  file      INTEGER,                -- file.id of the definition, NULL when unknown
  line      INTEGER,                -- line of the definition, NULL when unknown
  class     TEXT,                   -- C++ class parsed from the name ('ns::C' of 'ns::C::f(int)')
  namespace TEXT,                   -- C++ namespace parsed from the name ('ns')
  PRIMARY KEY(run, id)
) WITHOUT ROWID;

-- The calling-context tree, one row per node.  Contexts are named by their
-- pre-order number 'pre' (the row's rowid, unique in the archive): every pointer
-- of the tree below (parent, frame, fparent, lparent) holds a pre, so walking
-- the tree is rowid look-ups (schema version 4; version 3 held the database's
-- ids there).  Each row also carries the values of one metric, the run's
-- primary metric: the 'sum' metric cct_metric_rank prefers (CPU time, real time,
-- cycles, GPU time, ...; the first in file order among equals), which is the one
-- a run opens on unless it has no data.  Besides the tree each row carries the numbering that turns
-- subtree and level questions into index range scans (see indexes.sql):
--   pre..last    pre-order interval: y is in x's subtree iff x.pre <= y.pre <= x.last
--   frame        the nearest ancestor-or-self that is a frame (function context, or
--                instruction context entered by a call); the root is its own frame
--   fdepth       number of frames strictly above 'frame' (function-granularity level)
--   ldepth       line-granularity level: frames, loops and lines count, except that the
--                callee of a call-site line sits at the level of its call site (and
--                shares its lparent), so it takes the call site's place in line views
CREATE TABLE IF NOT EXISTS context(
  pre       INTEGER PRIMARY KEY,    -- pre-order number, unique in the archive
  run       INTEGER NOT NULL,
  id        INTEGER NOT NULL,       -- the database's own id (classic i, v4 ctxId; root 0/1), for '#ID'
  parent    INTEGER,                -- parent's pre, NULL for the root
  depth     INTEGER NOT NULL,       -- root 0
  kind      INTEGER NOT NULL CHECK(kind BETWEEN 0 AND 4),     -- 0 root, 1 function, 2 loop, 3 line, 4 instruction
  relation  INTEGER NOT NULL CHECK(relation BETWEEN 0 AND 2), -- 0 lexical, 1 call, 2 inlined
  function  INTEGER,                -- function.id for frames, else the enclosing frame's
  file      INTEGER,                -- file.id of the source location, NULL if unknown
  line      INTEGER,                -- source line (loop: header line), NULL if unknown
  module    INTEGER,                -- module.id for instruction contexts, and loops with an address
  offset    INTEGER,                -- offset in the module for those (loops: HPCToolkit >= 2023.08, classic L v=)
  callsite  INTEGER NOT NULL DEFAULT 0, -- 1 for a line context whose children are calls
  call_file INTEGER,                -- frames: file of the call-site line that leads here
  call_line INTEGER,                -- frames: line of that call site
  last      INTEGER NOT NULL,       -- largest pre in the subtree
  frame     INTEGER NOT NULL,       -- pre of the nearest ancestor-or-self frame (frame = pre: a frame)
  fdepth    INTEGER NOT NULL,       -- frames above 'frame'
  fparent   INTEGER,                -- frames: pre of the parent's frame (the caller's row); others: frame
  ldepth    INTEGER NOT NULL,       -- line-granularity level
  lparent   INTEGER,                -- pre of the nearest ancestor at level ldepth - 1
  nframes   INTEGER NOT NULL,       -- frames strictly inside the subtree (0: no callees below)
  inclusive     REAL NOT NULL,      -- the values of the metric run.primary_metric, as in the table
  exclusive     REAL NOT NULL,      -- value (0 where it has no row): the row a view reads for a
  exclusive_lex REAL NOT NULL       -- context brings them along, with no look-up of its own
);

-- Contexts by function and by source location, for resolving centers: what an
-- index on context(run, function, kind) and on context(run, file, line, kind)
-- would hold, written by the ingest writer in key order (schema version 3;
-- version 2 had those indexes, whose sort by SQLite cost a third of ingest).
-- context_by_function: the frames of each function (kind 1 function contexts,
-- kind 4 instruction contexts entered by a call) and the loops and lines
-- (kind 2, 3) inside its frames.
CREATE TABLE IF NOT EXISTS context_by_function(
  run      INTEGER NOT NULL,
  function INTEGER NOT NULL,        -- context.function
  kind     INTEGER NOT NULL CHECK(kind BETWEEN 1 AND 4), -- context.kind
  pre      INTEGER NOT NULL,        -- context.pre
  PRIMARY KEY(run, function, kind, pre)
) WITHOUT ROWID;

-- context_by_line: the loops and lines with a known file (line -1 when unknown).
CREATE TABLE IF NOT EXISTS context_by_line(
  run  INTEGER NOT NULL,
  file INTEGER NOT NULL,            -- context.file
  line INTEGER NOT NULL,            -- context.line, -1 when NULL there
  kind INTEGER NOT NULL CHECK(kind IN (2, 3)), -- 2 loop, 3 line
  pre  INTEGER NOT NULL,            -- context.pre
  PRIMARY KEY(run, file, line, kind, pre)
) WITHOUT ROWID;

-- Metric columns.  One row per (base metric, summary statistic); the statistic
-- 'sum' is the one views show by default.
CREATE TABLE IF NOT EXISTS metric(
  run         INTEGER NOT NULL,
  id          INTEGER NOT NULL,     -- cctq's id, dense from 1 within the run
  name        TEXT NOT NULL,        -- base name, e.g. 'CPUTIME (sec)'
  stat        TEXT NOT NULL,        -- 'sum', 'mean', 'min', 'max', 'stddev', 'cfvar', 'sumsq', 'count', ...
  unit        TEXT,                 -- from the name's parenthesis, e.g. 'sec', NULL if none
  description TEXT,
  has_lex     INTEGER NOT NULL,     -- 1 when exclusive_lex comes from the database (lex_aware)
  PRIMARY KEY(run, id)
) WITHOUT ROWID;

-- Summary values of each context, zero values omitted.  Keyed by one integer,
-- key = metric * 2^40 + pre (the rowid; schema version 4, version 3 had the
-- composite key run, metric, pre): the values of one metric over a subtree, or a
-- level of it, are one rowid range read in the same order as the contexts, and a
-- single value is a rowid look-up.  (pre is unique in the archive, so the key
-- needs no run; pre < 2^40 is checked by the writer.)
--   inclusive      v4 scope 'execution', classic t="inclusive"
--   exclusive      v4 scope 'function': the context and its lexical descendants,
--                  nothing called or inlined (loops include nested loops)
--   exclusive_lex  v4 scope 'lex_aware', classic t="exclusive": as exclusive, but a
--                  loop excludes nested loops; equals exclusive where the run lacks it
CREATE TABLE IF NOT EXISTS value(
  key           INTEGER PRIMARY KEY, -- metric.id * CCT_VALUE_KEY + context.pre
  inclusive     REAL NOT NULL,
  exclusive     REAL NOT NULL,
  exclusive_lex REAL NOT NULL
);

-- Static-scope totals, precomputed at ingest because they do not depend on the
-- center: inclusive follows the outermost rule (a context counts only if no
-- proper ancestor belongs to the same scope), exclusive sums the 'function' scope
-- over the O' rule of SPEC section 4 (a loop or line counts unless a context of
-- the same scope encloses it within its frame; every frame counts).
--   kind 0 function (key = function.id), 3 file (key = file.id), 4 module
--   (key = module.id): contexts counts the scope's frames; 1 loop, 2 line (key =
--   file.id, line set, -1 when unknown): contexts counts the loop or line
--   contexts there, what 'center' at that file:line finds.  (Version 4 added
--   contexts and made kind an integer.)
CREATE TABLE IF NOT EXISTS scope_total(
  run       INTEGER NOT NULL,
  kind      INTEGER NOT NULL CHECK(kind BETWEEN 0 AND 4),
  key       INTEGER NOT NULL,
  line      INTEGER NOT NULL DEFAULT 0,
  metric    INTEGER NOT NULL,
  inclusive REAL NOT NULL,
  exclusive REAL NOT NULL,
  contexts  INTEGER NOT NULL,      -- contexts of the run in the scope (see kind)
  PRIMARY KEY(run, kind, metric, key, line)
) WITHOUT ROWID;

-- Profiles: one per thread, rank or GPU stream (the summary is not a profile).
CREATE TABLE IF NOT EXISTS profile(
  run        INTEGER NOT NULL,
  id         INTEGER NOT NULL,      -- 1.. in database order
  node       INTEGER,               -- host id
  rank       INTEGER,               -- MPI rank
  thread     INTEGER,               -- thread number (classic: GPU streams are >= 500)
  core       INTEGER,
  gpucontext INTEGER,
  gpustream  INTEGER,
  source     TEXT,                  -- metric-db file name, or 'profile.db#N'
  PRIMARY KEY(run, id)
) WITHOUT ROWID;

-- Per-profile values of one metric ('sum' column) as a zstd frame of
--   u32 n; u32 ctx[n] (ascending); f64 inclusive[n]; f64 exclusive[n]   (little-endian)
-- where ctx are the database's context ids (context.id, not pre)
-- holding the non-zero contexts of that profile.
CREATE TABLE IF NOT EXISTS profile_value(
  run     INTEGER NOT NULL,
  profile INTEGER NOT NULL,
  metric  INTEGER NOT NULL,
  data    BLOB NOT NULL,
  PRIMARY KEY(run, metric, profile)
) WITHOUT ROWID;

-- The packed tree image of each run (schema version 5): the context table's tree
-- as pre-order arrays in one BLOB (layout and invariants in common/cct_tree.h),
-- written once at ingest (or by 'cctingest --reindex' for an archive of version 4)
-- and read by the query library in one go (incremental BLOB I/O on the rowid run),
-- checked on every read.  The views compute over it in memory.
CREATE TABLE IF NOT EXISTS tree_image(
  run     INTEGER PRIMARY KEY,      -- run.run
  version INTEGER NOT NULL,         -- CCT_TREE_VERSION of the layout
  nodes   INTEGER NOT NULL,         -- contexts of the run (run.contexts)
  data    BLOB NOT NULL             -- the image (cct_tree_encode)
);
