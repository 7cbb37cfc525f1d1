CREATE TABLE "risks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"title" text NOT NULL,
	"description" text,
	"probability" text,
	"impact" text,
	"status" text DEFAULT 'open' NOT NULL,
	"owner_id" uuid,
	"mitigation" text,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "risks_title_length" CHECK (char_length("risks"."title") between 1 and 200),
	CONSTRAINT "risks_probability_valid" CHECK ("risks"."probability" in ('low','medium','high')),
	CONSTRAINT "risks_impact_valid" CHECK ("risks"."impact" in ('low','medium','high')),
	CONSTRAINT "risks_status_valid" CHECK ("risks"."status" in ('open','mitigated','closed'))
);
--> statement-breakpoint
CREATE TABLE "issues" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"title" text NOT NULL,
	"description" text,
	"severity" text,
	"status" text DEFAULT 'open' NOT NULL,
	"reporter_id" uuid,
	"assignee_id" uuid,
	"resolved_at" timestamp (3) with time zone,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "issues_title_length" CHECK (char_length("issues"."title") between 1 and 200),
	CONSTRAINT "issues_severity_valid" CHECK ("issues"."severity" in ('low','medium','high','critical')),
	CONSTRAINT "issues_status_valid" CHECK ("issues"."status" in ('open','in_progress','resolved','closed')),
	CONSTRAINT "issues_resolved_has_resolved_at" CHECK ("issues"."status" <> 'resolved' or "issues"."resolved_at" is not null),
	CONSTRAINT "issues_open_has_no_resolved_at" CHECK ("issues"."resolved_at" is null or "issues"."status" in ('resolved','closed'))
);
--> statement-breakpoint
CREATE TABLE "financial_entries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"amount" numeric NOT NULL,
	"currency" text NOT NULL,
	"date" date NOT NULL,
	"description" text,
	"reference" text,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "financial_entries_kind_valid" CHECK ("financial_entries"."kind" in ('cost','invoice','payment','adjustment')),
	CONSTRAINT "financial_entries_amount_scale" CHECK ("financial_entries"."amount" = round("financial_entries"."amount", 2)),
	CONSTRAINT "financial_entries_amount_range" CHECK (abs("financial_entries"."amount") < 10000000000000),
	CONSTRAINT "financial_entries_amount_sign" CHECK ("financial_entries"."amount" <> 0 and ("financial_entries"."kind" = 'adjustment' or "financial_entries"."amount" > 0)),
	CONSTRAINT "financial_entries_currency_format" CHECK ("financial_entries"."currency" ~ '^[A-Z]{3}$'),
	CONSTRAINT "financial_entries_reference_length" CHECK (char_length("financial_entries"."reference") between 1 and 200)
);
--> statement-breakpoint
ALTER TABLE "risks" ADD CONSTRAINT "risks_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "risks" ADD CONSTRAINT "risks_project_fk" FOREIGN KEY ("org_id","project_id") REFERENCES "public"."projects"("org_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "risks" ADD CONSTRAINT "risks_owner_fk" FOREIGN KEY ("org_id","owner_id") REFERENCES "public"."personnel"("org_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "issues" ADD CONSTRAINT "issues_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "issues" ADD CONSTRAINT "issues_project_fk" FOREIGN KEY ("org_id","project_id") REFERENCES "public"."projects"("org_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "issues" ADD CONSTRAINT "issues_reporter_fk" FOREIGN KEY ("org_id","reporter_id") REFERENCES "public"."personnel"("org_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "issues" ADD CONSTRAINT "issues_assignee_fk" FOREIGN KEY ("org_id","assignee_id") REFERENCES "public"."personnel"("org_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "financial_entries" ADD CONSTRAINT "financial_entries_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "financial_entries" ADD CONSTRAINT "financial_entries_project_fk" FOREIGN KEY ("org_id","project_id") REFERENCES "public"."projects"("org_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "risks_org_created_idx" ON "risks" USING btree ("org_id","created_at","id");--> statement-breakpoint
CREATE INDEX "risks_org_project_created_idx" ON "risks" USING btree ("org_id","project_id","created_at","id");--> statement-breakpoint
CREATE INDEX "risks_org_status_created_idx" ON "risks" USING btree ("org_id","status","created_at","id");--> statement-breakpoint
CREATE INDEX "issues_org_created_idx" ON "issues" USING btree ("org_id","created_at","id");--> statement-breakpoint
CREATE INDEX "issues_org_project_created_idx" ON "issues" USING btree ("org_id","project_id","created_at","id");--> statement-breakpoint
CREATE INDEX "issues_org_status_created_idx" ON "issues" USING btree ("org_id","status","created_at","id");--> statement-breakpoint
CREATE INDEX "financial_entries_org_created_idx" ON "financial_entries" USING btree ("org_id","created_at","id");--> statement-breakpoint
CREATE INDEX "financial_entries_org_project_created_idx" ON "financial_entries" USING btree ("org_id","project_id","created_at","id");--> statement-breakpoint
CREATE INDEX "financial_entries_org_kind_created_idx" ON "financial_entries" USING btree ("org_id","kind","created_at","id");