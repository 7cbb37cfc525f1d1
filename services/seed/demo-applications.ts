import { expandScopes } from "../../domain/scopes.ts";
import { createApplication, installForSeed } from "../applications.ts";
import type { ServiceContext } from "../context.ts";
import type { DEMO_IDS } from "./demo-ids.ts";

// The demo organisation's OAuth applications (docs/apps.md), with the fixed ids the OpenAPI
// examples name: a confidential web application, installed in the organisation by its first
// member, and a public tool for a person's machine. Their secrets are never shown: an integrator
// registers their own in Settings -> Integrations.

const DEMO_APPLICATIONS = [
  { name: "Site diary", redirectUris: ["https://diary.example.com/oauth/callback"], scopes: ["tasks.manage", "projects.read"] as const },
  { name: "Timesheet helper", redirectUris: ["http://127.0.0.1/callback"], scopes: ["tasks.read"] as const, public: true },
];

export async function seedDemoApplications(ctx: ServiceContext, orgId: string, ids: typeof DEMO_IDS): Promise<void> {
  for (const [i, app] of DEMO_APPLICATIONS.entries())
    await createApplication({ ctx, input: { ...app, scopes: [...app.scopes], id: ids.applications[i] } });
  await installForSeed({
    ctx,
    input: {
      id: ids.installation,
      orgId,
      applicationId: ids.applications[0]!,
      scopes: expandScopes([...DEMO_APPLICATIONS[0]!.scopes]),
      installedByUserId: ids.members[0]!,
    },
  });
}
