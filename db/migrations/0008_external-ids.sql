ALTER TABLE "personnel" ADD COLUMN "external_id" text;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "external_id" text;--> statement-breakpoint
ALTER TABLE "milestones" ADD COLUMN "external_id" text;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "external_id" text;--> statement-breakpoint
ALTER TABLE "risks" ADD COLUMN "external_id" text;--> statement-breakpoint
ALTER TABLE "issues" ADD COLUMN "external_id" text;--> statement-breakpoint
ALTER TABLE "financial_entries" ADD COLUMN "external_id" text;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "batch_id" uuid;--> statement-breakpoint
CREATE UNIQUE INDEX "personnel_org_external_id_key" ON "personnel" USING btree ("org_id","external_id");--> statement-breakpoint
CREATE UNIQUE INDEX "projects_org_external_id_key" ON "projects" USING btree ("org_id","external_id");--> statement-breakpoint
CREATE UNIQUE INDEX "milestones_org_external_id_key" ON "milestones" USING btree ("org_id","external_id");--> statement-breakpoint
CREATE UNIQUE INDEX "tasks_org_external_id_key" ON "tasks" USING btree ("org_id","external_id");--> statement-breakpoint
CREATE UNIQUE INDEX "risks_org_external_id_key" ON "risks" USING btree ("org_id","external_id");--> statement-breakpoint
CREATE UNIQUE INDEX "issues_org_external_id_key" ON "issues" USING btree ("org_id","external_id");--> statement-breakpoint
CREATE UNIQUE INDEX "financial_entries_org_external_id_key" ON "financial_entries" USING btree ("org_id","external_id");--> statement-breakpoint
ALTER TABLE "personnel" ADD CONSTRAINT "personnel_external_id_length" CHECK (char_length("personnel"."external_id") between 1 and 200);--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_external_id_length" CHECK (char_length("projects"."external_id") between 1 and 200);--> statement-breakpoint
ALTER TABLE "milestones" ADD CONSTRAINT "milestones_external_id_length" CHECK (char_length("milestones"."external_id") between 1 and 200);--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_external_id_length" CHECK (char_length("tasks"."external_id") between 1 and 200);--> statement-breakpoint
ALTER TABLE "risks" ADD CONSTRAINT "risks_external_id_length" CHECK (char_length("risks"."external_id") between 1 and 200);--> statement-breakpoint
ALTER TABLE "issues" ADD CONSTRAINT "issues_external_id_length" CHECK (char_length("issues"."external_id") between 1 and 200);--> statement-breakpoint
ALTER TABLE "financial_entries" ADD CONSTRAINT "financial_entries_external_id_length" CHECK (char_length("financial_entries"."external_id") between 1 and 200);