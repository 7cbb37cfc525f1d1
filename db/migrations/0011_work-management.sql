CREATE TABLE "labels" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"name" text NOT NULL,
	"colour" text NOT NULL,
	"description" text,
	"external_id" text,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "labels_external_id_length" CHECK (char_length("labels"."external_id") between 1 and 200),
	CONSTRAINT "labels_name_length" CHECK (char_length("labels"."name") between 1 and 100),
	CONSTRAINT "labels_colour_valid" CHECK ("labels"."colour" ~ '^#[0-9a-fA-F]{6}$')
);
--> statement-breakpoint
CREATE TABLE "comments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"task_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"body" text NOT NULL,
	"author" jsonb NOT NULL,
	"external_id" text,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "comments_external_id_length" CHECK (char_length("comments"."external_id") between 1 and 200),
	CONSTRAINT "comments_body_length" CHECK (char_length("comments"."body") between 1 and 10000)
);
--> statement-breakpoint
DROP INDEX "tasks_org_milestone_idx";--> statement-breakpoint
DROP INDEX "tasks_org_updated_idx";--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "parent_id" uuid;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "blocked_by" uuid[] DEFAULT '{}'::uuid[] NOT NULL;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "label_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL;--> statement-breakpoint
ALTER TABLE "labels" ADD CONSTRAINT "labels_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comments" ADD CONSTRAINT "comments_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comments" ADD CONSTRAINT "comments_task_fk" FOREIGN KEY ("org_id","project_id","task_id") REFERENCES "public"."tasks"("org_id","project_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "labels_org_external_id_key" ON "labels" USING btree ("org_id","external_id");--> statement-breakpoint
CREATE UNIQUE INDEX "labels_org_name_key" ON "labels" USING btree ("org_id",lower("name"));--> statement-breakpoint
CREATE INDEX "labels_org_created_idx" ON "labels" USING btree ("org_id","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "comments_org_external_id_key" ON "comments" USING btree ("org_id","external_id");--> statement-breakpoint
CREATE INDEX "comments_task_created_idx" ON "comments" USING btree ("org_id","task_id","created_at","id");--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_parent_fk" FOREIGN KEY ("org_id","project_id","parent_id") REFERENCES "public"."tasks"("org_id","project_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "projects_org_name_idx" ON "projects" USING btree ("org_id","name","id");--> statement-breakpoint
CREATE INDEX "projects_org_start_idx" ON "projects" USING btree ("org_id","start_date","id");--> statement-breakpoint
CREATE INDEX "projects_org_end_idx" ON "projects" USING btree ("org_id","end_date","id");--> statement-breakpoint
CREATE INDEX "projects_org_updated_idx" ON "projects" USING btree ("org_id","updated_at","id");--> statement-breakpoint
CREATE INDEX "projects_search_idx" ON "projects" USING gin (to_tsvector('english', "name" || ' ' || coalesce("description", ''))) WITH (fastupdate=false);--> statement-breakpoint
CREATE INDEX "tasks_org_due_idx" ON "tasks" USING btree ("org_id","due_date","id");--> statement-breakpoint
CREATE INDEX "tasks_org_priority_idx" ON "tasks" USING btree ("org_id",array_position(array['low','medium','high','urgent']::text[], "priority"),"id");--> statement-breakpoint
CREATE INDEX "tasks_org_status_idx" ON "tasks" USING btree ("org_id",array_position(array['todo','in_progress','blocked','done','cancelled']::text[], "status"),"id");--> statement-breakpoint
CREATE INDEX "tasks_org_title_idx" ON "tasks" USING btree ("org_id","title","id");--> statement-breakpoint
CREATE INDEX "tasks_search_idx" ON "tasks" USING gin (to_tsvector('english', "title" || ' ' || coalesce("description", ''))) WITH (fastupdate=false);--> statement-breakpoint
CREATE INDEX "tasks_label_ids_idx" ON "tasks" USING gin ("label_ids") WITH (fastupdate=false);--> statement-breakpoint
CREATE INDEX "tasks_blocked_by_idx" ON "tasks" USING gin ("blocked_by") WITH (fastupdate=false);--> statement-breakpoint
CREATE INDEX "tasks_org_parent_created_idx" ON "tasks" USING btree ("org_id","parent_id","created_at","id") WHERE "tasks"."parent_id" is not null;--> statement-breakpoint
CREATE INDEX "tasks_org_project_status_idx" ON "tasks" USING btree ("org_id","project_id","status");--> statement-breakpoint
CREATE INDEX "tasks_org_milestone_idx" ON "tasks" USING btree ("org_id","milestone_id","status") WHERE "tasks"."milestone_id" is not null;--> statement-breakpoint
CREATE INDEX "tasks_org_updated_idx" ON "tasks" USING btree ("org_id","updated_at","id");