import { describe, expect, it } from "vitest";
import { workerUrl } from "../helpers/api.ts";
import { signUp } from "../helpers/people.ts";
import { authorizationRequest, authorize, oauthTrace, postConsent, registerApp } from "./helpers.ts";

// The security probe of the OAuth endpoints, as an attacker plays them (docs/apps.md "Security"):
// redirect URI matching, open redirects, code injection and state, token confusion, refresh tokens
// bound to their client, client credentials for confidential clients only, scope escalation.
// The tokens' probes are in security-probe-tokens.test.ts, CSRF on consent in consent-csrf.test.ts,
// leaks (headers, logs) in leaks.test.ts.

const REGISTERED = ["https://client.example.com/callback", "http://127.0.0.1/cb"];

/** An authorization request refused on a page: 400 HTML, no Location, nothing of the attacker's URI echoed. */
async function expectPage(response: Response, what: string) {
  expect(response.status, what).toBe(400);
  expect(response.headers.get("location"), what).toBeNull();
  expect(response.headers.get("content-type"), what).toMatch(/^text\/html/);
  expect(response.headers.get("referrer-policy")).toBe("no-referrer");
  expect(await response.text(), what).not.toMatch(/evil/);
}

describe("redirect URI matching: exactly, but for a loopback URI's port", () => {
  it("refuses every near miss on a page, never redirecting to it", async () => {
    const owner = await signUp();
    const app = await registerApp(owner, { redirectUris: REGISTERED });
    const { params } = authorizationRequest(app);
    const nearMisses = [
      // prefix, suffix, path tricks, encoding, case, default port, query, fragment
      "https://client.example.com/callbac",
      "https://client.example.com/callback/",
      "https://client.example.com/callback/evil",
      "https://client.example.com/callback/../callback",
      "https://client.example.com/x/../callback",
      "https://client.example.com/callback%2F..%2Fevil",
      "https://client.example.com/%63allback",
      "https://CLIENT.example.com/callback",
      "HTTPS://client.example.com/callback",
      "https://client.example.com:443/callback",
      "https://client.example.com:8443/callback",
      "https://client.example.com/callback?",
      "https://client.example.com/callback?next=https://evil.example",
      "https://client.example.com/callback#evil",
      "https://client.example.com/callback\r\nLocation: https://evil.example",
      " https://client.example.com/callback",
      "//client.example.com/callback",
      // userinfo and host confusion
      "https://client.example.com@evil.example/callback",
      "https://evil.example@client.example.com/callback",
      "https://client.example.com\\@evil.example/callback",
      "https://client.example.com.evil.example/callback",
      "https://client.example.com%2eevil.example/callback",
      // loopback: the port may differ, nothing else
      "http://127.0.0.1:8080/cb/",
      "http://127.0.0.1:8080/CB",
      "http://127.0.0.1:8080/cb/../evil",
      "http://127.0.0.1:8080/cb?x=1",
      "http://127.0.0.1:8080/cb#x",
      "http://localhost:8080/cb",
      "http://[::1]:8080/cb",
      "https://127.0.0.1:8080/cb",
      "http://127.1:8080/cb",
      "http://0x7f000001:8080/cb",
      "http://2130706433:8080/cb",
      "http://127.0.0.1.evil.example:8080/cb",
      "http://127.0.0.1@evil.example:8080/cb",
      "http://evil@127.0.0.1:8080/cb",
      "http://127.0.0.1:8080@evil.example/cb",
    ];
    for (const redirect_uri of nearMisses) await expectPage(await authorize({ ...params, redirect_uri }), redirect_uri);
    // The exact URIs, and the loopback one on any port, go on to the consent page.
    for (const redirect_uri of [...REGISTERED, "http://127.0.0.1:8080/cb", "http://127.0.0.1:65535/cb"]) {
      const response = await authorize({ ...params, redirect_uri });
      expect(response.status, redirect_uri).toBe(302);
      expect(new URL(response.headers.get("location")!, workerUrl()).pathname).toBe("/consent.html");
    }
    // The port rule is the loopback's alone: an https URI registered with a port is matched on it.
    const ported = await registerApp(owner, { redirectUris: ["https://client.example.com:8443/cb"] });
    const portedRequest = authorizationRequest(ported).params;
    await expectPage(await authorize({ ...portedRequest, redirect_uri: "https://client.example.com:9443/cb" }), "another https port");
    await expectPage(await authorize({ ...portedRequest, redirect_uri: "https://client.example.com/cb" }), "no port");
    expect(await oauthTrace(app.id)).toEqual({ installations: [], grants: [], tokens: [] });
  });
});

describe("no open redirect: a request without a valid client and redirect URI is a page", () => {
  it("whatever else is wrong with it, and the consent call refuses it without a redirectTo", async () => {
    const owner = await signUp();
    const app = await registerApp(owner, { redirectUris: REGISTERED });
    const { params } = authorizationRequest(app);
    const evil = "https://evil.example/callback";
    const { client_id: _, ...noClient } = params;
    const { redirect_uri: __, ...noRedirect } = params;
    const cases: [string, Record<string, string>, string][] = [
      ["no client_id", { ...noClient, redirect_uri: evil }, ""],
      ["no redirect_uri", noRedirect, ""],
      [
        "unknown client, bad response_type",
        { ...params, client_id: "app_0000000000000000000000", response_type: "token", redirect_uri: evil },
        "",
      ],
      [
        "bad PKCE and scope to an unregistered URI",
        { ...params, redirect_uri: evil, code_challenge_method: "plain", scope: "nothing" },
        "",
      ],
      ["client_id twice", params, `&client_id=${app.clientId}`],
      ["redirect_uri twice, the second unregistered", params, `&redirect_uri=${encodeURIComponent(evil)}`],
    ];
    for (const [what, query, extra] of cases) await expectPage(await authorize(query, extra), what);
    const consent = await postConsent(owner, { ...params, redirect_uri: evil, orgId: owner.orgId, decision: "allow" });
    expect(consent.status).toBe(400);
    const body = (await consent.json()) as { error: { code: string; oauthError: string; redirectTo: string | null } };
    expect(body.error).toMatchObject({ code: "invalid_field", oauthError: "invalid_request", redirectTo: null });
    expect(await oauthTrace(app.id)).toEqual({ installations: [], grants: [], tokens: [] });
  });
});
