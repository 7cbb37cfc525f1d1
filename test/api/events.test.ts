import { beforeAll, describe, expect, it } from "vitest";
import { api, expectSuccess, workerUrl } from "../helpers/api.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { waitForAcknowledged } from "../helpers/realtime.ts";
import { describeRefusals } from "../helpers/refusals.ts";
import { ISO_TIMESTAMP, UUID, personBody, projectBody, refusedCall, storedEvents, taskBody } from "../helpers/resources.ts";

// Events (docs/api.md "changeVersion and events"): every write type produces its `<resource>.<action>`
// event with the record and, on updates, exactly the changed fields; GET /v1/events?after=N
// answers the events after N that the key may read, paged. One organisation's history, made
// through the API in beforeAll, read by every test.

describeRefusals({ method: "GET", path: () => "/v1/events", scope: null });

let tenant: Tenant;
/** What each write answered, in order, with the event type it must have produced. */
const writes: Array<{ type: string; record: Record<string, unknown>; changes: Record<string, { from: unknown; to: unknown }> | null }> = [];

beforeAll(async () => {
  tenant = await createTenant();
  const write = async (
    type: string,
    path: string,
    method: "POST" | "PATCH" | "DELETE",
    body?: unknown,
    changes: (typeof writes)[number]["changes"] = null,
  ) => {
    const response = await api(path, { key: tenant.key, method, body });
    expect(response.status, response.text).toBeLessThan(300);
    writes.push({ type, record: response.body.data, changes });
    return response.body.data;
  };
  const project = await write("project.created", "/v1/projects", "POST", projectBody({ budget: 10 }));
  await write(
    "project.updated",
    `/v1/projects/${project.id}`,
    "PATCH",
    { budget: 20, name: project.name },
    { budget: { from: 10, to: 20 } },
  );
  const milestone = await write("milestone.created", `/v1/projects/${project.id}/milestones`, "POST", { name: "M", dueDate: "2026-05-01" });
  await write("milestone.updated", `/v1/milestones/${milestone.id}`, "PATCH", { name: "M2" }, { name: { from: "M", to: "M2" } });
  const person = await write("personnel.created", "/v1/personnel", "POST", personBody({ role: "Driver" }));
  await write("personnel.updated", `/v1/personnel/${person.id}`, "PATCH", { role: "Lead" }, { role: { from: "Driver", to: "Lead" } });
  const task = await write(
    "task.created",
    "/v1/tasks",
    "POST",
    await taskBody(tenant, { projectId: project.id, assigneeId: person.id, milestoneId: milestone.id }),
  );
  await write(
    "task.updated",
    `/v1/tasks/${task.id}`,
    "PATCH",
    { status: "in_progress", priority: "medium" },
    { status: { from: "todo", to: "in_progress" } },
  );
  // A no-op patch in the middle: it must not appear anywhere.
  expect((await api(`/v1/tasks/${task.id}`, { key: tenant.key, method: "PATCH", body: { status: "in_progress" } })).status).toBe(200);
  await write("task.deleted", `/v1/tasks/${task.id}`, "DELETE");
  await write("milestone.deleted", `/v1/milestones/${milestone.id}`, "DELETE");
  await write("project.deleted", `/v1/projects/${project.id}`, "DELETE");
});

const TYPES_FOR: Record<string, RegExp> = {
  "tasks.read": /^task\./,
  "projects.read": /^(project|milestone)\./,
  "organisation.read": /^personnel\./,
};

describe("events of every write", () => {
  it("one event per write, in order, changeVersion 1..N, data = the record answered, changes = exactly what changed", async () => {
    const events = await storedEvents(tenant.org.id);
    expect(events.map((e) => e.type)).toEqual(writes.map((w) => w.type));
    expect(events.map((e) => e.changeVersion)).toEqual(writes.map((_, i) => i + 1));
    events.forEach((event, i) => {
      expect(event.data, event.type).toEqual(writes[i]!.record);
      expect(event.changes, event.type).toEqual(writes[i]!.changes);
    });
  });

  it("GET /v1/events answers them in the public event shape, with the organisation's changeVersion", async () => {
    const page = expectSuccess(await api("/v1/events?limit=200", { key: tenant.key }));
    expect(page).toMatchObject({
      count: writes.length,
      message: `${writes.length} events`,
      nextCursor: null,
      changeVersion: writes.length,
    });
    const stored = await storedEvents(tenant.org.id);
    page.data.forEach((event: Record<string, unknown>, i: number) => {
      expect(event).toEqual({
        id: stored[i]!.id,
        type: writes[i]!.type,
        orgId: tenant.org.id,
        changeVersion: i + 1,
        occurredAt: expect.stringMatching(ISO_TIMESTAMP),
        data: writes[i]!.record,
        changes: writes[i]!.changes,
        actor: { type: "key", id: tenant.keyId, name: tenant.application },
        batchId: null,
      });
      expect(event.id).toMatch(UUID);
    });
  });

  it("each event is published to the organisation's room, which acknowledges it", async () => {
    // What the room does with them is test/realtime/*: here, that the Worker published every one.
    expect(await waitForAcknowledged(tenant.org.id, writes.length)).toEqual(writes.map((_, i) => i + 1));
  });
});

describe("GET /v1/events", () => {
  it("after=N answers exactly the events after N", async () => {
    for (const after of [0, 3, writes.length - 1, writes.length, writes.length + 5]) {
      const page = expectSuccess(await api(`/v1/events?after=${after}`, { key: tenant.key }));
      expect(page.data.map((e: { changeVersion: number }) => e.changeVersion)).toEqual(
        writes.map((_, i) => i + 1).filter((cv) => cv > after),
      );
      expect(page.nextCursor).toBeNull();
    }
  });

  for (const scope of ["tasks.read", "projects.read", "organisation.read"] as const) {
    it(`a ${scope}-only key sees only its resources' events`, async () => {
      const key = (await tenant.keyWith([scope])).key;
      const page = expectSuccess(await api("/v1/events", { key }));
      const expected = writes.map((w, i) => [w.type, i + 1]).filter(([type]) => TYPES_FOR[scope]!.test(type as string));
      expect(page.data.map((e: { type: string; changeVersion: number }) => [e.type, e.changeVersion])).toEqual(expected);
    });
  }

  it("a key without any read scope sees no events", async () => {
    const key = (await tenant.keyWith(["webhooks.read"])).key;
    expect(expectSuccess(await api("/v1/events", { key }))).toMatchObject({ count: 0, data: [], nextCursor: null });
  });

  it("pages with limit: nextCursor is the after of the next page, Link points to it, null at the end", async () => {
    const seen: number[] = [];
    let after = "0";
    for (let pages = 0; pages < 10; pages++) {
      const response = await api(`/v1/events?after=${after}&limit=4`, { key: tenant.key });
      const page = expectSuccess(response);
      seen.push(...page.data.map((e: { changeVersion: number }) => e.changeVersion));
      if (!page.nextCursor) {
        expect(response.headers.get("link")).toBeNull();
        break;
      }
      const link = new URL(/^<([^>]+)>; rel="next"$/.exec(response.headers.get("link") ?? "")![1]!, workerUrl());
      expect(link.searchParams.get("after")).toBe(page.nextCursor);
      expect(page.nextCursor).toBe(String(seen.at(-1)));
      after = page.nextCursor;
    }
    expect(seen).toEqual(writes.map((_, i) => i + 1));
  });

  it("a filtered key pages over its own events only", async () => {
    const key = (await tenant.keyWith(["tasks.read"])).key;
    const first = expectSuccess(await api("/v1/events?limit=2", { key }));
    const second = expectSuccess(await api(`/v1/events?limit=2&after=${first.nextCursor}`, { key }));
    expect([...first.data, ...second.data].map((e: { type: string }) => e.type)).toEqual(["task.created", "task.updated", "task.deleted"]);
    expect(second.nextCursor).toBeNull();
  });

  const invalid: Array<[string, string, string]> = [
    ["after=-1", "invalid_field", "after"],
    ["after=abc", "invalid_field", "after"],
    ["limit=0", "invalid_field", "limit"],
    ["limit=201", "invalid_field", "limit"],
    ["since=1", "unknown_field", "since"],
  ];
  for (const [params, code, field] of invalid) {
    it(`?${params}: 400 ${code} naming ${field}`, async () => {
      await refusedCall(tenant, `/v1/events?${params}`, {}, 400, code, { field });
    });
  }
});
