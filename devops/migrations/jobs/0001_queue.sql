CREATE TABLE jobs (
  id bigserial PRIMARY KEY,
  kind text NOT NULL,
  payload jsonb NOT NULL DEFAULT '{}',
  run_after timestamptz NOT NULL DEFAULT now(),
  done_at timestamptz
);
CREATE INDEX jobs_pending ON jobs (run_after) WHERE done_at IS NULL;
