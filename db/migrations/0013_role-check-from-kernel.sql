ALTER TABLE "invitations" DROP CONSTRAINT "invitations_role_known";--> statement-breakpoint
ALTER TABLE "memberships" DROP CONSTRAINT "memberships_role_known";--> statement-breakpoint
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_role_known" CHECK ("invitations"."role" in ('owner','admin','member'));--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_role_known" CHECK ("memberships"."role" in ('owner','admin','member'));