import type { Database } from "../../db/client.ts";
import { insertNotification } from "../../db/statements/notification-inbox.ts";
import { insertViews } from "../../db/statements/saved-views.ts";
import { SYSTEM_ACTOR } from "../../domain/events.ts";
import { DEMO_IDS } from "./demo-ids.ts";

// The demo owner's saved views (docs/people.md "Saved views"), with the fixed ids the OpenAPI
// document's examples of a view's change and delete name (functions/openapi/request-examples.ts).
// Made once the owner exists: by `npm run dev` on its first start, and by the examples' test.

const DEMO_VIEWS = [
  { name: "Open work by due date", resource: "tasks", query: "status=todo,in_progress&sort=dueDate", shared: true },
  { name: "High risks", resource: "risks", query: "status=open", shared: false },
] as const;

/** Saves the demo views as the owner `DEMO_IDS.owner` of the demo organisation, and a notification of theirs (docs/notifications.md). */
export async function seedDemoViews(db: Database): Promise<void> {
  await insertViews(
    db,
    DEMO_IDS.organisation,
    DEMO_IDS.owner,
    DEMO_VIEWS.map((view, i) => ({ ...view, id: DEMO_IDS.views[i]! })),
  );
  await insertNotification(db, {
    id: DEMO_IDS.notification,
    orgId: DEMO_IDS.organisation,
    userId: DEMO_IDS.owner,
    taskId: DEMO_IDS.tasks[3]!,
    title: "The demo task",
    actor: { type: "system", id: null, name: SYSTEM_ACTOR.name },
  });
}
