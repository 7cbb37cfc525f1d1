-- Custom migration (drizzle-kit generate --custom): a function no schema can declare.
--
-- POST /v1/batch sends its operations' statements as one transaction. A refused operation must
-- undo the whole batch, and the Worker must learn why, as a single call would: each statement of
-- a batch ends `where opsroom_batch_step(<did it do its work>, <operation>, <its outcome row>,
-- <its answer>)`. Failing, it raises (SQLSTATE P0001, message opsroom_batch_refused) with the
-- operation and its outcome row as the detail, so the transaction rolls back and the Worker
-- settles that outcome into the usual error. Succeeding, it appends the operation's answer to
-- the transaction's `opsroom.batch_answers` setting when the batch came with an Idempotency-Key,
-- so the batch's last statement can store the whole answer for a replay.
CREATE OR REPLACE FUNCTION opsroom_batch_step(ok boolean, operation integer, outcome json, answer json)
RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  IF NOT coalesce(ok, false) THEN
    RAISE EXCEPTION 'opsroom_batch_refused'
      USING DETAIL = json_build_object('operation', operation, 'outcome', outcome)::text;
  END IF;
  IF answer IS NOT NULL THEN
    PERFORM set_config('opsroom.batch_answers',
      coalesce(nullif(current_setting('opsroom.batch_answers', true), '') || ',', '') || answer::text, true);
  END IF;
  RETURN true;
END
$$;
