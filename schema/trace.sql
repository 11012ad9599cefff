-- trace.sql: the tables of a run's traces (SPEC section 5, Time windows).
--
-- Created with the archive, and by every ingest before it writes (IF NOT
-- EXISTS), so that an archive of schema version 4 made before traces were read
-- gains them; an archive without these rows has no traces.  A trace is, per
-- profile, a time-ordered sequence of records (time, context); each record
-- stands for the time until the profile's next record (the last one for none;
-- idle records, context 0 of the database, for no context).  The metric
-- 'trace (sec)' of the run is that time per context, summed over profiles,
-- stored as the database's own metrics are (metric, value, scope_total).

-- One row per run with traces: their span.  Times below are nanoseconds since
-- t0, the run's first record.
CREATE TABLE IF NOT EXISTS trace_run(
  run      INTEGER PRIMARY KEY,
  t0       INTEGER NOT NULL,       -- the first record's time, ns since the epoch (as the database has it)
  span     INTEGER NOT NULL,       -- ns from the first record to the last one, over all lanes
  records  INTEGER NOT NULL,       -- records of every lane
  strays   INTEGER NOT NULL,       -- records naming a context not in the tree (stored as idle)
  lanes    INTEGER NOT NULL        -- traced profiles
);

-- One row per traced profile (a lane of the timeline).
CREATE TABLE IF NOT EXISTS trace_lane(
  run        INTEGER NOT NULL,
  lane       INTEGER NOT NULL,     -- 1.. in the database's order of traces
  profile    INTEGER,              -- profile.id of the same identity, NULL when the profile has no values
  node       INTEGER,              -- the identity, as in profile (NULL: not applicable)
  rank       INTEGER,
  thread     INTEGER,
  core       INTEGER,
  gpucontext INTEGER,
  gpustream  INTEGER,
  source     TEXT NOT NULL,        -- trace file name, '#N' for the Nth trace in it
  records    INTEGER NOT NULL,
  strays     INTEGER NOT NULL,
  first      INTEGER NOT NULL,     -- ns since trace_run.t0 of the first record
  last       INTEGER NOT NULL,     -- and of the last
  busy       INTEGER NOT NULL,     -- ns on a context (not idle, not a stray)
  PRIMARY KEY(run, lane)
) WITHOUT ROWID;

-- The records of a lane, in chunks of at most 65536 in time order.  data is a
-- zstd frame of n little-endian u32 context offsets (context.pre minus the
-- run's root pre; 0 = idle) followed by n u64 time steps (ns since the
-- previous record of the chunk; the first is 0).  A chunk's records cover
-- [first, end): end is the time of the lane's next record (the chunk's last
-- record lasts until then), or of its last record for the lane's last chunk.
CREATE TABLE IF NOT EXISTS trace_chunk(
  run    INTEGER NOT NULL,
  lane   INTEGER NOT NULL,
  seq    INTEGER NOT NULL,         -- 0.. in time order
  first  INTEGER NOT NULL,         -- ns since trace_run.t0 of the first record
  end    INTEGER NOT NULL,         -- see above
  n      INTEGER NOT NULL CHECK(n BETWEEN 1 AND 65536),
  data   BLOB NOT NULL,
  PRIMARY KEY(run, lane, seq)
) WITHOUT ROWID;
