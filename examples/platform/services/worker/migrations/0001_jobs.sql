-- The worker's queue. Each migration runs in one transaction with its record in schema_migrations: no BEGIN/COMMIT here.
CREATE TABLE jobs (
  id         bigserial   PRIMARY KEY,
  kind       text        NOT NULL,
  payload    jsonb       NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now()
);
