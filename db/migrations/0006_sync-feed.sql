ALTER TABLE "idempotency_keys" ADD COLUMN "change_version" bigint;--> statement-breakpoint
CREATE INDEX "events_record_idx" ON "events" USING btree ("org_id",("data"->>'id'),"change_version");--> statement-breakpoint
CREATE INDEX "events_project_idx" ON "events" USING btree ("org_id",(case when type like 'project.%' then data->>'id' else data->>'projectId' end),"change_version");