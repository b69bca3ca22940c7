-- What a finished job produced; a job has at most one result.
CREATE TABLE job_results (
  job_id      bigint      PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
  status      text        NOT NULL CHECK (status IN ('done', 'failed')),
  finished_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX jobs_kind_created ON jobs (kind, created_at);
