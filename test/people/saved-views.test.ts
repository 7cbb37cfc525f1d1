import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { api, expectError, expectSuccess } from "../helpers/api.ts";
import { keyWith } from "../helpers/fixtures.ts";
import { asPerson, memberOf, peopleTrace, signUp, type Person } from "../helpers/people.ts";

// Saved views (docs/people.md "Saved views"): a person's named views of a list, kept as its query
// string; their own, or shared with every member (read-only to them); refused for an API key,
// another organisation, someone else's view and a bad body, each leaving nothing behind.

const save = (person: Person, body: unknown) => asPerson(person.cookie, "/v1/settings/views", { body });
const list = async (person: Person, query = "") =>
  (expectSuccess(await asPerson(person.cookie, `/v1/settings/views${query}`)).data as Array<{ id: string }>).map((v) => v.id);
const change = (person: Person, id: string, body: unknown) =>
  asPerson(person.cookie, `/v1/settings/views/${id}`, { method: "PATCH", body });
const remove = (person: Person, id: string) => asPerson(person.cookie, `/v1/settings/views/${id}`, { method: "DELETE" });

/** The call is refused with `status` and `code` and left every organisation given as it was. */
async function refused(
  orgIds: string[],
  call: () => Promise<Parameters<typeof expectError>[0]>,
  status: number,
  code: string,
  details = {},
) {
  const before = await peopleTrace(...orgIds);
  expectError(await call(), status, code, details);
  expect(await peopleTrace(...orgIds)).toEqual(before);
}

describe("saved views", () => {
  it("a person saves, lists, changes and deletes their views; a shared one is seen by every member and changed by its owner only", async () => {
    const owner = await signUp();
    const member = await memberOf(owner, "member");
    const query = "status=todo,in_progress&assigneeId=me&sort=dueDate&columns=title,status,dueDate";
    const mine = expectSuccess(await save(member, { name: "My open tasks", resource: "tasks", query }), 201).data;
    expect(mine).toMatchObject({ name: "My open tasks", resource: "tasks", query, shared: false, owner: { id: member.userId } });
    const risks = expectSuccess(await save(member, { name: "Risks", resource: "risks" }), 201).data;
    expect(risks.query).toBe("");
    expect(await list(member)).toEqual([mine.id, risks.id]);
    expect(await list(member, "?resource=tasks")).toEqual([mine.id]);
    // Not shared: the owner of the organisation does not see it.
    expect(await list(owner)).toEqual([]);
    await refused([owner.orgId], () => change(owner, mine.id, { name: "Mine now" }), 404, "not_found");

    const shared = expectSuccess(await change(member, mine.id, { shared: true, name: "Open tasks" })).data;
    expect(shared).toMatchObject({ id: mine.id, shared: true, name: "Open tasks", query });
    expect(await list(owner)).toEqual([mine.id]);
    await refused([owner.orgId], () => change(owner, mine.id, { query: "" }), 403, "insufficient_role");
    await refused([owner.orgId], () => remove(owner, mine.id), 403, "insufficient_role");

    expect(expectSuccess(await remove(member, mine.id)).data.id).toBe(mine.id);
    expect(await list(member)).toEqual([risks.id]);
    expect(await list(owner)).toEqual([]);
  });

  it("refuses a name taken, a bad body, an API key, another organisation's view and an unknown id, leaving nothing", async () => {
    const [person, stranger] = [await signUp(), await signUp()];
    const view = expectSuccess(await save(person, { name: "Overdue", resource: "tasks", query: "dueBefore=2026-01-01" }), 201).data;
    const org = [person.orgId];
    await refused(org, () => save(person, { name: "overdue", resource: "tasks" }), 409, "conflict", { field: "name" });
    // The same name for another list is another view.
    expectSuccess(await save(person, { name: "Overdue", resource: "issues" }), 201);
    await refused(org, () => save(person, { name: "", resource: "tasks" }), 400, "invalid_field", { field: "name" });
    await refused(org, () => save(person, { name: "x", resource: "webhooks" }), 400, "invalid_field", { field: "resource" });
    await refused(org, () => save(person, { name: "x", resource: "tasks", query: "q".repeat(2001) }), 400, "invalid_field", {
      field: "query",
    });
    await refused(org, () => save(person, { name: "x", resource: "tasks", owner: stranger.userId }), 400, "unknown_field");
    await refused(org, () => change(person, view.id, { resource: "risks" }), 400, "unknown_field");
    const key = await keyWith(person.orgId, ["tasks.read"]);
    await refused(org, () => api("/v1/settings/views", { key: key.key, body: { name: "k", resource: "tasks" } }), 401, "unauthorized");
    await refused([person.orgId, stranger.orgId], () => change(stranger, view.id, { name: "Theirs" }), 404, "not_found");
    await refused([person.orgId, stranger.orgId], () => remove(stranger, view.id), 404, "not_found");
    await refused(org, () => remove(person, randomUUID()), 404, "not_found");
    expect(await list(stranger)).toEqual([]);
  });
});
