CREATE TABLE "audit_entries" (
	"id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"sequence" bigint NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	"actor" jsonb NOT NULL,
	"action" text NOT NULL,
	"target" jsonb NOT NULL,
	"changes" jsonb,
	"client_address" text,
	"user_agent" text,
	"request_id" text,
	"previous_hash" text NOT NULL,
	"hash" text NOT NULL,
	CONSTRAINT "audit_entries_org_sequence_key" UNIQUE("org_id","sequence"),
	CONSTRAINT "audit_entries_sequence_positive" CHECK ("audit_entries"."sequence" > 0)
);
--> statement-breakpoint
CREATE TABLE "audit_heads" (
	"org_id" uuid PRIMARY KEY NOT NULL,
	"sequence" bigint NOT NULL,
	"previous_hash" text NOT NULL,
	"hash" text NOT NULL,
	"digest" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "audit_entries" ADD CONSTRAINT "audit_entries_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "audit_heads" ADD CONSTRAINT "audit_heads_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_entries_occurred_at_idx" ON "audit_entries" USING btree ("occurred_at");