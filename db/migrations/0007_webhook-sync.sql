ALTER TABLE "webhooks" ADD COLUMN "project_id" uuid;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "exclude_own" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "ordered" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "previous_secret" text;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "previous_secret_expires_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "last_delivered_change_version" bigint;