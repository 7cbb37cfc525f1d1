CREATE TABLE "notification_settings" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"preferences" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"time_zone" text DEFAULT 'UTC' NOT NULL,
	"digest_sent_at" timestamp (3) with time zone,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notifications" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"event_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"event_type" text NOT NULL,
	"change_version" bigint NOT NULL,
	"actor" jsonb NOT NULL,
	"record_type" text NOT NULL,
	"record_id" uuid NOT NULL,
	"title" text NOT NULL,
	"excerpt" text,
	"fields" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"shown" boolean DEFAULT true NOT NULL,
	"mail_state" text NOT NULL,
	"read_at" timestamp (3) with time zone,
	"pushed_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "notifications_kind_valid" CHECK ("notifications"."kind" in ('assigned','mentioned','commented','changed')),
	CONSTRAINT "notifications_mail_state_valid" CHECK ("notifications"."mail_state" in ('pending','queued','digest','digested','none'))
);
--> statement-breakpoint
CREATE TABLE "subscriptions" (
	"org_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"record_type" text NOT NULL,
	"record_id" uuid NOT NULL,
	"reason" text NOT NULL,
	"following" boolean DEFAULT true NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "subscriptions_org_id_record_type_record_id_user_id_pk" PRIMARY KEY("org_id","record_type","record_id","user_id"),
	CONSTRAINT "subscriptions_record_type_valid" CHECK ("subscriptions"."record_type" in ('task','project','risk')),
	CONSTRAINT "subscriptions_reason_valid" CHECK ("subscriptions"."reason" in ('assignee','creator','commenter','mentioned','manual'))
);
--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "notified_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "notification_settings" ADD CONSTRAINT "notification_settings_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "notifications_event_user_key" ON "notifications" USING btree ("event_id","user_id");--> statement-breakpoint
CREATE INDEX "notifications_inbox_idx" ON "notifications" USING btree ("user_id","org_id",("read_at" is null) desc,"created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "notifications_mail_idx" ON "notifications" USING btree ("mail_state","created_at") WHERE "notifications"."mail_state" in ('pending', 'digest');--> statement-breakpoint
CREATE INDEX "notifications_unpushed_idx" ON "notifications" USING btree ("created_at") WHERE "notifications"."pushed_at" is null and "notifications"."shown";--> statement-breakpoint
CREATE INDEX "subscriptions_user_idx" ON "subscriptions" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "events_unnotified_idx" ON "events" USING btree ("occurred_at") WHERE "events"."notified_at" is null;