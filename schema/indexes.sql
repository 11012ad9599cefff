-- indexes.sql: secondary indexes of the archive, created after the bulk load of
-- a new archive (and kept up to date row by row when a run is appended).
-- Each one exists for a query of query/ or schema/queries/; tests pin the plans.

-- Contexts by the database's id ('#ID', the ids of per-profile values).  Tree
-- pointers are pre numbers (base.sql), so no walk needs it.
CREATE INDEX IF NOT EXISTS context_by_id ON context(run, id);

-- Top-down at function granularity: the frames of a subtree at one level,
-- a range scan on (fdepth, pre) bounded by the level and the pre..last interval.
CREATE INDEX IF NOT EXISTS context_frame_level ON context(run, fdepth, pre, function, fparent) WHERE frame = pre;

-- Top-down at line granularity: every context of a subtree at one line level.
CREATE INDEX IF NOT EXISTS context_line_level ON context(run, ldepth, pre, lparent);

-- Centers by function and by source location read the tables context_by_function
-- and context_by_line (base.sql), which the writer fills in key order.

-- Function look-up by name (centers, completion).
CREATE INDEX IF NOT EXISTS function_by_name ON function(run, name);
