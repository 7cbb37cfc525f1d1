import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startMailCatcher, type MailCatcher } from "../../cli/lib/mail-catcher.ts";
import { api, expectSuccess } from "../helpers/api.ts";
import { insertProject, keyWith } from "../helpers/fixtures.ts";
import { close, listen, readBody, startSqlRecorder, type SqlRecorder } from "../helpers/sql-recorder.ts";
import { pollUntil } from "../helpers/wait.ts";
import { startTestWorker, type TestWorker } from "../helpers/worker.ts";
import { team } from "./helpers.ts";

// What a notified change costs beside one that notifies no one (docs/notifications.md "Cost"),
// counted from outside a Worker of this file's own: its SQL requests through a recording proxy
// (test/helpers/sql-recorder.ts), its messages to a stand-in room, and the mails its own SMTP
// catcher receives. The answer's cost is the same for both: one SQL request. What follows the
// answer (waitUntil) is counted until the Worker has been quiet for a second.

let recorder: SqlRecorder;
let room: Server;
let catcher: MailCatcher;
let worker: TestWorker;
const roomPosts: Array<{ events?: unknown[]; notifications?: unknown[] }> = [];

beforeAll(async () => {
  recorder = await startSqlRecorder(inject("databaseUrl"));
  room = createServer((req, res) => {
    void readBody(req).then((body) => {
      const message = JSON.parse(body.toString("utf8")) as { events?: Array<{ changeVersion: number }>; notifications?: unknown[] };
      roomPosts.push(message);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(message.events ? { acknowledged: message.events.map((e) => e.changeVersion) } : { sent: 1 }));
    });
  });
  const roomPort = await listen(room);
  catcher = await startMailCatcher({ smtpPort: 0, httpPort: 0, print: () => {} });
  worker = await startTestWorker({
    DATABASE_URL: inject("databaseUrl"),
    LOCAL_SQL_ENDPOINT: `127.0.0.1:${recorder.port}`,
    REALTIME_URL: `http://127.0.0.1:${roomPort}`,
    REALTIME_SECRET: randomBytes(24).toString("hex"),
    AUTH_SECRET: randomBytes(32).toString("hex"),
    MAIL_URL: catcher.smtpUrl,
  });
}, 120_000);

afterAll(async () => {
  await worker?.dispose();
  await Promise.all([recorder?.close(), room && close(room), catcher?.close()]);
}, 60_000);

/**
 * The SQL requests, room posts and mails from sending `call` until the Worker has been quiet for a
 * second with `mails` mails caught: a quiet second alone can fall between the push and the mail's
 * claim on a loaded machine, where the send waits its turn for the CPU.
 */
async function cost(call: () => Promise<unknown>, mails = 0) {
  const from = { sql: recorder.requests.length, room: roomPosts.length };
  const mailsBefore = await caught();
  await call();
  const answered = recorder.requests.length - from.sql;
  let last = -1;
  await pollUntil(
    async () => {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const now = recorder.requests.length + roomPosts.length;
      const quiet = now === last;
      last = now;
      return quiet && (mails === 0 || (await caught()) - mailsBefore >= mails);
    },
    (quiet) => quiet,
    60_000,
  );
  return {
    answer: answered,
    sql: recorder.requests.length - from.sql,
    room: roomPosts.slice(from.room).map((p) => (p.events ? "events" : "notifications")),
    mails: (await caught()) - mailsBefore,
  };
}

const caught = async () => ((await (await fetch(`${catcher.httpUrl}/messages`)).json()) as unknown[]).length;

describe("the cost of a notified change", () => {
  it("a change that notifies one person, beside one that notifies no one", { timeout: 120_000 }, async () => {
    const { owner, memberPersonnelId } = await team();
    const { key } = await keyWith(owner.orgId, ["tasks.manage", "projects.read", "organisation.manage"]);
    const call = (path: string, method: "POST" | "PATCH", body: unknown) => () =>
      api(path, { key, method, body, baseUrl: worker.url }).then((r) => expectSuccess(r, method === "POST" ? 201 : 200).data);
    const unlinked = (await call("/v1/personnel", "POST", {
      name: "No One",
      email: `none-${randomBytes(4).toString("hex")}@example.test`,
    })()) as {
      id: string;
    };
    const project = await insertProject(owner.orgId);
    // Made through this Worker first: its key cache and modules are warm when the counted calls come.
    const task = (await call("/v1/tasks", "POST", {
      title: "Pour the footing",
      projectId: project.id,
      assigneeId: unlinked.id,
      dueDate: "2026-06-30",
    })()) as {
      id: string;
    };
    await cost(async () => {});

    const unnotified = await cost(call(`/v1/tasks/${task.id}`, "PATCH", { priority: "high" }));
    const notified = await cost(call(`/v1/tasks/${task.id}`, "PATCH", { assigneeId: memberPersonnelId }), 1);
    const personnel = await cost(call(`/v1/personnel/${unlinked.id}`, "PATCH", { name: "Still No One" }));
    console.log(JSON.stringify({ unnotified, notified, personnelChange: personnel }));

    // The write is one statement whatever follows; after the answer (waitUntil, so `answer` may count
    // some of it as it races the response): the derivation (1); when someone is told, the mail
    // queued (1), the push recorded (1), the mail claimed and marked sent (2). An event of a
    // record no one follows by nature (personnel) costs nothing more: the sweep marks it.
    expect({ ...unnotified, answer: undefined }).toEqual({ answer: undefined, sql: 2, room: ["events"], mails: 0 });
    expect({ ...notified, answer: undefined }).toEqual({ answer: undefined, sql: 6, room: ["events", "notifications"], mails: 1 });
    expect({ ...personnel, answer: undefined }).toEqual({ answer: undefined, sql: 1, room: ["events"], mails: 0 });
  });
});
