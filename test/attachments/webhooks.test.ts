import { describe, expect, it } from "vitest";
import { api, expectSuccess } from "../helpers/api.ts";
import { pngBytes, upload } from "../helpers/attachments.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { insertRisk } from "../helpers/project-records.ts";
import { useRoom } from "../helpers/realtime.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";
import { insertTaskIn } from "../helpers/work.ts";
import { registerWebhook, waitForAttempt } from "../webhooks/helpers.ts";

// A file's events reach webhooks (docs/attachments.md "Events and deletion"): attachment.created
// and attachment.deleted, signed, with the attachment as data and the caller as actor, for the
// webhooks whose scopes hold the read scope of the file's record, and for an attachment.*
// subscription. The check that a webhook got nothing more ends on a sentinel (test/webhooks/helpers.ts).

useRoom();

describe("attachment events in webhooks", () => {
  it("attachment.created and .deleted are delivered, signed, to the webhooks whose scopes see the record", async () => {
    const tenant = await createTenant({ application: "Site camera" });
    const task = await insertTaskIn(tenant);
    const risk = await insertRisk(tenant);
    const everything = await startReceiver();
    const tasksOnly = await startReceiver();
    const files = await registerWebhook(tenant.key, everything, { events: ["attachment.*"] });
    const tasksReader = await tenant.keyWith(["tasks.read", "webhooks.manage"]);
    const ofTasks = await registerWebhook(tasksReader.key, tasksOnly);

    const onTask = expectSuccess(await upload(tenant.key, `/v1/tasks/${task}/attachments`, pngBytes(300), { name: "snag.png" }), 201);
    const onRisk = expectSuccess(await upload(tenant.key, `/v1/risks/${risk}/attachments`, pngBytes(200)), 201);
    const removed = expectSuccess(await api(`/v1/tasks/${task}/attachments/${onTask.data.id}`, { key: tenant.key, method: "DELETE" }));

    // The delete is the last change: once each webhook's log has it, everything before it was attempted.
    const last = removed.changeVersion as number;
    await waitForAttempt(tenant.key, files.id, (d) => d.changeVersion === last);
    await waitForAttempt(tasksReader.key, ofTasks.id, (d) => d.changeVersion === last);

    const seen = (receiver: typeof everything) =>
      receiver.deliveries
        .map((d) => ({ verified: d.verified, type: d.event.type, id: (d.event.data as { id: string }).id, cv: d.event.changeVersion }))
        .sort((a, b) => a.cv - b.cv)
        .map(({ cv: _, ...rest }) => rest);
    expect(seen(everything)).toEqual([
      { verified: true, type: "attachment.created", id: onTask.data.id },
      { verified: true, type: "attachment.created", id: onRisk.data.id },
      { verified: true, type: "attachment.deleted", id: onTask.data.id },
    ]);
    // tasks.read sees the task's file, not the risk's.
    expect(seen(tasksOnly)).toEqual([
      { verified: true, type: "attachment.created", id: onTask.data.id },
      { verified: true, type: "attachment.deleted", id: onTask.data.id },
    ]);
    const created = everything.deliveries.find(
      (d) => d.event.type === "attachment.created" && d.event.changeVersion === onTask.changeVersion,
    )!;
    expect(created.event.data).toEqual(onTask.data);
    expect(created.event.actor).toMatchObject({ type: "key", id: tenant.keyId, name: "Site camera" });
    const deleted = everything.deliveries.find((d) => d.event.type === "attachment.deleted")!;
    expect(deleted.event.data).toMatchObject({ id: onTask.data.id, taskId: task, name: "snag.png" });
    await Promise.all([everything.stop(), tasksOnly.stop()]);
  });
});
