-- Custom migration (drizzle-kit generate --custom): a trigger no schema can declare.
-- organisations.attachment_bytes_used is the sum of the organisation's attachments' sizes, moved
-- by every row inserted or deleted, in the statement that does it: an upload's insert, a file's
-- DELETE, and the cascade of a record's delete (docs/attachments.md "Quota"). The organisation's
-- own delete takes its row with it, so there is nothing left to update then.
CREATE FUNCTION attachment_usage() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE organisations SET attachment_bytes_used = attachment_bytes_used + NEW.size WHERE id = NEW.org_id;
    RETURN NEW;
  END IF;
  UPDATE organisations SET attachment_bytes_used = attachment_bytes_used - OLD.size WHERE id = OLD.org_id;
  RETURN OLD;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER attachments_usage AFTER INSERT OR DELETE ON attachments FOR EACH ROW EXECUTE FUNCTION attachment_usage();
--> statement-breakpoint
UPDATE organisations o SET attachment_bytes_used = coalesce((SELECT sum(a.size) FROM attachments a WHERE a.org_id = o.id), 0);
