ALTER TABLE "tasks" ADD COLUMN "start_date" date;--> statement-breakpoint
CREATE INDEX "tasks_org_start_idx" ON "tasks" USING btree ("org_id","start_date","id");--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_dates_ordered" CHECK ("tasks"."start_date" is null or "tasks"."start_date" <= "tasks"."due_date");