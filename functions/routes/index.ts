import type { AnyRoute } from "../registry.ts";
import { milestoneRoutes } from "./milestones.ts";
import { openApiRoute } from "./openapi.ts";
import { organisationRoutes } from "./organisation.ts";
import { personnelRoutes } from "./personnel.ts";
import { projectRoutes } from "./projects.ts";
import { realtimeRoutes } from "./realtime.ts";
import { selfRoutes } from "./self.ts";
import { taskRoutes } from "./tasks.ts";

/** The route registry: every endpoint of the API, each declared once, in documentation order. */
export const routes: AnyRoute[] = [
  ...selfRoutes,
  ...organisationRoutes,
  ...projectRoutes,
  ...milestoneRoutes,
  ...taskRoutes,
  ...personnelRoutes,
  ...realtimeRoutes,
  openApiRoute,
];
