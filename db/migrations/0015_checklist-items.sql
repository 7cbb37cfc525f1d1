CREATE TABLE "checklist_items" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"task_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"title" text NOT NULL,
	"done" boolean DEFAULT false NOT NULL,
	"external_id" text,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "checklist_items_external_id_length" CHECK (char_length("checklist_items"."external_id") between 1 and 200),
	CONSTRAINT "checklist_items_title_length" CHECK (char_length("checklist_items"."title") between 1 and 200)
);
--> statement-breakpoint
ALTER TABLE "checklist_items" ADD CONSTRAINT "checklist_items_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "checklist_items" ADD CONSTRAINT "checklist_items_task_fk" FOREIGN KEY ("org_id","project_id","task_id") REFERENCES "public"."tasks"("org_id","project_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "checklist_items_org_external_id_key" ON "checklist_items" USING btree ("org_id","external_id");--> statement-breakpoint
CREATE INDEX "checklist_items_task_created_idx" ON "checklist_items" USING btree ("org_id","task_id","created_at","id");