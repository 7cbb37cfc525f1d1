import { describe, expect, it } from "vitest";
import { api, expectSuccess } from "../helpers/api.ts";
import { pngBytes, upload } from "../helpers/attachments.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { insertRisk } from "../helpers/project-records.ts";
import { openRoomSocket } from "../helpers/realtime.ts";
import { insertTaskIn } from "../helpers/work.ts";

// A file's events (docs/attachments.md) are seen with the read scope of the record it is on: in
// the feed, on sockets, and in GET /v1's usage of the organisation's files.

describe("attachment events", () => {
  it("attachment.created and .deleted reach the feed and the sockets of the record's read scope only", async () => {
    const tenant = await createTenant();
    const tasksReader = await tenant.keyWith(["tasks.read"]);
    const risksReader = await tenant.keyWith(["risks.read"]);
    const taskSocket = openRoomSocket(tenant.org.id, { apiKey: tasksReader.key });
    const riskSocket = openRoomSocket(tenant.org.id, { apiKey: risksReader.key });
    const start = await taskSocket.ready;
    await riskSocket.ready;
    const task = await insertTaskIn(tenant);
    const risk = await insertRisk(tenant);
    const onTask = expectSuccess(await upload(tenant.key, `/v1/tasks/${task}/attachments`, pngBytes(100)), 201).data;
    const onRisk = expectSuccess(await upload(tenant.key, `/v1/risks/${risk}/attachments`, pngBytes(100)), 201).data;
    expectSuccess(await api(`/v1/tasks/${task}/attachments/${onTask.id}`, { key: tenant.key, method: "DELETE" }));

    const seen = (events: { type: string; data: Record<string, unknown> }[]) => events.map((e) => [e.type, e.data.id]);
    const taskFeed = expectSuccess(await api(`/v1/events?after=${start}`, { key: tasksReader.key })).data;
    expect(seen(taskFeed)).toEqual([
      ["attachment.created", onTask.id],
      ["attachment.deleted", onTask.id],
    ]);
    const riskFeed = expectSuccess(await api(`/v1/events?after=${start}`, { key: risksReader.key })).data;
    expect(seen(riskFeed)).toEqual([["attachment.created", onRisk.id]]);
    expect(seen(await taskSocket.waitForEvents(2))).toEqual(seen(taskFeed));
    expect(seen(await riskSocket.waitForEvents(1))).toEqual(seen(riskFeed));
    expect(taskFeed[0].actor).toMatchObject({ type: "key", id: tenant.keyId });

    const self = expectSuccess(await api("/v1", { key: tenant.key })) as unknown as { attachments: unknown };
    expect(self.attachments).toEqual({ usedBytes: 100, quotaBytes: 10 * 1024 ** 3 });
  });
});
