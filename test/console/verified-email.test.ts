import { describe, expect, it } from "vitest";
import { expectSuccess, workerUrl } from "../helpers/api.ts";
import { linkIn, mailWithSubject, outboxFor } from "../helpers/mail.ts";
import { asPerson, memberOf, signUp, type Person } from "../helpers/people.ts";
import { expectAccessible } from "./axe.ts";
import { openPage, UI_TIMEOUT_MS, useBrowser } from "./browser.ts";

// Confirmed addresses in the console (docs/people.md "Confirmed addresses"): the owner's switch in
// Settings -> Members (an admin sees it, cannot change it), and, for a member whose address is
// unconfirmed, a page that says why in place of the board, with "Resend confirmation".

const browser = useBrowser();

const SUBJECT = "Confirm your opsroom address";
const required = async (owner: Person) =>
  expectSuccess(await asPerson(owner.cookie, "/v1/settings/organisation")).data.requireVerifiedEmail as boolean;

async function confirm(person: Person): Promise<void> {
  expect((await fetch(linkIn(await mailWithSubject(person.email, SUBJECT)), { redirect: "manual" })).status).toBe(302);
}

describe("confirmed addresses in the console", { timeout: 120_000 }, () => {
  it("the owner turns the requirement on in settings; an admin sees it and cannot change it", async () => {
    const owner = await signUp({ name: "Evelyn Boyd Granville", organisationName: "Foxtrot Freight" });
    await confirm(owner);
    const admin = await memberOf(owner, "admin");
    await confirm(admin);

    const page = await openPage(browser(), { as: owner });
    await page.goto(`${workerUrl()}/settings.html`);
    const box = page.getByRole("checkbox", { name: /confirm their email address/ });
    await expect.poll(() => box.isEnabled(), { timeout: UI_TIMEOUT_MS }).toBe(true);
    expect(await box.isChecked()).toBe(false);
    await box.check();
    await expect.poll(() => required(owner), { timeout: UI_TIMEOUT_MS }).toBe(true);
    await page.getByText("People whose address is unconfirmed now reach nothing here").waitFor();
    await expectAccessible(page, "settings with the switch on");

    const adminPage = await openPage(browser(), { as: admin });
    await adminPage.goto(`${workerUrl()}/settings.html`);
    const adminBox = adminPage.getByRole("checkbox", { name: /confirm their email address/ });
    await expect.poll(() => adminBox.isChecked(), { timeout: UI_TIMEOUT_MS }).toBe(true);
    expect(await adminBox.isDisabled()).toBe(true);
    await Promise.all([page.close(), adminPage.close()]);
  });

  it("an unconfirmed member is told why, asks for another link, and once confirmed gets the board", async () => {
    const owner = await signUp({ organisationName: "Golf Haulage" });
    await confirm(owner);
    const member = await memberOf(owner, "member");
    expectSuccess(await asPerson(owner.cookie, "/v1/settings/organisation", { method: "PATCH", body: { requireVerifiedEmail: true } }));

    const page = await openPage(browser(), { as: member });
    await page.goto(`${workerUrl()}/`);
    await page.getByRole("heading", { name: "Confirm your email address" }).waitFor({ timeout: UI_TIMEOUT_MS });
    await page.getByText(`Golf Haulage requires a confirmed email address. Follow the link mailed to ${member.email}`).waitFor();
    expect(await page.locator("#workspace").count()).toBe(0);
    await expectAccessible(page, "the unconfirmed page");

    const sent = (await outboxFor(member.email)).filter((mail) => mail.kind === "email_verification").length;
    await page.getByRole("button", { name: "Resend confirmation" }).click();
    await page.getByRole("status").getByText(`A new link is on its way to ${member.email}`).waitFor();
    await expect
      .poll(async () => (await outboxFor(member.email)).filter((mail) => mail.kind === "email_verification").length, {
        timeout: UI_TIMEOUT_MS,
      })
      .toBe(sent + 1);

    await confirm(member);
    await page.reload();
    await page.locator("#workspace:not([hidden])").waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await page.getByRole("heading", { name: "Confirm your email address" }).count()).toBe(0);
    await page.close();
  });
});
