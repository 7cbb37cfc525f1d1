CREATE TABLE "mcp_session_days" (
	"credential_id" uuid NOT NULL,
	"day" date NOT NULL,
	"org_id" uuid NOT NULL,
	CONSTRAINT "mcp_session_days_credential_id_day_pk" PRIMARY KEY("credential_id","day")
);
--> statement-breakpoint
ALTER TABLE "mcp_session_days" ADD CONSTRAINT "mcp_session_days_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;