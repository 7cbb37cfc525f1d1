-- Custom migration (drizzle-kit generate --custom): what retention pruned before the chain's head
-- recorded it (docs/audit-log.md "Retention").
--
-- A chain pruned before audit_heads kept pruned_sequence starts, as it is, after a gap, and its first
-- kept entry names the hash of the one before it. Recorded as pruned through that entry, what is kept
-- today verifies, and any prefix deleted from now on by another hand than retention's does not. A
-- chain whose every entry was pruned is recorded as pruned through its head.
UPDATE "audit_heads" h SET "pruned_sequence" = f."sequence" - 1, "pruned_hash" = f."previous_hash"
  FROM (SELECT DISTINCT ON ("org_id") "org_id", "sequence", "previous_hash" FROM "audit_entries" ORDER BY "org_id", "sequence") f
 WHERE f."org_id" = h."org_id" AND f."sequence" > 1 AND h."pruned_sequence" IS NULL;--> statement-breakpoint
UPDATE "audit_heads" h SET "pruned_sequence" = h."sequence", "pruned_hash" = h."hash"
 WHERE h."pruned_sequence" IS NULL AND NOT EXISTS (SELECT 1 FROM "audit_entries" e WHERE e."org_id" = h."org_id");
