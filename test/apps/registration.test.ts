import { describe, expect, it } from "vitest";
import { expectError, testClientAddress, workerUrl } from "../helpers/api.ts";
import { query } from "../helpers/database.ts";
import { asPerson, signUp } from "../helpers/people.ts";
import { authorize, pkce, registerApp } from "./helpers.ts";

// Registration's defaults (docs/apps.md "Dynamic registration", "Security"), found wanting by the
// fourth security probe: registered without a scope, an application may ask for the records' read
// scopes only (it asked for all fifteen, audit.read among them); a name that names the service is
// refused, dynamically or in the settings area; a redirect URI on port 0 is refused, and matches
// nothing.

/** POST /oauth/register (RFC 7591) from this test's client address. */
async function register(metadata: Record<string, unknown>) {
  const response = await fetch(new URL("/oauth/register", workerUrl()), {
    method: "POST",
    headers: { "content-type": "application/json", "cf-connecting-ip": testClientAddress() },
    body: JSON.stringify(metadata),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

const applicationsNamed = async (name: string) => (await query("select id from applications where name = $1", [name])).length;

describe("registration defaults", () => {
  it("without a scope, an application registered dynamically may ask for the records' read scopes only", async () => {
    const registered = await register({ redirect_uris: ["http://127.0.0.1:8976/callback"], client_name: "Field notes" });
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    expect(registered.body.scope).toBe("organisation.read projects.read tasks.read risks.read issues.read financials.read");
    const [row] = await query<{ scopes: string[] }>("select scopes from applications where client_id = $1", [registered.body.client_id]);
    expect(row!.scopes).not.toContain("audit.read");
    expect(row!.scopes.filter((scope) => scope.endsWith(".manage"))).toEqual([]);
    // Asked by name, a write scope is registered as asked.
    const writer = await register({ redirect_uris: ["http://127.0.0.1:8976/callback"], client_name: "Writer", scope: "tasks.manage" });
    expect(writer.body.scope).toBe("tasks.read tasks.manage");
  });

  it("refuses a name that names the service, dynamically (invalid_client_metadata) and in the settings area (invalid_field name)", async () => {
    for (const name of ["opsroom", "OpsRoom Sync", "ops-room connector", "0psroom", "Ｏｐｓｒｏｏｍ"]) {
      const refused = await register({ redirect_uris: ["https://client.example.com/cb"], client_name: name });
      expect(refused.status, name).toBe(400);
      expect(refused.body.error, name).toBe("invalid_client_metadata");
      expect(await applicationsNamed(name), name).toBe(0);
    }
    const owner = await signUp();
    const body = { name: "Opsroom helper", redirectUris: ["https://client.example.com/cb"], scopes: ["tasks.read"] };
    expectError(await asPerson(owner.cookie, "/v1/settings/applications", { body }), 400, "invalid_field", { field: "name" });
    expect(await applicationsNamed("Opsroom helper")).toBe(0);
    const app = await registerApp(owner, { name: "Helper" });
    const renamed = await asPerson(owner.cookie, `/v1/settings/applications/${app.id}`, { method: "PATCH", body: { name: "OPSROOM" } });
    expectError(renamed, 400, "invalid_field", { field: "name" });
    expect(await applicationsNamed("Helper")).toBe(1);
  });

  it("refuses a redirect URI on port 0, and a request naming port 0 matches no loopback URI registered", async () => {
    for (const uri of [
      "http://127.0.0.1:0/callback",
      "http://[::1]:0/callback",
      "http://localhost:0/callback",
      "https://client.example.com:0/cb",
    ]) {
      const refused = await register({ redirect_uris: [uri], client_name: "Port zero" });
      expect(refused.status, uri).toBe(400);
      expect(refused.body.error, uri).toBe("invalid_redirect_uri");
    }
    const owner = await signUp();
    const body = { name: "Port zero", redirectUris: ["http://127.0.0.1:0/callback"], scopes: ["tasks.read"] };
    expectError(await asPerson(owner.cookie, "/v1/settings/applications", { body }), 400, "invalid_field", { field: "redirectUris" });
    // Loopback URIs, localhost among them, are taken; one matches on any port but 0.
    const app = await registerApp(owner, {
      redirectUris: ["http://127.0.0.1/callback", "http://localhost:8976/callback"],
      scopes: ["tasks.read"],
    });
    const request = {
      response_type: "code",
      client_id: app.clientId,
      scope: "tasks.read",
      code_challenge: pkce().challenge,
      code_challenge_method: "S256",
    };
    expect((await authorize({ ...request, redirect_uri: "http://127.0.0.1:51234/callback" })).status).toBe(302);
    expect((await authorize({ ...request, redirect_uri: "http://localhost:40001/callback" })).status).toBe(302);
    const zero = await authorize({ ...request, redirect_uri: "http://127.0.0.1:0/callback" });
    expect(zero.status).toBe(400);
    expect(zero.headers.get("location")).toBeNull();
  });
});
