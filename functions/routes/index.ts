import type { AnyRoute } from "../http/registry.ts";
import { auditLogRoutes } from "./audit-log.ts";
import { batchRoutes } from "./batch.ts";
import { milestoneRoutes } from "./milestones.ts";
import { openApiRoute } from "./openapi.ts";
import { organisationRoutes } from "./organisation.ts";
import { personnelRoutes } from "./personnel.ts";
import { projectRoutes } from "./projects.ts";
import { realtimeRoutes } from "./realtime.ts";
import { selfRoutes } from "./self.ts";
import { sessionRoutes } from "./session.ts";
import { memberRoutes } from "./members.ts";
import { invitationRoutes } from "./invitations.ts";
import { apiKeyRoutes } from "./api-keys.ts";
import { taskRoutes } from "./tasks.ts";
import { labelRoutes } from "./labels.ts";
import { commentRoutes } from "./comments.ts";
import { checklistItemRoutes } from "./checklist-items.ts";
import { riskRoutes } from "./risks.ts";
import { issueRoutes } from "./issues.ts";
import { financialEntryRoutes } from "./financial-entries.ts";
import { projectFinancialsRoutes } from "./project-financials.ts";
import { webhookDeliveryRoutes } from "./webhook-deliveries.ts";
import { webhookRoutes } from "./webhooks.ts";
import { applicationRoutes } from "./applications.ts";

/** The route registry: every endpoint of the API, each declared once, in documentation order. */
export const routes: AnyRoute[] = [
  ...selfRoutes,
  ...organisationRoutes,
  ...projectRoutes,
  ...milestoneRoutes,
  ...taskRoutes,
  ...labelRoutes,
  ...commentRoutes,
  ...checklistItemRoutes,
  ...riskRoutes,
  ...issueRoutes,
  ...financialEntryRoutes,
  ...projectFinancialsRoutes,
  ...personnelRoutes,
  ...batchRoutes,
  ...realtimeRoutes,
  ...webhookRoutes,
  ...webhookDeliveryRoutes,
  ...sessionRoutes,
  ...memberRoutes,
  ...invitationRoutes,
  ...apiKeyRoutes,
  ...applicationRoutes,
  ...auditLogRoutes,
  openApiRoute,
];
