/* eslint-disable max-lines -- one browser and one room lease serve every page of the settings area, a describe per page; a file per page would start Chromium for each. */
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, expectError, expectSuccess, workerUrl } from "../helpers/api.ts";
import { asPerson, memberOf, newEmail, settingsRows, signUp, type Person } from "../helpers/people.ts";
import { useRoom } from "../helpers/realtime.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";
import { launchBrowser, openPage, signInThroughPage, UI_TIMEOUT_MS } from "./browser.ts";

// People and the settings area in a real browser (Debian's Chromium, playwright-core) against the
// harness's Worker: sign-up, sign-out and sign-in through the pages; Settings -> Integrations (API
// keys shown once, replaced and revoked; webhooks with their delivery log); members and
// invitations; what a member is shown; and a cross-site write with the cookie. The tests find
// things by role and label, so the pages' accessible markup is what they rely on. The room is
// needed for the webhook deliveries.

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const ARTIFACTS = `${ROOT}test/artifacts/`;

/** A screenshot in test/artifacts/; with UPDATE_SCREENSHOTS=1 also the committed copy in docs/. */
async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const image = await page.screenshot({ path: `${ARTIFACTS}${name}` });
  if (process.env.UPDATE_SCREENSHOTS === "1") writeFileSync(`${ROOT}docs/${name}`, image);
}

let browser: Browser;
let origin: string;

useRoom();

beforeAll(async () => {
  origin = workerUrl();
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

/** GET /v1 with an API key: its status, name and scopes. */
async function describeKey(key: string) {
  const response = await api("/v1", { key });
  return {
    status: response.status,
    application: response.body?.application,
    scopes: response.body?.scopes?.map((s: { scope: string }) => s.scope),
  };
}

async function openSettings(
  person: Person,
  options: { clipboard?: boolean; viewport?: { width: number; height: number } } = {},
): Promise<Page> {
  const page = await openPage(browser, { as: person, ...options });
  await page.goto(`${origin}/settings.html`);
  await page.getByRole("heading", { name: "Settings", level: 1 }).waitFor();
  return page;
}

/** The labels of a select's options. */
const optionsOf = (select: Locator) => select.locator("option").allTextContents();

/** A table row by (part of) its text, once it is there. */
const rowOf = (scope: Page | Locator, text: string | RegExp) => scope.getByRole("row").filter({ hasText: text });

describe("signing up, out and in through the pages", { timeout: 60_000 }, () => {
  it("signs up through sign-up.html (a new organisation), signs out, is refused a wrong password, signs in", async () => {
    const email = newEmail("page");
    const password = "correct horse battery";
    const page = await openPage(browser);
    await page.goto(`${origin}/sign-up.html`);
    await page.getByLabel("Name", { exact: true }).fill("Mary Jackson");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByLabel("Organisation name").fill("Langley Works");
    await page.getByRole("button", { name: "Create account" }).click();

    await page.waitForURL(`${origin}/`);
    const account = page.getByRole("navigation", { name: "Account" });
    await account.getByText("Signed in as Mary Jackson · Owner").waitFor();
    expect(await page.locator("#organisation").textContent()).toBe("Langley Works");

    await account.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/sign-in(\.html)?$/);
    await page.goto(`${origin}/settings.html`);
    await page.waitForURL(/\/sign-in(\.html)?\?next=%2Fsettings/);

    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => page.getByRole("alert").textContent(), { timeout: UI_TIMEOUT_MS }).toMatch(/invalid email or password/i);

    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
    // Back where the sign-in page was sent from.
    await page.waitForURL(/\/settings(\.html)?$/);
    await page.getByRole("navigation", { name: "Account" }).getByText("Signed in as Mary Jackson · Owner").waitFor();
    await page.close();
  });

  it("signing out while the board's requests are in flight lands on the sign-in page, not one that leads back", async () => {
    const person = await signUp({ name: "Dorothy Vaughan", organisationName: "West Computing" });
    const page = await openPage(browser, { as: person });
    // The board's labels are held until the session has ended: they are then answered 401.
    let signedOut!: () => void;
    const afterSignOut = new Promise<void>((resolve) => (signedOut = resolve));
    await page.route("**/v1/labels*", async (route) => {
      await afterSignOut;
      await route.continue();
    });
    page.on("response", (response) => {
      if (response.url().endsWith("/auth/sign-out") && response.ok()) signedOut();
    });
    await page.goto(`${origin}/`);
    const account = page.getByRole("navigation", { name: "Account" });
    await account.getByText("Signed in as Dorothy Vaughan · Owner").waitFor();
    await account.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/sign-in(\.html)?$/);
    expect(new URL(page.url()).search).toBe("");
    expect((await asPerson(person.cookie, "/v1/settings/session")).status).toBe(401);
    await page.close();
  });
});

describe("Settings -> Integrations: API keys", { timeout: 90_000 }, () => {
  it("creates a key with two scopes, shown once with Copy; it works with exactly those; replaced, then revoked at once", async () => {
    const owner = await signUp({ name: "Katherine Johnson", organisationName: "Hampton Roads Survey" });
    const page = await openSettings(owner, { clipboard: true, viewport: { width: 1280, height: 900 } });
    const keys = page.getByRole("region", { name: "API keys" });

    await keys.getByLabel("Name", { exact: true }).fill("Warehouse sync");
    await keys.getByRole("checkbox", { name: "Read tasks" }).check();
    await keys.getByRole("checkbox", { name: "Read projects and milestones" }).check();
    await keys.getByLabel("Rate limit").fill("120");
    await keys.getByRole("button", { name: "Create key" }).click();

    const shown = keys.getByLabel("API key (shown once)");
    await expect.poll(() => shown.inputValue(), { timeout: UI_TIMEOUT_MS }).toMatch(/^ops_/);
    const key = await shown.inputValue();
    expect(await shown.getAttribute("readonly")).not.toBeNull();
    expect(await keys.textContent()).toContain("shown once");
    await keys.getByRole("button", { name: "Copy" }).click();
    await keys.getByRole("status").getByText("Copied").waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);

    // The key works, with exactly the scopes chosen and the name given.
    expect(await describeKey(key)).toEqual({ status: 200, application: "Warehouse sync", scopes: ["projects.read", "tasks.read"] });
    const [listed] = expectSuccess(await asPerson(owner.cookie, "/v1/settings/api-keys")).data as { rateLimit: number }[];
    expect(listed?.rateLimit).toBe(120);

    // Listed by name, prefix and scope labels, who made it; after a reload the key itself is gone.
    const row = rowOf(keys, "Warehouse sync");
    await row.waitFor();
    expect(await row.textContent()).toMatch(/Read projects and milestones.*Read tasks.*Katherine Johnson/s);
    expect(await row.textContent()).toContain(key.slice(0, 8));
    await page.reload();
    await rowOf(keys, "Warehouse sync").getByText("Read tasks").waitFor();
    expect(await page.content()).not.toContain(key);
    expect(await page.locator("input").evaluateAll((inputs) => inputs.map((input) => (input as HTMLInputElement).value))).not.toContain(
      key,
    );
    expect(await keys.getByLabel("API key (shown once)").count()).toBe(0);
    const headers = await keys.getByRole("columnheader").allTextContents();
    expect(headers).toEqual(["Name", "Prefix", "Scopes", "Created by", "Created", "Last used", "Actions"]);
    // Used once above: the row says when (not "never"). The name is the row's header, then the cells.
    expect(await rowOf(keys, "Warehouse sync").getByRole("cell").nth(4).textContent()).toMatch(/\d{4}/);
    await screenshot(page, "integrations.png");

    // Revoke asks first; Cancel leaves the key working.
    await rowOf(keys, "Warehouse sync").getByRole("button", { name: "Revoke" }).click();
    await rowOf(keys, "Warehouse sync").getByRole("button", { name: "Cancel" }).click();
    await rowOf(keys, "Warehouse sync").getByRole("button", { name: "Revoke" }).waitFor();
    expect((await describeKey(key)).status).toBe(200);

    // Replace: a new key, shown once; the old one refused at once.
    await rowOf(keys, "Warehouse sync").getByRole("button", { name: "Replace" }).click();
    await rowOf(keys, "Warehouse sync").getByRole("button", { name: "Confirm replace" }).click();
    await expect.poll(() => keys.getByLabel("API key (shown once)").inputValue(), { timeout: UI_TIMEOUT_MS }).toMatch(/^ops_/);
    const replacement = await keys.getByLabel("API key (shown once)").inputValue();
    expect(replacement).not.toBe(key);
    expect((await describeKey(key)).status).toBe(401);
    expect(await describeKey(replacement)).toEqual({ status: 200, application: "Warehouse sync", scopes: ["projects.read", "tasks.read"] });
    await expect.poll(() => rowOf(keys, "Warehouse sync").count()).toBe(1);

    // Revoke, confirmed: the row goes and the key is refused at once.
    await rowOf(keys, "Warehouse sync").getByRole("button", { name: "Revoke" }).click();
    await rowOf(keys, "Warehouse sync").getByRole("button", { name: "Confirm revoke" }).click();
    await keys.getByText("No API keys yet.").waitFor();
    expectError(await api("/v1", { key: replacement }), 401, "invalid_key");
    expect(expectSuccess(await asPerson(owner.cookie, "/v1/settings/api-keys")).data).toEqual([]);
    await page.close();
  });

  it("shows the API's refusal in an alert", async () => {
    const owner = await signUp();
    const page = await openSettings(owner);
    const keys = page.getByRole("region", { name: "API keys" });
    await keys.getByRole("checkbox", { name: "Read tasks" }).waitFor();
    // A name of spaces passes the browser's `required` but not the API (a trimmed name must not be empty).
    await keys.getByLabel("Name", { exact: true }).fill("   ");
    await keys.getByRole("checkbox", { name: "Read tasks" }).check();
    await keys.getByRole("button", { name: "Create key" }).click();
    await expect.poll(() => keys.getByRole("alert").textContent(), { timeout: UI_TIMEOUT_MS }).toMatch(/name/i);
    expect((await settingsRows(owner.orgId)).keys).toEqual([]);
    await page.close();
  });

  it("a member signed in through the page sees no key, webhook or invitation controls; the API answers 403", async () => {
    const owner = await signUp({ organisationName: "Cape Works" });
    const member = await memberOf(owner, "member");
    const page = await openPage(browser);
    await signInThroughPage(page, member);
    await page.goto(`${origin}/settings.html`);

    const keys = page.getByRole("region", { name: "API keys" });
    const webhooks = page.getByRole("region", { name: "Webhooks" });
    const members = page.getByRole("region", { name: "Members" });
    await keys.getByText("needs an owner or admin").waitFor();
    await webhooks.getByText("needs an owner or admin").waitFor();
    await members.getByText("needs an owner or admin").waitFor();
    // The members list is shown (any member may look), without controls.
    await rowOf(members, member.email).waitFor();
    expect(await rowOf(members, owner.email).getByRole("cell").nth(1).textContent()).toBe("Owner");
    // Their own account's controls only: sign out, a change of their own address, and their
    // notification preferences (a mail choice and an inbox box per kind, and their time zone).
    expect(await page.getByRole("button").allTextContents()).toEqual(["Sign out", "Mail me a link", "Save notification preferences"]);
    expect(await page.getByRole("textbox").evaluateAll((boxes) => boxes.map((box) => box.id))).toEqual([
      "new-email",
      "notification-time-zone",
    ]);
    const own = page.getByRole("region", { name: "Notifications" });
    expect(await own.getByRole("combobox").count()).toBe(4);
    expect(await page.getByRole("combobox").count()).toBe(4);
    expect(await own.getByRole("checkbox").count()).toBe(4);
    expect(await page.getByRole("checkbox").count()).toBe(4);

    // And the API itself refuses the member, from this very page.
    const answers = await page.evaluate(async () => {
      const codeOf = async (response: Response) => ((await response.json()) as any).error?.code;
      const list = await fetch("/v1/settings/api-keys");
      const create = await fetch("/v1/settings/api-keys", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "Member's key", scopes: ["tasks.read"] }),
      });
      return [
        { status: list.status, code: await codeOf(list) },
        { status: create.status, code: await codeOf(create) },
      ];
    });
    expect(answers).toEqual([
      { status: 403, code: "insufficient_role" },
      { status: 403, code: "insufficient_role" },
    ]);
    expect((await settingsRows(owner.orgId)).keys).toEqual([]);
    await page.close();
  });

  it("refuses cross-site POSTs that carry the cookie (fetch and a form, from another origin): nothing is created", async () => {
    const owner = await signUp();
    const before = await settingsRows(owner.orgId);
    // Another origin on the same host (another port) is the same site, so the Lax cookie IS sent:
    // only the Worker's Origin check stands between that page and the owner's keys.
    const target = `${origin}/v1/settings/api-keys`;
    const planted = JSON.stringify({ name: "Planted", scopes: ["tasks.read"] });
    const evil = await servePage(`<!doctype html><title>elsewhere</title>
      <form method="post" enctype="text/plain" action="${target}">
        <input type="hidden" name='${planted.slice(0, -1)}, "x": "' value='"}'>
        <button>Win a prize</button>
      </form>
      <script>
        const attempt = (init) => fetch(${JSON.stringify(target)}, { method: "POST", credentials: "include", body: ${JSON.stringify(planted)}, ...init })
          .then((r) => "answered " + r.status, (e) => "failed " + e.name);
        window.attempts = Promise.all([
          attempt({ mode: "no-cors", headers: { "content-type": "text/plain" } }),
          attempt({ headers: { "content-type": "application/json" } }),
        ]);
      </script>`);
    try {
      const page = await openPage(browser, { as: owner });
      let posts = 0;
      page.on("request", (request) => void (request.url() === target && request.method() === "POST" && posts++));
      await page.goto(evil.url);

      // fetch(): the JSON call stops at the CORS preflight (no credentials across origins); the
      // simple one is sent, and its answer is kept from the page (Cross-Origin-Resource-Policy).
      expect(await page.evaluate("window.attempts")).toEqual(["failed TypeError", "failed TypeError"]);
      await expect.poll(() => posts, { message: "both calls were made" }).toBe(2);

      // A form posted from there is a navigation, so its answer can be seen: the Origin check's 403.
      const [answer] = await Promise.all([page.waitForResponse(target), page.getByRole("button", { name: "Win a prize" }).click()]);
      expect(await answer.request().headerValue("cookie"), "the browser sent the session cookie").toContain("opsroom.session_token=");
      expect(await answer.request().headerValue("origin")).toBe(evil.origin);
      expect(answer.status()).toBe(403);
      expect((await answer.json()).error.code).toBe("cross_site_request");

      // Nothing was made: the owner's list is as it was.
      expect(expectSuccess(await asPerson(owner.cookie, "/v1/settings/api-keys")).data).toEqual([]);
      expect(await settingsRows(owner.orgId)).toEqual(before);
      await page.close();
    } finally {
      await evil.close();
    }
  });
});

describe("Settings -> Integrations: webhooks", { timeout: 90_000 }, () => {
  it("registers a webhook (secret shown once), tests it, shows the delivery log, redelivers, disables and deletes", async () => {
    const owner = await signUp();
    const receiver = await startReceiver("console");
    const page = await openSettings(owner);
    const webhooks = page.getByRole("region", { name: "Webhooks" });

    await webhooks.getByLabel("URL").fill(receiver.url);
    await webhooks.getByLabel("Event patterns").fill("task.*, project.created");
    await webhooks.getByRole("button", { name: "Register webhook" }).click();
    const secretField = webhooks.getByLabel("Signing secret (shown once)");
    await expect.poll(() => secretField.inputValue(), { timeout: UI_TIMEOUT_MS }).toMatch(/^whsec_/);
    receiver.useSecret(await secretField.inputValue());
    const row = rowOf(webhooks.getByRole("table", { name: "Webhooks", exact: true }), receiver.url);
    await row.getByText("task.*, project.created").waitFor();

    await row.getByRole("button", { name: "Test" }).click();
    const [test] = await receiver.waitForCount(1, UI_TIMEOUT_MS);
    expect(test).toMatchObject({ verified: true, event: { type: "webhook.test" } });
    const log = page.getByRole("region", { name: `Deliveries to ${receiver.url}` });
    await rowOf(log, "webhook.test").getByText("succeeded").waitFor();

    // A real event, then sent again from the log: the same event, verified again.
    const project = await asPerson(owner.cookie, "/v1/projects", {
      body: { name: "Quay wall", budget: 1000, startDate: "2026-01-01", endDate: "2026-12-31" },
    });
    expect(project.status, project.text).toBe(201);
    const [, created] = await receiver.waitForCount(2, UI_TIMEOUT_MS);
    expect(created).toMatchObject({ verified: true, event: { type: "project.created", data: { id: project.body.data.id } } });
    const attempt = rowOf(log, "project.created");
    await attempt.getByText("succeeded").waitFor();
    await attempt.getByRole("button", { name: "Redeliver" }).click();
    const [, , again] = await receiver.waitForCount(3, UI_TIMEOUT_MS);
    expect(again).toMatchObject({ verified: true, event: { type: "project.created", id: created!.event.id } });
    await expect.poll(() => rowOf(log, "project.created").count(), { timeout: UI_TIMEOUT_MS }).toBe(2);
    await webhooks.screenshot({ path: `${ARTIFACTS}settings-webhooks.png` });

    await row.getByRole("button", { name: "Disable" }).click();
    // The state cell exactly: the actions cell's text ("…DisableDelete") holds "disabled" too.
    await row.getByRole("cell", { name: "Disabled", exact: true }).waitFor();
    const [listed] = expectSuccess(await asPerson(owner.cookie, "/v1/webhooks")).data as { enabled: boolean }[];
    expect(listed?.enabled).toBe(false);

    await row.getByRole("button", { name: "Delete" }).click();
    await row.getByRole("button", { name: "Confirm delete" }).click();
    await webhooks.getByText("No webhooks yet.").waitFor();
    expect(expectSuccess(await asPerson(owner.cookie, "/v1/webhooks")).data).toEqual([]);
    await page.close();
  });
});

describe("Settings -> Members and invitations", { timeout: 90_000 }, () => {
  it("invites someone who signs up in a second browser, and someone with an account who signs in to accept", async () => {
    const owner = await signUp({ name: "Dorothy Vaughan", organisationName: "West Area Computing" });
    const ownerPage = await openSettings(owner, { clipboard: true });
    const members = ownerPage.getByRole("region", { name: "Members" });

    /** Invites `email` with `role` through the page; answers the one-time link. */
    async function invite(email: string, role: string): Promise<string> {
      const link = members.getByLabel("Invitation link (shown once)");
      const previous = (await link.count()) ? await link.inputValue() : "";
      await members.getByLabel("Email", { exact: true }).fill(email);
      await members.getByLabel("Role", { exact: true }).selectOption({ label: role });
      await members.getByRole("button", { name: "Invite" }).click();
      await expect.poll(() => link.inputValue(), { timeout: UI_TIMEOUT_MS }).not.toBe(previous);
      expect((await link.inputValue()).startsWith(`${origin}/invite#`)).toBe(true);
      await rowOf(members.getByRole("table", { name: "Open invitations" }), email).waitFor();
      return link.inputValue();
    }

    // An owner is offered every role; the link is shown once, with Copy.
    await expect.poll(() => optionsOf(members.getByLabel("Role", { exact: true }))).toEqual(["Owner", "Admin", "Member"]);
    const newcomer = { email: newEmail("newcomer"), password: "a long enough password" };
    const newcomerLink = await invite(newcomer.email, "Admin");
    await members.getByRole("button", { name: "Copy" }).click();
    expect(await ownerPage.evaluate(() => navigator.clipboard.readText())).toBe(newcomerLink);

    // A second browser context: the newcomer opens the link and signs up with the invited address.
    const newcomerPage = await openPage(browser);
    await newcomerPage.goto(newcomerLink);
    await newcomerPage.getByText(`${newcomer.email} is invited to join West Area Computing as admin.`).waitFor();
    const signUpForm = newcomerPage.getByRole("form", { name: "Create your account" });
    const email = signUpForm.getByLabel("Email");
    expect(await email.inputValue()).toBe(newcomer.email);
    expect(await email.getAttribute("readonly")).not.toBeNull();
    await signUpForm.getByLabel("Name", { exact: true }).fill("Christine Darden");
    await signUpForm.getByLabel("Password").fill(newcomer.password);
    await signUpForm.getByRole("button", { name: "Create account and join" }).click();
    await newcomerPage.waitForURL(`${origin}/`);
    await newcomerPage.getByRole("navigation", { name: "Account" }).getByText("Signed in as Christine Darden · Admin").waitFor();
    expect(await newcomerPage.locator("#organisation").textContent()).toBe("West Area Computing");

    // Someone with an account elsewhere: "I already have an account", signs in, accepts.
    const existing = await signUp({ name: "Annie Easley", organisationName: "Lewis Field" });
    const existingLink = await invite(existing.email, "Member");
    const existingPage = await openPage(browser);
    await existingPage.goto(existingLink);
    // The page has read the invitation (and shown its sign-up form) before the person asks to sign in instead.
    await existingPage.getByText(`${existing.email} is invited to join West Area Computing as member.`).waitFor();
    await existingPage.getByRole("button", { name: "I already have an account" }).click();
    const signInForm = existingPage.getByRole("form", { name: "Sign in to accept" });
    expect(await signInForm.getByLabel("Email").inputValue()).toBe(existing.email);
    await signInForm.getByLabel("Password").fill(existing.password);
    await signInForm.getByRole("button", { name: "Sign in and join" }).click();
    await existingPage.waitForURL(`${origin}/`).catch(async (error: unknown) => {
      // Say what the page said, rather than only that it stayed.
      throw new Error(
        `stayed on ${existingPage.url()}; the page says: ${await existingPage
          .locator("#invite-error")
          .textContent()
          .catch(() => "?")}`,
        { cause: error },
      );
    });
    await existingPage.getByRole("navigation", { name: "Account" }).getByText("Signed in as Annie Easley · Member").waitFor();
    expect(await existingPage.locator("#organisation").textContent()).toBe("West Area Computing");
    // Now in two organisations: the header offers a switch.
    expect(await optionsOf(existingPage.getByLabel("Organisation"))).toEqual(
      expect.arrayContaining(["Lewis Field", "West Area Computing"]),
    );

    // The owner sees both, no open invitation, and changes a role and removes a member.
    await ownerPage.reload();
    await members.getByText("No open invitations.").waitFor();
    await members.getByLabel("Role of Christine Darden").selectOption({ label: "Member" });
    await members.getByRole("status").getByText("Christine Darden is now Member.").waitFor();
    await rowOf(members, "Annie Easley").getByRole("button", { name: "Remove" }).click();
    await rowOf(members, "Annie Easley").getByRole("button", { name: "Confirm remove" }).click();
    await expect.poll(() => rowOf(members, "Annie Easley").count(), { timeout: UI_TIMEOUT_MS }).toBe(0);
    const listed = expectSuccess(await asPerson(owner.cookie, "/v1/settings/members")).data as { name: string; role: string }[];
    expect(listed.map(({ name, role }) => `${name}: ${role}`)).toEqual(["Dorothy Vaughan: owner", "Christine Darden: member"]);
    await Promise.all([ownerPage.close(), newcomerPage.close(), existingPage.close()]);
  });

  it("an admin is not offered the owner role, and cannot change an owner", async () => {
    const owner = await signUp({ name: "Dorothy Vaughan" });
    const admin = await memberOf(owner, "admin");
    await memberOf(owner, "member");
    const page = await openSettings(admin);
    const members = page.getByRole("region", { name: "Members" });
    await rowOf(members, "member person").waitFor();
    await expect.poll(() => optionsOf(members.getByLabel("Role", { exact: true }))).toEqual(["Admin", "Member"]);
    expect(await optionsOf(members.getByLabel("Role of member person"))).toEqual(["Admin", "Member"]);
    expect(await rowOf(members, "Dorothy Vaughan").getByRole("combobox").count()).toBe(0);
    expect(await rowOf(members, "Dorothy Vaughan").getByRole("button").count()).toBe(0);
    await page.close();
  });
});

/** A page served from another origin (127.0.0.1, another port). */
async function servePage(html: string): Promise<{ url: string; origin: string; close: () => Promise<void> }> {
  const server: Server = createServer((_, response) => response.writeHead(200, { "content-type": "text/html" }).end(html));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const pageOrigin = `http://127.0.0.1:${port}`;
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return { url: `${pageOrigin}/`, origin: pageOrigin, close };
}
