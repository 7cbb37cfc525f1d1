import { describe, expect, it } from "vitest";
import { expectError, expectSuccess, type ApiResponse } from "../helpers/api.ts";
import { query } from "../helpers/database.ts";
import { asPerson, memberOf, signUp, signedIn } from "../helpers/people.ts";
import { projectBody } from "../helpers/resources.ts";

// A signed-in person's creates (the console's) replay an Idempotency-Key as a key's do
// (test/protection/idempotency.test.ts): keyed by the person in the organisation they act for, so a
// double click or a retry makes one record, from any of their sessions, and another member's same
// key is theirs alone.

const projectsNamed = async (orgId: string, name: string) =>
  (await query<{ id: string }>("select id from projects where org_id = $1 and name = $2", [orgId, name])).length;
const eventsOf = async (orgId: string) =>
  Number((await query<{ n: string }>("select count(*) as n from events where org_id = $1", [orgId]))[0]!.n);

const create = (cookie: string, body: unknown, key: string) =>
  asPerson(cookie, "/v1/projects", { body, headers: { "idempotency-key": key } });

/** A person's first create with a new key: its body, key and answer. */
async function firstCreate(cookie: string) {
  const body = projectBody();
  const key = crypto.randomUUID();
  const first = await create(cookie, body, key);
  expectSuccess(first, 201);
  return { body, key, first };
}

function expectReplayOf(replay: ApiResponse, first: ApiResponse) {
  expect(replay.status, replay.text.slice(0, 300)).toBe(201);
  expect(replay.headers.get("idempotent-replayed")).toBe("true");
  expect(replay.text).toBe(first.text);
}

describe("Idempotency-Key on a signed-in person's create", () => {
  it("a double POST makes one record and one event; the second answers the first, replayed", async () => {
    const owner = await signUp();
    const { body, key, first } = await firstCreate(owner.cookie);
    const events = await eventsOf(owner.orgId);
    const second = await create(owner.cookie, body, key);
    expectReplayOf(second, first);
    expect(await projectsNamed(owner.orgId, body.name as string)).toBe(1);
    expect(await eventsOf(owner.orgId)).toBe(events);
  });

  it("replays from another session of the same person; the same key with another body is 422", async () => {
    const owner = await signUp();
    const { body, key, first } = await firstCreate(owner.cookie);
    const elsewhere = await signedIn(owner);
    expectReplayOf(await create(elsewhere.cookie, body, key), first);
    expectError(await create(elsewhere.cookie, projectBody(), key), 422, "idempotency_mismatch");
    expect(await projectsNamed(owner.orgId, body.name as string)).toBe(1);
  });

  it("another member's same key is theirs: it creates their own record", async () => {
    const owner = await signUp();
    const admin = await memberOf(owner, "admin");
    const { body, key } = await firstCreate(owner.cookie);
    const theirs = await create(admin.cookie, body, key);
    expectSuccess(theirs, 201);
    expect(theirs.headers.get("idempotent-replayed")).toBeNull();
    expect(await projectsNamed(owner.orgId, body.name as string)).toBe(2);
  });

  it("concurrent duplicates from a person create exactly one record", async () => {
    const owner = await signUp();
    const body = projectBody();
    const key = crypto.randomUUID();
    const answers = await Promise.all(Array.from({ length: 8 }, () => create(owner.cookie, body, key)));
    for (const answer of answers) expect(answer.status, answer.text.slice(0, 200)).toBe(201);
    expect(answers.filter((a) => a.headers.get("idempotent-replayed") === "true")).toHaveLength(7);
    expect(await projectsNamed(owner.orgId, body.name as string)).toBe(1);
  });

  it("a POST that replays nothing refuses the header from a person too, as from a key", async () => {
    const owner = await signUp();
    const response = await asPerson(owner.cookie, "/v1/realtime/tokens", { body: {}, headers: { "idempotency-key": "k-1" } });
    expectError(response, 400, "invalid_field", { field: "Idempotency-Key" });
  });
});
