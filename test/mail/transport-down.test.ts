import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { reserveRestartablePort } from "../../cli/dev/ports.ts";
import { startMailCatcher, type MailCatcher } from "../../cli/lib/mail-catcher.ts";
import { startSqlEndpoint, type SqlEndpoint } from "../../cli/lib/sql-endpoint.ts";
import { query } from "../helpers/database.ts";
import { mailTo, outboxFor } from "../helpers/mail.ts";
import { cookieOf, newEmail } from "../helpers/people.ts";
import { pollUntil } from "../helpers/wait.ts";
import { startTestWorker, type TestWorker } from "../helpers/worker.ts";

// A mail server that cannot be reached (nothing listens where MAIL_URL points): the call that
// queued the mail succeeds, the message stays queued with the error, and once the server is up the
// sweep sends it, once. A Worker of this file's own, on the harness's database.

let sqlEndpoint: SqlEndpoint;
let worker: TestWorker;
let smtpPort: number;
let catcher: MailCatcher | undefined;

beforeAll(async () => {
  const database = new URL(inject("databaseUrl"));
  sqlEndpoint = await startSqlEndpoint({ target: { host: database.hostname, port: Number(database.port || 5432) } });
  smtpPort = await reserveRestartablePort();
  worker = await startTestWorker(
    {
      DATABASE_URL: inject("databaseUrl"),
      LOCAL_SQL_ENDPOINT: sqlEndpoint.address,
      AUTH_SECRET: randomBytes(32).toString("hex"),
      MAIL_URL: `smtp://127.0.0.1:${smtpPort}`,
    },
    { testScheduled: true },
  );
}, 120_000);

afterAll(async () => {
  await catcher?.close();
  await worker?.dispose();
  await sqlEndpoint?.close();
}, 60_000);

function call(path: string, init: { body?: unknown; cookie?: string } = {}) {
  return fetch(new URL(path, worker.url), {
    method: init.body === undefined ? "GET" : "POST",
    headers: {
      "content-type": "application/json",
      origin: worker.url,
      "cf-connecting-ip": `2001:db8:ma:${randomBytes(2).toString("hex")}::1`,
      ...(init.cookie ? { cookie: init.cookie } : {}),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

describe("a mail server that refuses connections", () => {
  it("leaves the message queued with the error, the call unaffected; once it is up the sweep sends it, once", async () => {
    const signedUp = await call("/auth/sign-up/email", {
      body: { email: newEmail("owner"), password: `pw-${randomBytes(8).toString("hex")}`, name: "Owner" },
    });
    expect(signedUp.status).toBe(200);
    const cookie = cookieOf(signedUp);
    // The database is the harness's: another file's Worker, whose mail server is up, may sweep the
    // invitation before this Worker's first attempt. Then it is sent (once, elsewhere), and a new one is tried.
    let email = "";
    let queued: Awaited<ReturnType<typeof outboxFor>>[number] | undefined;
    for (let tries = 1; !queued; tries += 1) {
      email = newEmail("unreachable");
      const created = await call("/v1/settings/invitations", { body: { email, role: "member" }, cookie });
      expect(created.status, await created.clone().text()).toBe(201);
      const [first] = await pollUntil(
        () => outboxFor(email),
        (rows) => (rows[0]?.attempts ?? 0) >= 1 && rows[0]?.status !== "sending",
      );
      if (first!.status === "queued") queued = first;
      else expect(tries, "every invitation was swept by another Worker before this one tried").toBeLessThan(3);
    }
    expect(queued.attempts).toBe(1);
    expect(queued.last_error).toBeTruthy();

    catcher = await startMailCatcher({ smtpPort });
    await query(`update mail_outbox set next_attempt_at = now() where id = $1`, [queued!.id]);
    expect((await fetch(new URL(`/__scheduled?cron=${encodeURIComponent("* * * * *")}`, worker.url))).status).toBe(200);
    // The database is the harness's, so its Worker's sweep (another file's) may be the one that
    // sends it, to the harness's catcher: either way, once.
    const caught = async () => [
      ...((await (await fetch(`${catcher!.httpUrl}/messages?to=${encodeURIComponent(email)}`)).json()) as unknown[]),
      ...(await mailTo(email)),
    ];
    await pollUntil(caught, (messages) => messages.length === 1, 10_000);
    await pollUntil(
      () => outboxFor(email),
      (rows) => rows[0]?.status === "sent",
    );
    expect(await outboxFor(email)).toEqual([expect.objectContaining({ status: "sent", attempts: 2, last_error: null })]);
    // Another sweep (this Worker's) sends nothing more.
    await fetch(new URL(`/__scheduled?cron=${encodeURIComponent("* * * * *")}`, worker.url));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await caught()).length).toBe(1);
  });
});
