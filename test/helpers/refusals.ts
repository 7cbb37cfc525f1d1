import { randomUUID } from "node:crypto";
import { describe, it } from "vitest";
import { generateApiKey } from "../../domain/crypto/api-keys.ts";
import type { Scope } from "../../domain/scopes.ts";
import { api, expectError, type ApiResponse, type Method } from "./api.ts";
import { expectNoTrace, snapshot } from "./database.ts";
import { createTenant, scopesWithout, type Tenant } from "./fixtures.ts";

// The refusals every route shares (docs/api.md "Envelope and errors", order of checks: key -> scope ->
// body -> existence), each asserting the error envelope and that the refused call left no trace.
// Usage, at the top level of a test file:
//
//   describeRefusals({
//     method: "PATCH",
//     path: (id) => `/v1/tasks/${id}`,
//     scope: "tasks.manage",
//     record: async (tenant) => (await tenant.insertTask()).id,
//     body: () => ({ status: "in_progress" }),
//   });

export interface RouteUnderTest {
  method: Method;
  /** The path; `id` is the record made by `record` (undefined for routes without one). */
  path: (id: string | undefined) => string;
  /** The scope the route needs; null for routes that need only a valid key (GET /v1). */
  scope: Scope | null;
  /** Makes the record the path points at, in the given organisation; returns its id. */
  record?: (tenant: Tenant) => Promise<string>;
  /** A body the route would accept from `tenant` (ids of its own records): refusals must not be about the body. */
  body?: (tenant: Tenant, id: string | undefined) => unknown | Promise<unknown>;
}

/** Codes a malformed key may be answered with; a well-formed unknown or revoked key is invalid_key. */
const MALFORMED_KEY_CODES = ["unauthorized", "invalid_key"] as const;

interface RefusedCall {
  /** The key to send, made before the "before" snapshot (a new key is itself a row). */
  key?: (tenant: Tenant) => string | Promise<string>;
  /** The Authorization header as sent, instead of `key`. */
  authorization?: (tenant: Tenant) => string;
  /** A body sent as is, instead of the route's valid body. */
  rawBody?: string;
}

// eslint-disable-next-line max-lines-per-function -- one describe of a route's refusals: its cases are a list, as a test file's describe is
export function describeRefusals(route: RouteUnderTest): void {
  const name = `${route.method} ${route.path(route.record ? ":id" : undefined)} refusals`;
  const hasBody = route.body !== undefined || ["POST", "PATCH", "PUT"].includes(route.method);

  /** Arranges a tenant (all scopes), the route's record and the key; calls; checks nothing changed. */
  const refused = async (call: RefusedCall, expectation: (response: ApiResponse) => void) => {
    const tenant = await createTenant();
    const id = route.record ? await route.record(tenant) : undefined;
    const body = route.body ? await route.body(tenant, id) : undefined;
    const key = call.key ? await call.key(tenant) : undefined;
    const before = await snapshot(tenant.org.id);
    const response = await api(route.path(id), {
      method: route.method,
      ...(call.rawBody === undefined ? { body } : { rawBody: call.rawBody }),
      ...(key === undefined ? {} : { key }),
      ...(call.authorization ? { headers: { authorization: call.authorization(tenant) } } : {}),
    });
    expectation(response);
    expectNoTrace(before, await snapshot(tenant.org.id));
  };

  describe(name, () => {
    it("no key: 401 unauthorized", () => refused({}, (res) => expectError(res, 401, "unauthorized")));

    const malformed: Array<[string, (key: string) => string]> = [
      ["not a key", () => "Bearer not-a-key"],
      ["wrong checksum", (key) => `Bearer ${key.slice(0, -1)}${key.endsWith("A") ? "B" : "A"}`],
      ["truncated", (key) => `Bearer ${key.slice(0, -4)}`],
      ["no Bearer scheme", (key) => key],
      ["Basic scheme", (key) => `Basic ${Buffer.from(`${key}:`).toString("base64")}`],
      ["empty Bearer", () => "Bearer "],
    ];
    for (const [label, header] of malformed) {
      it(`malformed key (${label}): 401`, () =>
        refused({ authorization: (tenant) => header(tenant.key) }, (res) => expectError(res, 401, MALFORMED_KEY_CODES)));
    }

    it("well-formed unknown key: 401 invalid_key", () =>
      // Right shape and checksum, never stored.
      refused({ key: () => generateApiKey() }, (res) => expectError(res, 401, "invalid_key")));

    it("revoked key: 401 invalid_key", () =>
      refused({ key: async (tenant) => (await tenant.revokedKey()).key }, (res) => expectError(res, 401, "invalid_key")));

    if (hasBody) {
      it("no key and a broken body: 401, the key is checked before the body", () =>
        refused({ rawBody: "{not json" }, (res) => expectError(res, 401, "unauthorized")));
    }

    const scope = route.scope;
    if (scope) {
      const keyWithout = async (tenant: Tenant) => (await tenant.keyWith(scopesWithout(scope))).key;
      it(`key without ${scope}: 403 insufficient_scope naming it`, () =>
        refused({ key: keyWithout }, (res) => expectError(res, 403, "insufficient_scope", { scope })));

      if (hasBody) {
        it(`key without ${scope} and a broken body: 403, scope is checked before the body`, () =>
          refused({ key: keyWithout, rawBody: "{not json" }, (res) => expectError(res, 403, "insufficient_scope", { scope })));
      }
    }

    const record = route.record;
    if (record) {
      it("another organisation's id: 404 not_found, neither organisation changes", async () => {
        const caller = await createTenant();
        const other = await createTenant();
        const otherId = await record(other);
        // The caller's own records back the body, so only the id in the path is foreign.
        const ownId = await record(caller);
        const body = route.body ? await route.body(caller, ownId) : undefined;
        const before = [await snapshot(caller.org.id), await snapshot(other.org.id)];
        const response = await api(route.path(otherId), { method: route.method, body, key: caller.key });
        expectError(response, 404, "not_found");
        expectNoTrace(before[0]!, await snapshot(caller.org.id));
        expectNoTrace(before[1]!, await snapshot(other.org.id));
      });

      it("unknown id: 404 not_found", async () => {
        const tenant = await createTenant();
        const ownId = await record(tenant);
        const body = route.body ? await route.body(tenant, ownId) : undefined;
        const before = await snapshot(tenant.org.id);
        const response = await api(route.path(randomUUID()), { method: route.method, body, key: tenant.key });
        expectError(response, 404, "not_found");
        expectNoTrace(before, await snapshot(tenant.org.id));
      });
    }
  });
}
