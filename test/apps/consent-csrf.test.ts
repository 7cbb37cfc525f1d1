import { describe, expect, it } from "vitest";
import { testClientAddress, workerUrl } from "../helpers/api.ts";
import { signUp, type Person } from "../helpers/people.ts";
import { authorizationRequest, oauthTrace, registerApp, type RegisteredApp } from "./helpers.ts";

// CSRF on the consent decision (docs/apps.md "Security"): POST /oauth/consent carries the person's
// session cookie, so a page elsewhere must not be able to make it. It is a JSON POST that must come
// from a page of this origin, as every write with the session cookie (Origin this origin, or, with
// no Origin, Sec-Fetch-Site: same-origin); anything else is 403 cross_site_request and grants nothing.

/** The decision to allow `app`, posted with the person's cookie and `headers` (no Origin unless given). */
async function allowWith(person: Person, app: RegisteredApp, headers: Record<string, string>, contentType = "application/json") {
  const { params } = authorizationRequest(app);
  const response = await fetch(new URL("/oauth/consent", workerUrl()), {
    method: "POST",
    headers: { "content-type": contentType, cookie: person.cookie, "cf-connecting-ip": testClientAddress(), ...headers },
    body: JSON.stringify({ ...params, orgId: person.orgId, decision: "allow" }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

describe("POST /oauth/consent from anywhere but this origin", () => {
  it("is 403 cross_site_request and grants nothing: another Origin, a look-alike, null, or none with a cross-site Sec-Fetch-Site", async () => {
    const owner = await signUp();
    const app = await registerApp(owner);
    const own = new URL(workerUrl());
    const refused: Record<string, string>[] = [
      { origin: "https://evil.example" },
      { origin: "null" },
      { origin: `${own.origin}.evil.example` },
      { origin: `${own.protocol}//${own.hostname}:${Number(own.port) + 1}` },
      { origin: `https://${own.host}` },
      { origin: "https://evil.example", "sec-fetch-site": "same-origin", referer: `${own.origin}/consent.html` },
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-site" },
      { "sec-fetch-site": "none" },
      { referer: `${own.origin}/consent.html` },
      {},
    ];
    for (const headers of refused) {
      const answer = await allowWith(owner, app, headers);
      expect(answer.status, JSON.stringify(headers)).toBe(403);
      expect(answer.body.error.code).toBe("cross_site_request");
      expect(JSON.stringify(answer.body)).not.toMatch(/redirectTo|opsroom_ac_/);
    }
    expect(await oauthTrace(app.id)).toEqual({ installations: [], grants: [], tokens: [] });
  });

  it("a form a page elsewhere could send (no JSON) is refused too, even naming this origin; this origin's page is answered a code", async () => {
    const owner = await signUp();
    const app = await registerApp(owner);
    for (const contentType of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]) {
      const answer = await allowWith(owner, app, { origin: new URL(workerUrl()).origin }, contentType);
      expect(answer.status, contentType).toBe(415);
    }
    expect(await oauthTrace(app.id)).toEqual({ installations: [], grants: [], tokens: [] });
    // The console's own page: Origin this origin (a browser without Origin says Sec-Fetch-Site: same-origin).
    const ownPage: Record<string, string>[] = [{ origin: new URL(workerUrl()).origin }, { "sec-fetch-site": "same-origin" }];
    for (const headers of ownPage) {
      const allowed = await allowWith(owner, app, headers);
      expect(allowed.status, JSON.stringify(headers)).toBe(200);
      expect(new URL(allowed.body.redirectTo).searchParams.get("code")).toMatch(/^opsroom_ac_/);
    }
  });
});
