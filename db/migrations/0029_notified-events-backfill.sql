-- Events committed before notifications existed are not notified: without this the sweep would
-- derive notifications for every event still kept (up to 30 days of changes) on its first run.
UPDATE "events" SET "notified_at" = "occurred_at" WHERE "notified_at" IS NULL;
