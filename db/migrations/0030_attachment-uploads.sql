CREATE TABLE "attachment_upload_parts" (
	"upload_id" uuid NOT NULL,
	"org_id" uuid NOT NULL,
	"part_number" integer NOT NULL,
	"size" bigint NOT NULL,
	"sha256" text NOT NULL,
	"etag" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "attachment_upload_parts_upload_id_part_number_pk" PRIMARY KEY("upload_id","part_number")
);
--> statement-breakpoint
CREATE TABLE "attachment_uploads" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"task_id" uuid,
	"comment_id" uuid,
	"risk_id" uuid,
	"issue_id" uuid,
	"financial_entry_id" uuid,
	"name" text NOT NULL,
	"size" bigint NOT NULL,
	"sha256" text NOT NULL,
	"part_size" bigint NOT NULL,
	"object_key" text NOT NULL,
	"r2_upload_id" text NOT NULL,
	"uploader" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "attachment_uploads_one_parent" CHECK (num_nonnulls("attachment_uploads"."task_id", "attachment_uploads"."comment_id", "attachment_uploads"."risk_id", "attachment_uploads"."issue_id", "attachment_uploads"."financial_entry_id") = 1),
	CONSTRAINT "attachment_uploads_sha256" CHECK ("attachment_uploads"."sha256" ~ '^[0-9a-f]{64}$'),
	CONSTRAINT "attachment_uploads_size" CHECK ("attachment_uploads"."size" > 0 and "attachment_uploads"."part_size" > 0)
);
--> statement-breakpoint
ALTER TABLE "attachment_upload_parts" ADD CONSTRAINT "attachment_upload_parts_upload_id_attachment_uploads_id_fk" FOREIGN KEY ("upload_id") REFERENCES "public"."attachment_uploads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "attachment_uploads" ADD CONSTRAINT "attachment_uploads_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "attachment_uploads" ADD CONSTRAINT "attachment_uploads_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "attachment_uploads" ADD CONSTRAINT "attachment_uploads_comment_id_comments_id_fk" FOREIGN KEY ("comment_id") REFERENCES "public"."comments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "attachment_uploads" ADD CONSTRAINT "attachment_uploads_risk_id_risks_id_fk" FOREIGN KEY ("risk_id") REFERENCES "public"."risks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "attachment_uploads" ADD CONSTRAINT "attachment_uploads_issue_id_issues_id_fk" FOREIGN KEY ("issue_id") REFERENCES "public"."issues"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "attachment_uploads" ADD CONSTRAINT "attachment_uploads_financial_entry_id_financial_entries_id_fk" FOREIGN KEY ("financial_entry_id") REFERENCES "public"."financial_entries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "attachment_uploads_org_idx" ON "attachment_uploads" USING btree ("org_id");--> statement-breakpoint
CREATE INDEX "attachment_uploads_updated_idx" ON "attachment_uploads" USING btree ("updated_at");