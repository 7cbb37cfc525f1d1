import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { workerUrl } from "../helpers/api.ts";
import { useFailureStack } from "../helpers/failure-stack.ts";
import { cookieOf, signUp } from "../helpers/people.ts";
import { authorizationRequest, authorize, clientForm, pkce, postConsent, registerApp, tokenRequest, tokensFor } from "./helpers.ts";

// Token leakage (docs/apps.md "Security"): no answer carrying a credential may be cached (no-store,
// Pragma), no page of the flow may tell the next site where it came from (Referrer-Policy:
// no-referrer), and the Worker's log (the request line, LOG_REQUESTS=true, and its errors) holds no
// code, token, secret, verifier or state. The log is read from a stack of this file's own, whose
// Worker prints every request.

const stackOf = useFailureStack({ auth: true });

describe("credentials are never cached, nor sent on as a Referer", () => {
  it("token, refresh, client credentials, revocation, registration and their refusals say no-store and Pragma; the flow's pages no-referrer", async () => {
    const owner = await signUp();
    const app = await registerApp(owner);
    const { params } = authorizationRequest(app);
    for (const response of [await authorize(params), await authorize({ ...params, response_type: "token" })]) {
      expect(response.status).toBe(302);
      expect(response.headers.get("referrer-policy")).toBe("no-referrer");
      expect(response.headers.get("cache-control")).toBe("no-store");
    }
    const page = await fetch(new URL(`/consent.html?${new URLSearchParams(params as unknown as Record<string, string>)}`, workerUrl()));
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    expect(page.headers.get("content-security-policy")).toMatch(/frame-ancestors 'none'/);
    const view = await fetch(new URL(`/oauth/consent?${new URLSearchParams(params as unknown as Record<string, string>)}`, workerUrl()), {
      headers: { cookie: owner.cookie },
    });
    expect(view.headers.get("cache-control")).toBe("no-store");
    const consent = await postConsent(owner, { ...params, orgId: owner.orgId, decision: "allow" });
    expect([consent.headers.get("cache-control"), consent.headers.get("referrer-policy")]).toEqual(["no-store", "no-referrer"]);
    const tokens = await tokensFor(app, owner);
    const answers = [
      await tokenRequest({ grant_type: "refresh_token", refresh_token: tokens.refresh_token, ...clientForm(app) }),
      await tokenRequest({ grant_type: "client_credentials", ...clientForm(app) }),
      await tokenRequest({
        grant_type: "authorization_code",
        code: "opsroom_ac_x",
        redirect_uri: app.redirectUri,
        code_verifier: pkce().verifier,
        ...clientForm(app),
      }),
      await tokenRequest({ grant_type: "client_credentials", client_id: app.clientId, client_secret: "wrong" }),
      await tokenRequest({ token: tokens.access_token, ...clientForm(app) }, { path: "/oauth/revoke" }),
    ];
    for (const answer of answers) {
      expect([answer.headers.get("cache-control"), answer.headers.get("pragma")], String(answer.status)).toEqual(["no-store", "no-cache"]);
      expect(answer.headers.get("referrer-policy")).toBe("no-referrer");
    }
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 400, 401, 200]);
  });
});

/** A request to the log-printing stack. */
async function onStack(path: string, init: RequestInit & { cookie?: string } = {}) {
  const headers = new Headers(init.headers);
  headers.set("origin", stackOf().workerUrl);
  if (init.cookie) headers.set("cookie", init.cookie);
  return fetch(new URL(path, stackOf().workerUrl), { ...init, headers, redirect: "manual" });
}
const json = (body: unknown) => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
const form = (body: Record<string, string>) => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(body).toString(),
});

describe("the Worker's log", () => {
  it("holds no code, token, secret, verifier, challenge, state or session of a whole flow, its refusals included", async () => {
    const signedUp = await onStack(
      "/auth/sign-up/email",
      json({
        email: `leak-${randomBytes(6).toString("hex")}@example.com`,
        password: `pw-${randomBytes(8).toString("hex")}`,
        name: "Leak Probe",
      }),
    );
    expect(signedUp.status, await signedUp.clone().text()).toBe(200);
    const cookie = cookieOf(signedUp);
    const orgId = ((await (await onStack("/v1/settings/session", { cookie })).json()) as any).data.organisation.id as string;
    const registered = await onStack("/v1/settings/applications", {
      ...json({ name: "Leaky", redirectUris: ["https://client.example.com/cb"], scopes: ["tasks.manage"] }),
      cookie,
    });
    const { application, clientSecret } = ((await registered.json()) as any).data;
    const client = { client_id: application.clientId as string, client_secret: clientSecret as string };
    const { verifier, challenge } = pkce();
    const state = `state-${randomBytes(8).toString("hex")}`;
    const query = {
      response_type: "code",
      client_id: client.client_id,
      redirect_uri: "https://client.example.com/cb",
      scope: "tasks.manage",
      state,
      code_challenge: challenge,
      code_challenge_method: "S256",
    };
    expect((await onStack(`/oauth/authorize?${new URLSearchParams(query)}`)).status).toBe(302);
    const decided = await onStack("/oauth/consent", { ...json({ ...query, orgId, decision: "allow" }), cookie });
    const code = new URL(((await decided.json()) as any).redirectTo).searchParams.get("code")!;
    const exchange = { grant_type: "authorization_code", code, redirect_uri: query.redirect_uri, code_verifier: verifier, ...client };
    const tokens = (await (await onStack("/oauth/token", form(exchange))).json()) as any;
    expect((await onStack("/v1/tasks", { headers: { authorization: `Bearer ${tokens.access_token}` } })).status).toBe(200);
    const refreshed = (await (
      await onStack("/oauth/token", form({ grant_type: "refresh_token", refresh_token: tokens.refresh_token, ...client }))
    ).json()) as any;
    // Refusals: the code again (its grant revoked), the spent refresh token, a wrong secret, revoked tokens on /v1.
    expect((await onStack("/oauth/token", form(exchange))).status).toBe(400);
    expect(
      (await onStack("/oauth/token", form({ grant_type: "refresh_token", refresh_token: tokens.refresh_token, ...client }))).status,
    ).toBe(400);
    expect(
      (
        await onStack(
          "/oauth/token",
          form({ ...exchange, client_secret: `${client.client_secret.slice(0, -1)}${client.client_secret.endsWith("x") ? "y" : "x"}` }),
        )
      ).status,
    ).toBe(401);
    expect((await onStack("/v1/tasks", { headers: { authorization: `Bearer ${refreshed.access_token}` } })).status).toBe(401);
    expect((await onStack("/oauth/revoke", form({ token: refreshed.refresh_token, ...client }))).status).toBe(200);
    const secrets = {
      code,
      verifier,
      challenge,
      state,
      clientSecret: client.client_secret,
      access: tokens.access_token,
      refresh: tokens.refresh_token,
      access2: refreshed.access_token,
      refresh2: refreshed.refresh_token,
      session: decodeURIComponent(cookie.split("=")[1]!.split(".")[0]!),
    };
    // The request lines are printed after each answer: wait for the last one.
    const deadline = Date.now() + 10_000;
    while (!/"path":"\/oauth\/revoke"/.test(stackOf().output()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const output = stackOf().output();
    expect(output, "the request log is captured").toMatch(/"path":"\/oauth\/token","status":401/);
    for (const [name, value] of Object.entries(secrets)) expect(output.includes(value), `${name} in the log`).toBe(false);
    expect(output).not.toMatch(/opsroom_(ac|at|rt|cs)_[0-9A-Za-z]{10}/);
  }, 120_000);
});
