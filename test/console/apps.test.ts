import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCOPES, type Scope } from "../../domain/scopes.ts";
import { api, expectError, expectSuccess, workerUrl } from "../helpers/api.ts";
import { asPerson, memberOf, signUp, type Person } from "../helpers/people.ts";
import { useRoom } from "../helpers/realtime.ts";
import { openPage, UI_TIMEOUT_MS, useBrowser } from "./browser.ts";
import {
  authorizeUrl,
  exchangeCode,
  pkce,
  postConsent,
  registerApplication,
  startCallback,
  type Callback,
  type Client,
} from "./oauth-client.ts";

// Third-party applications (issue 33) through the console in Chromium, against the harness's
// Worker: an admin registers an application in Settings -> Integrations; a person goes through the
// whole authorization-code flow (authorize, sign in, the consent page, the redirect with a code to
// the application's loopback callback, the token exchange with PKCE, a /v1 call); the installation
// is listed in the settings and uninstalled there, after which the token is refused within 10 s.
// Deny sends error=access_denied back; a member cannot grant what their role lacks.

const ARTIFACTS = fileURLToPath(new URL("../artifacts/", import.meta.url));

const browser = useBrowser();
let origin: string;
let callback: Callback;

useRoom();

beforeAll(async () => {
  origin = workerUrl();
  callback = await startCallback();
  mkdirSync(ARTIFACTS, { recursive: true });
});

afterAll(async () => {
  await callback?.stop();
});

const region = (page: Page, name: string) => page.getByRole("region", { name, exact: true });
const rowOf = (scope: Locator, text: string) => scope.getByRole("row").filter({ hasText: text });

async function openSettings(person: Person): Promise<Page> {
  const page = await openPage(browser(), { as: person });
  await page.goto(`${origin}/settings.html`);
  await page.getByRole("heading", { name: "Settings", level: 1 }).waitFor();
  return page;
}

/** Registers a confidential application in the settings page; answers its client id and the secret shown once. */
async function registerInSettings(page: Page, name: string, scopes: Scope[]): Promise<Client> {
  const apps = region(page, "Applications");
  await apps.getByLabel("Name", { exact: true }).fill(name);
  await apps.getByLabel("Redirect URIs").fill(callback.redirectUri);
  for (const scope of scopes) await apps.getByRole("checkbox", { name: SCOPES[scope], exact: true }).check();
  await apps.getByRole("button", { name: "Register application" }).click();
  const secret = apps.getByLabel("Client secret (shown once)");
  await expect.poll(() => secret.inputValue(), { timeout: UI_TIMEOUT_MS }).toMatch(/^opsroom_cs_/);
  const row = rowOf(apps, name);
  const clientId = (await row.locator("code").first().textContent()) ?? "";
  expect(clientId).toMatch(/^app_[0-9A-Za-z]{22}$/);
  expect(await row.textContent()).toContain(callback.redirectUri);
  return { clientId, clientSecret: await secret.inputValue() };
}

/** Registers an application through the settings API, redirecting to the callback. */
const registerByApi = (owner: Person, name: string, scopes: Scope[]) => registerApplication(owner, name, scopes, [callback.redirectUri]);

/** The consent page's requested scopes, by their text. */
const consentScopes = (page: Page) => page.getByRole("list", { name: "It asks to" }).getByRole("listitem").allTextContents();

const installationsOf = async (person: Person) => expectSuccess(await asPerson(person.cookie, "/v1/settings/installations")).data;

describe("an application registered in the settings page, installed by consent", { timeout: 120_000 }, () => {
  it("authorize -> sign in -> consent -> code -> token (PKCE) -> /v1; listed in settings; uninstalled there, its token refused within 10 s", async () => {
    const owner = await signUp({ name: "Dorothy Vaughan", organisationName: "West Area Computing" });
    const admin = await memberOf(owner, "admin");
    const settings = await openSettings(admin);
    const client = await registerInSettings(settings, "Shift planner", ["tasks.manage", "projects.read"]);

    // The person's browser is sent to /oauth/authorize, signed out: off to sign in, then back to consent.
    const { verifier, challenge } = pkce();
    const scope = "tasks.read tasks.manage projects.read";
    const person = await openPage(browser());
    await person.goto(authorizeUrl({ clientId: client.clientId, redirectUri: callback.redirectUri, scope, state: "s-1", challenge }));
    // Static pages are served without .html (Workers assets' default html_handling).
    await person.waitForURL(/\/sign-in(\.html)?\?next=%2Fconsent(\.html)?%3F/);
    await person.getByLabel("Email").fill(admin.email);
    await person.getByLabel("Password").fill(admin.password);
    await person.getByRole("button", { name: "Sign in" }).click();
    await person.waitForURL(/\/consent(\.html)?\?/);

    await person.getByRole("heading", { name: "Allow Shift planner to use opsroom?" }).waitFor();
    expect(await person.locator("#redirect-host").textContent()).toBe(callback.host);
    const shown = await consentScopes(person);
    for (const requested of ["tasks.read", "tasks.manage", "projects.read"] as const) {
      expect(shown.some((text) => text.includes(SCOPES[requested]) && text.includes(requested))).toBe(true);
    }
    expect(shown.join("\n")).not.toMatch(/Not granted/);
    const chooser = person.getByLabel("Organisation");
    expect(await chooser.locator("option").allTextContents()).toEqual(["West Area Computing"]);
    await person.screenshot({ path: `${ARTIFACTS}consent.png` });

    await person.getByRole("button", { name: "Allow" }).click();
    const answer = await callback.next(person);
    expect(answer.get("state")).toBe("s-1");
    expect(answer.get("iss")).toBe(origin);
    expect(answer.get("error")).toBeNull();

    const tokens = await exchangeCode(client, answer.get("code")!, callback.redirectUri, verifier);
    expect(tokens).toMatchObject({ token_type: "Bearer", expires_in: 3600 });
    expect(tokens.access_token).toMatch(/^opsroom_at_/);
    expect(tokens.refresh_token).toMatch(/^opsroom_rt_/);
    expect(tokens.scope.split(" ").sort()).toEqual(["projects.read", "tasks.manage", "tasks.read"]);

    const self = await api("/v1", { key: tokens.access_token });
    expect(self.status, self.text).toBe(200);
    expect(self.body.organisation).toBe(owner.orgId);
    expect(self.body.application).toBe("Shift planner");
    expect(self.body.scopes.map((s: { scope: string }) => s.scope)).toEqual(["projects.read", "tasks.read", "tasks.manage"]);
    expectSuccess(await api("/v1/tasks", { key: tokens.access_token }));

    // Installed: listed in the settings with who installed it, its scopes and its last use.
    await settings.reload();
    const installed = rowOf(region(settings, "Installed applications"), "Shift planner");
    await installed.waitFor();
    expect(await installed.textContent()).toMatch(new RegExp(`${client.clientId}.*${SCOPES["tasks.manage"]}.*admin person`, "s"));
    expect(await installed.textContent()).not.toContain("never");
    await region(settings, "Applications").screenshot({ path: `${ARTIFACTS}settings-applications.png` });
    await region(settings, "Installed applications").screenshot({ path: `${ARTIFACTS}settings-installations.png` });

    await installed.getByRole("button", { name: "Uninstall" }).click();
    const uninstalledAt = Date.now();
    await installed.getByRole("button", { name: "Confirm uninstall" }).click();
    await region(settings, "Installed applications").getByText("No applications installed.").waitFor();
    await expect.poll(async () => (await api("/v1", { key: tokens.access_token })).status, { timeout: 10_000, interval: 100 }).toBe(401);
    expect(Date.now() - uninstalledAt).toBeLessThan(10_000);
    expect(await installationsOf(owner)).toEqual([]);
    await Promise.all([settings.close(), person.close()]);
  });

  it("Deny sends error=access_denied (with the state) back to the application, and installs nothing", async () => {
    const owner = await signUp({ name: "Mary Jackson", organisationName: "Langley Tunnel" });
    const client = await registerByApi(owner, "Wind tunnel log", ["tasks.read"]);
    const { challenge } = pkce();
    const page = await openPage(browser(), { as: owner });
    await page.goto(
      authorizeUrl({ clientId: client.clientId, redirectUri: callback.redirectUri, scope: "tasks.read", state: "s-deny", challenge }),
    );
    await page.getByRole("heading", { name: "Allow Wind tunnel log to use opsroom?" }).waitFor();
    await page.getByRole("button", { name: "Deny" }).click();
    const answer = await callback.next(page);
    expect(Object.fromEntries(answer)).toMatchObject({ error: "access_denied", state: "s-deny", iss: origin });
    expect(answer.get("code")).toBeNull();
    expect(await installationsOf(owner)).toEqual([]);
    await page.close();
  });
});

describe("a member grants at most what their role holds", { timeout: 120_000 }, () => {
  it("a scope the member's role lacks is shown as not granted, and the token lacks it", async () => {
    const owner = await signUp({ name: "Katherine Johnson", organisationName: "Trajectory Office" });
    const member = await memberOf(owner, "member");
    const client = await registerByApi(owner, "Planning board", ["tasks.read", "projects.manage"]);
    const { verifier, challenge } = pkce();
    const page = await openPage(browser(), { as: member });
    await page.goto(
      authorizeUrl({ clientId: client.clientId, redirectUri: callback.redirectUri, scope: "tasks.read projects.manage", challenge }),
    );
    await page.getByRole("heading", { name: "Allow Planning board to use opsroom?" }).waitFor();
    const shown = await consentScopes(page);
    const manage = shown.find((text) => text.includes("projects.manage"));
    expect(manage).toContain(SCOPES["projects.manage"]);
    expect(manage).toMatch(/Not granted: your role \(member\) cannot grant it/);
    expect(shown.find((text) => text.includes("tasks.read"))).not.toMatch(/Not granted/);
    await page.screenshot({ path: `${ARTIFACTS}consent-member.png` });

    await page.getByRole("button", { name: "Allow" }).click();
    const answer = await callback.next(page);
    const tokens = await exchangeCode(client, answer.get("code")!, callback.redirectUri, verifier);
    expect(tokens.scope.split(" ")).not.toContain("projects.manage");
    const project = { name: "Apollo", budget: 0, startDate: "2026-01-01", endDate: "2026-12-31" };
    expectError(await api("/v1/projects", { key: tokens.access_token, body: project }), 403, "insufficient_scope", {
      scope: "projects.manage",
    });
    expectSuccess(await api("/v1/tasks", { key: tokens.access_token }));
    const [installation] = await installationsOf(owner);
    expect(installation).toMatchObject({ application: { clientId: client.clientId }, installedBy: { id: member.userId } });
    expect(installation.scopes).not.toContain("projects.manage");

    // The member's settings page holds no application controls (the API would answer 403).
    await page.goto(`${origin}/settings.html`);
    for (const name of ["Applications", "Installed applications"]) {
      await region(page, name).getByText("needs an owner or admin").waitFor();
      expect(await region(page, name).getByRole("button").count()).toBe(0);
    }
    await page.close();
  });

  it("when the role can grant none of the scopes, Allow is off and a forced POST is refused 403, installing nothing", async () => {
    const owner = await signUp({ name: "Christine Darden", organisationName: "Sonic Boom Lab" });
    const member = await memberOf(owner, "member");
    const client = await registerByApi(owner, "Ledger sync", ["financials.manage"]);
    const { challenge } = pkce();
    const url = authorizeUrl({ clientId: client.clientId, redirectUri: callback.redirectUri, scope: "financials.manage", challenge });
    const page = await openPage(browser(), { as: member });
    await page.goto(url);
    await page.getByRole("heading", { name: "Allow Ledger sync to use opsroom?" }).waitFor();
    expect(await page.getByRole("button", { name: "Allow" }).isDisabled()).toBe(true);
    expect(await page.locator("#consent-organisation-hint").textContent()).toMatch(/cannot be installed in any of your organisations/);
    const unavailable = page.getByRole("list", { name: "Organisations it cannot be installed in" });
    expect(await unavailable.textContent()).toMatch(/Sonic Boom Lab: your role holds none of the scopes/);

    const query = Object.fromEntries(new URL(url).searchParams);
    const forced = await postConsent(member, { ...query, orgId: owner.orgId, decision: "allow" });
    expect(forced.status, JSON.stringify(forced.body)).toBe(403);
    expect(await installationsOf(owner)).toEqual([]);
    await page.close();
  });
});

describe("sign-in's ?next= goes back to a path of this origin only", { timeout: 60_000 }, () => {
  for (const next of ["https://evil.example/x", "//evil.example/x", "/\\evil.example/x", "javascript:alert(1)"]) {
    it(`next=${next} lands on the board`, async () => {
      const person = await signUp();
      const page = await openPage(browser());
      await page.goto(`${origin}/sign-in.html?next=${encodeURIComponent(next)}`);
      await page.getByLabel("Email").fill(person.email);
      await page.getByLabel("Password").fill(person.password);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(`${origin}/`);
      await page.close();
    });
  }
});
