-- indexes.sql: secondary indexes of the archive, created after the bulk load of
-- a new archive (and kept up to date row by row when a run is appended).
-- Each one exists for a query of query/ or schema/queries/; tests pin the plans.

-- Contexts by the database's id ('#ID', parent links).  It also carries what a
-- bottom-up walk reads of each caller frame, so a walk step is one index
-- look-up instead of an index look-up and a table look-up (ids are unique:
-- ingest checks them).
CREATE INDEX IF NOT EXISTS context_by_id
  ON context(run, id, kind, function, fparent, call_file, call_line, relation);

-- Top-down at function granularity: the frames of a subtree at one level,
-- a range scan on (fdepth, pre) bounded by the level and the pre..last interval.
CREATE INDEX IF NOT EXISTS context_frame_level ON context(run, fdepth, pre, function, fparent) WHERE frame = id;

-- Top-down at line granularity: every context of a subtree at one line level.
CREATE INDEX IF NOT EXISTS context_line_level ON context(run, ldepth, pre, lparent);

-- Centers by function and by source location read the tables context_by_function
-- and context_by_line (base.sql), which the writer fills in key order.

-- Function look-up by name (centers, completion).
CREATE INDEX IF NOT EXISTS function_by_name ON function(run, name);
