import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { api, expectError, expectSuccess, testClientAddress, workerUrl } from "../helpers/api.ts";
import { signUp } from "../helpers/people.ts";
import { clientForm, oauthTrace, registerApp, tokenRequest, tokensFor } from "./helpers.ts";

// One configured public origin (PUBLIC_ORIGIN; docs/apps.md "Discovery"), found missing by the
// fourth security probe: the issuer, every endpoint, resource_metadata and the resources tokens are
// for came from the request's Host, so a token issued under one name was refused under another.
// Now they derive from the setting, whatever Host or X-Forwarded-Host a request carries; and a
// resource (RFC 8707) is compared as a URL, so `<origin>/` is the origin, and client credentials
// refuse one that is not the service's (invalid_target), as the authorization endpoint does.

/** A request with the Host header given (fetch sets its own), a form POST when `form` is: status, headers and body. */
function withHost(path: string, host: string, headers: Record<string, string> = {}, form?: Record<string, string>) {
  const target = new URL(path, workerUrl());
  const body = form ? new URLSearchParams(form).toString() : undefined;
  const sentHeaders = { ...headers, host, ...(body ? { "content-type": "application/x-www-form-urlencoded" } : {}) };
  return new Promise<{ status: number; headers: Record<string, unknown>; body: any }>((resolve, reject) => {
    const sent = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        method: body ? "POST" : "GET",
        headers: sentHeaders,
      },
      (response) => {
        let text = "";
        response.on("data", (chunk) => (text += chunk));
        response.on("end", () =>
          resolve({ status: response.statusCode!, headers: response.headers, body: text ? JSON.parse(text) : null }),
        );
      },
    );
    sent.on("error", reject);
    sent.end(body);
  });
}

const FOREIGN = { "x-forwarded-host": "evil.example", "x-forwarded-proto": "https", "cf-connecting-ip": testClientAddress() };

describe("the public origin", () => {
  it("is the issuer, every endpoint and resource_metadata, whatever Host or X-Forwarded-Host says", async () => {
    const origin = workerUrl();
    for (const host of [new URL(origin).host, "evil.example.com", `localhost:${new URL(origin).port}`]) {
      const server = await withHost("/.well-known/oauth-authorization-server", host, FOREIGN);
      expect(server.body).toMatchObject({
        issuer: origin,
        authorization_endpoint: `${origin}/oauth/authorize`,
        token_endpoint: `${origin}/oauth/token`,
        revocation_endpoint: `${origin}/oauth/revoke`,
        registration_endpoint: `${origin}/oauth/register`,
      });
      expect((await withHost("/.well-known/oauth-protected-resource", host, FOREIGN)).body).toMatchObject({
        resource: origin,
        authorization_servers: [origin],
      });
      expect((await withHost("/.well-known/oauth-protected-resource/mcp", host, FOREIGN)).body).toMatchObject({
        resource: `${origin}/mcp`,
        authorization_servers: [origin],
      });
      const challenge = (await withHost("/v1/tasks", host, FOREIGN)).headers["www-authenticate"];
      expect(challenge).toBe(`Bearer realm="opsroom", resource_metadata="${origin}/.well-known/oauth-protected-resource"`);
    }
  });

  it("is the audience of /v1 under any name: a token for it works when the request names the host otherwise", async () => {
    const owner = await signUp();
    const app = await registerApp(owner);
    const tokens = await tokensFor(app, owner, { overrides: { resource: workerUrl() } });
    const other = await withHost("/v1", `localhost:${new URL(workerUrl()).port}`, {
      authorization: `Bearer ${tokens.access_token}`,
      "cf-connecting-ip": testClientAddress(),
    });
    expect(other.status, JSON.stringify(other.body)).toBe(200);
  });

  it("is the audience of a token issued at another name: asked under a foreign Host and X-Forwarded-Host, it works at the origin", async () => {
    const owner = await signUp();
    const app = await registerApp(owner);
    await tokensFor(app, owner);
    const foreignHost = `localhost:${new URL(workerUrl()).port}`;
    // No resource: the token is for the origin, not for the Host or X-Forwarded-Host it was asked under.
    const issued = await withHost("/oauth/token", foreignHost, FOREIGN, { grant_type: "client_credentials", ...clientForm(app) });
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    expectSuccess(await api("/v1", { key: issued.body.access_token }));
    // A resource naming the foreign name is no resource of the service's.
    const foreign = await withHost("/oauth/token", foreignHost, FOREIGN, {
      grant_type: "client_credentials",
      resource: `http://${foreignHost}`,
      ...clientForm(app),
    });
    expect(foreign).toMatchObject({ status: 400, body: { error: "invalid_target" } });
  });

  it("a resource is compared as a URL: `<origin>/` is the origin, at the authorization endpoint and the token endpoint", async () => {
    const owner = await signUp();
    const app = await registerApp(owner);
    const tokens = await tokensFor(app, owner, { overrides: { resource: `${workerUrl()}/` } });
    expectSuccess(await api("/v1", { key: tokens.access_token }));
    const refreshed = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      resource: `${workerUrl().replace("http://", "HTTP://")}/`,
      ...clientForm(app),
    });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
  });
});

describe("client credentials and resource (RFC 8707)", () => {
  it("refuse a resource that is not the service's (invalid_target), writing nothing; take the origin, `<origin>/` and <origin>/mcp", async () => {
    const owner = await signUp();
    const app = await registerApp(owner);
    await tokensFor(app, owner);
    const before = await oauthTrace(app.id);
    for (const resource of [
      "https://evil.example",
      `${workerUrl()}.evil.example`,
      `${workerUrl()}/v1`,
      `${workerUrl()}/#x`,
      "urn:opsroom",
    ]) {
      const refused = await tokenRequest({ grant_type: "client_credentials", resource, ...clientForm(app) });
      expect(refused.status, resource).toBe(400);
      expect(refused.body.error, resource).toBe("invalid_target");
    }
    expect(await oauthTrace(app.id)).toEqual(before);

    for (const resource of [workerUrl(), `${workerUrl()}/`]) {
      const issued = await tokenRequest({ grant_type: "client_credentials", resource, ...clientForm(app) });
      expect(issued.status, resource).toBe(200);
      expectSuccess(await api("/v1", { key: issued.body.access_token }));
    }
    const forMcp = await tokenRequest({ grant_type: "client_credentials", resource: `${workerUrl()}/mcp/`, ...clientForm(app) });
    expect(forMcp.status).toBe(200);
    expectError(await api("/v1", { key: forMcp.body.access_token }), 401, "invalid_key");
  });
});
