import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { SCOPES } from "../../domain/scopes.ts";
import { expectSuccess, workerUrl } from "../helpers/api.ts";
import { asPerson, memberOf, signUp, type Person } from "../helpers/people.ts";
import { openPage, UI_TIMEOUT_MS, useBrowser } from "./browser.ts";
import { tokenRequest, type Client } from "./oauth-client.ts";

// Settings -> Integrations -> Applications in Chromium: a public application (no secret) and a
// confidential one (its secret shown once, with Copy); Rotate secret with an overlap (both secrets
// work until it ends) and without (the old one stops at once); Delete (its client is unknown from
// then on); and the owner's switch for dynamic client registration, which an admin sees but
// cannot turn. Whether a secret works is asked of the token endpoint: a client that authenticates
// is refused for what it asks (it is installed nowhere), one that does not is 401 invalid_client.

const browser = useBrowser();

const region = (page: Page, name: string) => page.getByRole("region", { name, exact: true });
const rowOf = (scope: Locator, text: string) => scope.getByRole("row").filter({ hasText: text });

async function openSettings(person: Person, clipboard = false): Promise<Page> {
  const page = await openPage(browser(), { as: person, clipboard });
  await page.goto(`${workerUrl()}/settings.html`);
  await page.getByRole("heading", { name: "Settings", level: 1 }).waitFor();
  return page;
}

/** Whether the token endpoint authenticates the client with this secret (401 invalid_client if not). */
async function authenticates(client: Client): Promise<boolean> {
  const answer = await tokenRequest(client, { grant_type: "client_credentials" });
  expect(answer.status, JSON.stringify(answer.body)).not.toBe(200);
  return !(answer.status === 401 && answer.body.error === "invalid_client");
}

/** Fills and submits the registration form. */
async function register(apps: Locator, name: string, options: { redirectUri: string; scopes: string[]; public?: boolean }) {
  await apps.getByLabel("Name", { exact: true }).fill(name);
  await apps.getByLabel("Redirect URIs").fill(options.redirectUri);
  for (const scope of options.scopes) await apps.getByRole("checkbox", { name: scope, exact: true }).check();
  if (options.public) await apps.getByRole("radio", { name: /^Public/ }).check();
  await apps.getByRole("button", { name: "Register application" }).click();
  await rowOf(apps, name).waitFor();
  return (await rowOf(apps, name).locator("code").first().textContent()) ?? "";
}

describe("Settings -> Integrations -> Applications", { timeout: 120_000 }, () => {
  it("registers a public and a confidential application, rotates the secret with and without an overlap, deletes", async () => {
    const owner = await signUp({ name: "Evelyn Boyd Granville", organisationName: "Orbit Computing" });
    const page = await openSettings(owner, true);
    const apps = region(page, "Applications");

    // A public client: no secret, PKCE only.
    const publicId = await register(apps, "Field CLI", {
      redirectUri: "http://127.0.0.1/callback",
      scopes: [SCOPES["tasks.read"]],
      public: true,
    });
    expect(publicId).toMatch(/^app_/);
    await apps.getByText(`Application “Field CLI” registered, client id ${publicId}.`).waitFor();
    expect(await apps.getByText("A public client has no secret").count()).toBe(1);
    expect(await rowOf(apps, "Field CLI").textContent()).toMatch(/Public.*http:\/\/127\.0\.0\.1\/callback.*Read tasks/s);
    expect(await rowOf(apps, "Field CLI").getByRole("button", { name: "Rotate secret" }).count()).toBe(0);

    // A confidential client: its secret shown once, with Copy.
    const redirectUri = "https://planner.example.com/oauth/callback";
    const clientId = await register(apps, "Crew planner", { redirectUri, scopes: [SCOPES["projects.read"], SCOPES["tasks.manage"]] });
    const shown = apps.getByLabel("Client secret (shown once)");
    await expect.poll(() => shown.inputValue(), { timeout: UI_TIMEOUT_MS }).toMatch(/^opsroom_cs_/);
    const first = await shown.inputValue();
    await apps.getByRole("button", { name: "Copy" }).click();
    await apps.getByRole("status").getByText("Copied").waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(first);
    expect(await authenticates({ clientId, clientSecret: first })).toBe(true);
    expect(await authenticates({ clientId, clientSecret: `${first}x` })).toBe(false);
    const [listed] = expectSuccess(await asPerson(owner.cookie, "/v1/settings/applications")).data.filter(
      (app: { clientId: string }) => app.clientId === clientId,
    );
    expect(listed).toMatchObject({ name: "Crew planner", public: false, redirectUris: [redirectUri], createdBy: { id: owner.userId } });

    // Rotate, the current secret kept for an hour: both work.
    const row = rowOf(apps, "Crew planner");
    await row.getByRole("button", { name: "Rotate secret" }).click();
    await row.getByLabel("The current secret keeps working for").selectOption({ label: "1 hour" });
    await row.getByRole("button", { name: "Confirm rotate" }).click();
    await apps.getByText(/New secret for “Crew planner”; the previous one works until/).waitFor();
    const second = await shown.inputValue();
    expect(second).toMatch(/^opsroom_cs_/);
    expect(second).not.toBe(first);
    expect(await authenticates({ clientId, clientSecret: first })).toBe(true);
    expect(await authenticates({ clientId, clientSecret: second })).toBe(true);

    // Rotate again with no overlap: only the newest works.
    await rowOf(apps, "Crew planner").getByRole("button", { name: "Rotate secret" }).click();
    await rowOf(apps, "Crew planner")
      .getByLabel("The current secret keeps working for")
      .selectOption({ label: "no time: it stops at once" });
    await rowOf(apps, "Crew planner").getByRole("button", { name: "Confirm rotate" }).click();
    await apps.getByText(/the previous one works no longer/).waitFor();
    const third = await shown.inputValue();
    expect(await authenticates({ clientId, clientSecret: second })).toBe(false);
    expect(await authenticates({ clientId, clientSecret: third })).toBe(true);

    // After a reload no secret is in the page.
    await page.reload();
    await rowOf(apps, "Crew planner").waitFor();
    expect(await page.content()).not.toContain(third);

    await rowOf(apps, "Crew planner").getByRole("button", { name: "Delete" }).click();
    await rowOf(apps, "Crew planner").getByRole("button", { name: "Confirm delete" }).click();
    await apps.getByRole("status").getByText("“Crew planner” is deleted.").waitFor();
    expect(await rowOf(apps, "Crew planner").count()).toBe(0);
    expect(await authenticates({ clientId, clientSecret: third })).toBe(false);
    await page.close();
  });

  it("the owner turns dynamic client registration on and off; an admin sees it and cannot change it", async () => {
    const owner = await signUp({ name: "Melba Roy Mouton", organisationName: "Echo Tracking" });
    const admin = await memberOf(owner, "admin");
    const setting = async () =>
      expectSuccess(await asPerson(owner.cookie, "/v1/settings/organisation")).data.allowDynamicClientRegistration;

    const page = await openSettings(owner);
    const box = region(page, "Applications").getByRole("checkbox", { name: /register themselves/ });
    await expect.poll(() => box.isEnabled(), { timeout: UI_TIMEOUT_MS }).toBe(true);
    expect(await box.isChecked()).toBe(false);
    await box.check();
    await expect.poll(setting, { timeout: UI_TIMEOUT_MS }).toBe(true);
    await page.reload();
    await expect.poll(() => box.isChecked(), { timeout: UI_TIMEOUT_MS }).toBe(true);

    const adminPage = await openSettings(admin);
    const adminBox = region(adminPage, "Applications").getByRole("checkbox", { name: /register themselves/ });
    await region(adminPage, "Applications").getByText("Only an owner changes this.").waitFor();
    expect(await adminBox.isChecked()).toBe(true);
    expect(await adminBox.isDisabled()).toBe(true);

    await box.uncheck();
    await expect.poll(setting, { timeout: UI_TIMEOUT_MS }).toBe(false);
    await Promise.all([page.close(), adminPage.close()]);
  });
});
