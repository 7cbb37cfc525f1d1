import { createHash } from "node:crypto";
import { afterAll, describe, expect, inject, it } from "vitest";
import { connectNodeDatabase } from "../../db/node-client.ts";
import type { Actor } from "../../domain/actor.ts";
import { DomainError } from "../../domain/errors.ts";
import { uuidv7 } from "../../domain/ids.ts";
import type { ServiceContext } from "../../services/context.ts";
import { getOrganisation } from "../../services/organisation.ts";
import { personnel } from "../../services/personnel.ts";
import { roomsAt } from "../../services/room-client.ts";
import { api, expectError, expectSuccess } from "../helpers/api.ts";
import { expectNoTrace, snapshot } from "../helpers/database.ts";
import { createTenant } from "../helpers/fixtures.ts";

// Who is calling, as every statement finds out first (db/statements/engine/caller.ts). An API key's
// caller: its scopes reach the statement, and a call that needs no scope (GET /v1, the events)
// needs only a valid key. The system caller: the CLI and the seed act for an organisation named
// by its id, holding every scope, with no API key; it reaches that organisation only, and an
// unknown organisation is not_found naming orgId, with nothing written (the same services and
// statements as the Worker's, in Node, on the harness's database).

const db = connectNodeDatabase(inject("databaseUrl"), { max: 2 });
afterAll(() => db.close());

/** A context as the CLI builds one, with nothing published (the sweep would do it). */
const contextOf = (actor: Actor): ServiceContext => ({ db, actor, rooms: roomsAt(null), defer: () => {} });

async function refusal(work: Promise<unknown>): Promise<DomainError> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  return error as DomainError;
}

describe("an API key's caller", () => {
  it("a call that needs no scope needs only a valid key: GET /v1 and the events, for a key holding webhooks.read alone", async () => {
    const tenant = await createTenant();
    const key = await tenant.keyWith(["webhooks.read"]);
    const self = expectSuccess(await api("/v1", { key: key.key }));
    expect(self).toMatchObject({
      organisation: tenant.org.id,
      changeVersion: 0,
      scopes: [{ scope: "webhooks.read", label: "Read webhooks" }],
    });
    expect(expectSuccess(await api("/v1/events", { key: key.key })).data).toEqual([]);
  });

  it("its scopes reach the statement: a realtime token of the scopes it holds, 403 for one it lacks", async () => {
    const tenant = await createTenant();
    const key = await tenant.keyWith(["tasks.manage", "risks.read"]);
    const minted = expectSuccess(await api("/v1/realtime/tokens", { key: key.key, body: {} }), 201).data;
    expect(minted.scopes).toEqual(["tasks.read", "risks.read"]);
    expectError(await api("/v1/realtime/tokens", { key: key.key, body: { scopes: ["projects.read"] } }), 403, "insufficient_scope", {
      scope: "projects.read",
    });
  });
});

describe("a system caller", () => {
  it("acts in its organisation with every scope: it adds a person, and reads the organisation", async () => {
    const tenant = await createTenant();
    const ctx = contextOf({ orgId: tenant.org.id });
    const created = await personnel.create({ ctx, input: { name: "Ada", email: `ada-${tenant.org.id}@example.com` } });
    expect(created.record).toMatchObject({ orgId: tenant.org.id, name: "Ada", version: 1 });
    expect(created.event).toMatchObject({ type: "personnel.created", orgId: tenant.org.id, changeVersion: 1 });
    expect(await getOrganisation({ ctx, input: {} })).toMatchObject({ id: tenant.org.id, changeVersion: 1 });
  });

  it("of an organisation that does not exist: not_found naming orgId, nothing written anywhere", async () => {
    const tenant = await createTenant();
    const before = await snapshot(tenant.org.id);
    const ctx = contextOf({ orgId: uuidv7() });
    const error = await refusal(personnel.create({ ctx, input: { name: "Bob", email: "bob@example.com" } }));
    expect(error.code).toBe("not_found");
    expect(error.field).toBe("orgId");
    expect((await refusal(getOrganisation({ ctx, input: {} }))).code).toBe("not_found");
    expectNoTrace(before, await snapshot(tenant.org.id));
  });

  it("an API key's caller is never taken for a system caller: an unknown key hash is invalid_key", async () => {
    const tenant = await createTenant();
    const ctx = contextOf({ keyHash: "0".repeat(64) });
    expect((await refusal(getOrganisation({ ctx, input: {} }))).code).toBe("invalid_key");
    // And a real key's hash reads its own organisation.
    const own = contextOf({ keyHash: createHash("sha256").update(tenant.key).digest("hex") });
    expect(await getOrganisation({ ctx: own, input: {} })).toMatchObject({ id: tenant.org.id });
  });
});
