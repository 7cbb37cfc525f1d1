import { describe, expect, it } from "vitest";
import { api, expectError, expectSuccess } from "../helpers/api.ts";
import { expectNoTrace, snapshot } from "../helpers/database.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { useRoom, waitForAcknowledged } from "../helpers/realtime.ts";
import { created, patched, projectBody, taskBody } from "../helpers/resources.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";
import { registerWebhook, waitForAttempt } from "./helpers.ts";

// A webhook's filter beyond its event patterns (docs/api.md "Webhooks"): `projectId` (the project's
// own events and those of the records under it) and `excludeOwn` (not the changes of the key or
// the person that registered it). Applied by the room with domain/event-filter.ts; it only ever
// narrows what the webhook's scopes allow. Each negative check ends on a sentinel (./helpers.ts).

useRoom();

/** One event of each kind that belongs to the project: its own, a milestone, a task, a risk, an issue, a financial entry. */
async function writeUnder(key: string, tenant: Awaited<ReturnType<typeof createTenant>>, projectId: string): Promise<void> {
  await patched(key, `/v1/projects/${projectId}`, { status: "active" });
  await created(key, `/v1/projects/${projectId}/milestones`, { name: "M", dueDate: "2026-04-01" });
  await created(key, "/v1/tasks", await taskBody(tenant, { projectId }));
  await created(key, "/v1/risks", { projectId, title: "Supplier late" });
  await created(key, "/v1/issues", { projectId, title: "Van broke down" });
  await created(key, "/v1/financial-entries", { projectId, kind: "cost", amount: "120.00", currency: "EUR", date: "2026-03-01" });
}

describe("projectId", () => {
  it("delivers the project's own events and those of everything under it, and nothing of another project", async () => {
    const tenant = await createTenant();
    const [mine, other] = [
      await created(tenant.key, "/v1/projects", projectBody()),
      await created(tenant.key, "/v1/projects", projectBody()),
    ];
    // The room fans an event out to the webhooks it knows when the event reaches it: wait until it
    // has taken both creates, or a late publish would hand mine's project.created to the new webhook.
    await waitForAcknowledged(tenant.org.id, 2);
    const receiver = await startReceiver();
    const webhook = await registerWebhook(tenant.key, receiver, { projectId: mine.id });
    expect(webhook).toMatchObject({ projectId: mine.id, excludeOwn: false, ordered: false });
    await writeUnder(tenant.key, tenant, other.id);
    await writeUnder(tenant.key, tenant, mine.id);
    // The sentinel is the last write (changeVersion 14): every event of the other project is before it.
    await waitForAttempt(tenant.key, webhook.id, (d) => d.changeVersion === 14);
    const received = receiver.deliveries.map((d) => [d.event.type, d.event.changeVersion] as const).sort((a, b) => a[1] - b[1]);
    expect(received).toEqual([
      ["project.updated", 9],
      ["milestone.created", 10],
      ["task.created", 11],
      ["risk.created", 12],
      ["issue.created", 13],
      ["financialEntry.created", 14],
    ]);
  });

  it("never widens the scopes: a webhook of a tasks.read key filtered on a project gets that project's tasks only", async () => {
    const tenant = await createTenant();
    const project = await created(tenant.key, "/v1/projects", projectBody());
    const registrar = await tenant.keyWith(["tasks.read", "webhooks.manage"]);
    const receiver = await startReceiver();
    const webhook = await registerWebhook(registrar.key, receiver, { projectId: project.id });
    expect(webhook.scopes).toEqual(["tasks.read"]);
    await writeUnder(tenant.key, tenant, project.id);
    // The sentinel: one more task after the events the scopes leave out.
    await created(tenant.key, "/v1/tasks", await taskBody(tenant, { projectId: project.id }));
    await waitForAttempt(tenant.key, webhook.id, (d) => d.changeVersion === 8);
    expect(receiver.deliveries.map((d) => [d.event.type, d.event.changeVersion]).sort((a, b) => Number(a[1]) - Number(b[1]))).toEqual([
      ["task.created", 4],
      ["task.created", 8],
    ]);
  });

  it("a project of another organisation, or none: 400 invalid_reference naming projectId, on create and on PATCH, nothing written", async () => {
    const tenant = await createTenant();
    const stranger = await createTenant();
    const theirs = await stranger.insertProject();
    const webhook = expectSuccess(await api("/v1/webhooks", { key: tenant.key, body: { url: "https://hooks.example.com/a" } }), 201).data;
    const before = await snapshot(tenant.org.id);
    for (const projectId of [theirs.id, crypto.randomUUID()]) {
      expectError(
        await api("/v1/webhooks", { key: tenant.key, body: { url: "https://hooks.example.com/b", projectId } }),
        400,
        "invalid_reference",
        { field: "projectId" },
      );
      expectError(
        await api(`/v1/webhooks/${webhook.id}`, { key: tenant.key, method: "PATCH", body: { projectId } }),
        400,
        "invalid_reference",
        { field: "projectId" },
      );
    }
    expectError(
      await api("/v1/webhooks", { key: tenant.key, body: { url: "https://hooks.example.com/b", projectId: "not-a-uuid" } }),
      400,
      "invalid_field",
      { field: "projectId" },
    );
    expectNoTrace(before, await snapshot(tenant.org.id));
  });

  it("PATCH sets and clears it (null: every project), answered on the webhook", async () => {
    const tenant = await createTenant();
    const project = await tenant.insertProject();
    const webhook = expectSuccess(await api("/v1/webhooks", { key: tenant.key, body: { url: "https://hooks.example.com/a" } }), 201).data;
    expect(webhook).toMatchObject({
      projectId: null,
      excludeOwn: false,
      ordered: false,
      lastDeliveredChangeVersion: null,
      previousSecretExpiresAt: null,
    });
    const set = expectSuccess(
      await api(`/v1/webhooks/${webhook.id}`, {
        key: tenant.key,
        method: "PATCH",
        body: { projectId: project.id, excludeOwn: true, ordered: true },
      }),
    ).data;
    expect(set).toMatchObject({ projectId: project.id, excludeOwn: true, ordered: true, version: 2 });
    const cleared = expectSuccess(
      await api(`/v1/webhooks/${webhook.id}`, { key: tenant.key, method: "PATCH", body: { projectId: null } }),
    ).data;
    expect(cleared).toMatchObject({ projectId: null, excludeOwn: true, ordered: true, version: 3 });
    expect(expectSuccess(await api(`/v1/webhooks/${webhook.id}`, { key: tenant.key })).data).toEqual(cleared);
  });
});

describe("excludeOwn", () => {
  it("leaves out the changes of the key that registered the webhook; another key's arrive", async () => {
    const tenant = await createTenant();
    const other = await tenant.keyWith(["projects.manage"]);
    const receiver = await startReceiver();
    const webhook = await registerWebhook(tenant.key, receiver, { excludeOwn: true });
    expect(webhook).toMatchObject({ excludeOwn: true });
    const project = await created(tenant.key, "/v1/projects", projectBody());
    await patched(other.key, `/v1/projects/${project.id}`, { status: "active" });
    await patched(tenant.key, `/v1/projects/${project.id}`, { status: "on_hold" });
    // The sentinel: the other key's second change, after the registering key's last one.
    await patched(other.key, `/v1/projects/${project.id}`, { status: "active" });
    await waitForAttempt(tenant.key, webhook.id, (d) => d.changeVersion === 4);
    const received = receiver.deliveries.map((d) => [d.event.changeVersion, d.event.actor.id]).sort((a, b) => Number(a[0]) - Number(b[0]));
    expect(received).toEqual([
      [2, other.id],
      [4, other.id],
    ]);
  });

  it("turned on by PATCH, it applies from the next event", async () => {
    const tenant = await createTenant();
    const other = await tenant.keyWith(["projects.manage"]);
    const receiver = await startReceiver();
    const webhook = await registerWebhook(tenant.key, receiver);
    const project = await created(tenant.key, "/v1/projects", projectBody());
    // Delivered before the change, so the change cannot apply to it.
    await waitForAttempt(tenant.key, webhook.id, (d) => d.changeVersion === 1);
    await patched(tenant.key, `/v1/webhooks/${webhook.id}`, { excludeOwn: true });
    await patched(tenant.key, `/v1/projects/${project.id}`, { status: "active" });
    await patched(other.key, `/v1/projects/${project.id}`, { status: "on_hold" });
    await waitForAttempt(tenant.key, webhook.id, (d) => d.changeVersion === 3);
    expect(receiver.deliveries.map((d) => d.event.changeVersion).sort()).toEqual([1, 3]);
  });
});
