-- Custom migration (drizzle-kit generate --custom): a trigger no schema can declare.
-- Every attachment row deleted, by its own DELETE or by a cascade from its record or its
-- organisation, leaves its R2 object key to delete after the commit (docs/attachments.md).
CREATE FUNCTION attachment_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO attachment_removals (object_key, org_id) VALUES (OLD.object_key, OLD.org_id) ON CONFLICT DO NOTHING;
  RETURN OLD;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER attachments_removed AFTER DELETE ON attachments FOR EACH ROW EXECUTE FUNCTION attachment_removed();
