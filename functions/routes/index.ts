import { builtOnce } from "../http/built-once.ts";
import type { AnyRoute } from "../http/registry.ts";

// The route registry: every endpoint of the API, each declared once in a module of this folder,
// gathered here in documentation order. The Worker does not load the modules at start-up: it
// mounts each route from routes/manifest.ts (its method, path, scope and body, generated from this
// registry) and loads a route's module when a request first needs it, so an isolate builds the
// schemas of the routes it serves. What needs every route (GET /v1's operations, the OpenAPI
// document, a batch, MCP's tools) calls loadRoutes().

/** Each module of routes, by its name in routes/manifest.ts, with what it declares. */
export const ROUTE_MODULES = {
  self: async () => (await import("./self.ts")).selfRoutes,
  organisation: async () => (await import("./organisation.ts")).organisationRoutes,
  projects: async () => (await import("./projects.ts")).projectRoutes,
  milestones: async () => (await import("./milestones.ts")).milestoneRoutes,
  tasks: async () => (await import("./tasks.ts")).taskRoutes,
  labels: async () => (await import("./labels.ts")).labelRoutes,
  comments: async () => (await import("./comments.ts")).commentRoutes,
  checklistItems: async () => (await import("./checklist-items.ts")).checklistItemRoutes,
  risks: async () => (await import("./risks.ts")).riskRoutes,
  issues: async () => (await import("./issues.ts")).issueRoutes,
  financialEntries: async () => (await import("./financial-entries.ts")).financialEntryRoutes,
  attachments: async () => (await import("./attachments.ts")).attachmentRoutes,
  projectFinancials: async () => (await import("./project-financials.ts")).projectFinancialsRoutes,
  projectSummaries: async () => (await import("./project-summaries.ts")).projectSummaryRoutes,
  personnel: async () => (await import("./personnel.ts")).personnelRoutes,
  batch: async () => (await import("./batch.ts")).batchRoutes,
  realtime: async () => (await import("./realtime.ts")).realtimeRoutes,
  webhooks: async () => (await import("./webhooks.ts")).webhookRoutes,
  webhookDeliveries: async () => (await import("./webhook-deliveries.ts")).webhookDeliveryRoutes,
  session: async () => (await import("./session.ts")).sessionRoutes,
  members: async () => (await import("./members.ts")).memberRoutes,
  invitations: async () => (await import("./invitations.ts")).invitationRoutes,
  savedViews: async () => (await import("./saved-views.ts")).savedViewRoutes,
  notifications: async () => (await import("./notifications.ts")).notificationRoutes,
  apiKeys: async () => (await import("./api-keys.ts")).apiKeyRoutes,
  applications: async () => (await import("./applications.ts")).applicationRoutes,
  auditLog: async () => (await import("./audit-log.ts")).auditLogRoutes,
  openapi: async () => [(await import("./openapi.ts")).openApiRoute],
} satisfies Record<string, Load>;

export type RouteModule = keyof typeof ROUTE_MODULES;

type Load = () => Promise<AnyRoute[]>;

/** Each module's routes, loaded by the first call that needs them and kept by the isolate. */
const modules = Object.fromEntries(
  (Object.entries(ROUTE_MODULES) as [RouteModule, Load][]).map(([name, load]) => [name, builtOnce(load)]),
) as Record<RouteModule, Load>;

/** The routes of one module, loaded once per isolate. */
export const loadRouteModule = (module: RouteModule): Promise<AnyRoute[]> => modules[module]();

/**
 * The registry: every route, in documentation order. One array per isolate, so that what is built
 * from it once (MCP's tools, by the array) is found again.
 */
export const loadRoutes: Load = builtOnce(async () =>
  (await Promise.all((Object.keys(ROUTE_MODULES) as RouteModule[]).map(loadRouteModule))).flat(),
);
