-- indexes.sql: secondary indexes of the archive, created after the bulk load of
-- a new archive (and kept up to date row by row when a run is appended).
-- Each one exists for a query of query/ or schema/queries/; tests pin the plans.

-- Contexts by the database's id ('#ID', the ids of per-profile values).  Tree
-- pointers are pre numbers (base.sql), so no walk needs it.
CREATE INDEX IF NOT EXISTS context_by_id ON context(run, id);

-- Top-down and bottom-up walk the tree image (tree_image) in memory: no level index.

-- Centers by function and by source location read the tables context_by_function
-- and context_by_line (base.sql), which the writer fills in key order.

-- Function look-up by name (centers, completion).
CREATE INDEX IF NOT EXISTS function_by_name ON function(run, name);
