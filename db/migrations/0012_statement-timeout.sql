-- Custom migration (drizzle-kit generate --custom): a setting no schema can declare.
--
-- Every statement in this database gives up after 15 s, the time the Worker waits for one
-- (db/client.ts STATEMENT_TIMEOUT_MS): by then the caller has been answered 503, and a statement
-- still running, or still queued on an organisation's write lock, would hold the organisation's
-- writes for nobody. The timeout covers the wait for a lock as well, so no lock_timeout is set.
--
-- A default of the database rather than a SET per request: Neon's SQL-over-HTTP endpoint runs
-- each request on a connection of its pool, and every session opened in this database starts with
-- this default (a pooled session's RESET ALL returns to it), for every role, at no cost per call.
-- A SET LOCAL would make every one-statement call a transaction of two statements, and a session
-- SET would leak into whichever request the pool hands that connection next. Sessions opened
-- before this migration keep the old default until they reconnect. A later migration that needs
-- longer sets its own (SET LOCAL statement_timeout = 0). PGlite (development and tests) keeps the
-- setting but has no timers to enforce it: there the bounds on each request's work hold alone.
DO $$
BEGIN
  EXECUTE format('ALTER DATABASE %I SET statement_timeout = %L', current_database(), '15s');
END
$$;
