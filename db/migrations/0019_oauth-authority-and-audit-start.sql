ALTER TABLE "oauth_tokens" ADD COLUMN "scopes" text[];--> statement-breakpoint
ALTER TABLE "audit_heads" ADD COLUMN "pruned_sequence" bigint;--> statement-breakpoint
ALTER TABLE "audit_heads" ADD COLUMN "pruned_hash" text;--> statement-breakpoint
ALTER TABLE "audit_heads" ADD COLUMN "pruned_occurred_at" timestamp with time zone;