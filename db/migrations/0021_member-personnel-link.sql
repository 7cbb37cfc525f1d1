ALTER TABLE "personnel" ADD COLUMN "user_id" uuid;--> statement-breakpoint
ALTER TABLE "personnel" ADD CONSTRAINT "personnel_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "personnel_org_user_key" ON "personnel" USING btree ("org_id","user_id");