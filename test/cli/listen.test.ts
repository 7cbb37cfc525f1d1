import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workerUrl } from "../helpers/api.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { withRealtimeServer, withRoom } from "../helpers/realtime.ts";

// `opsroom listen` as a developer runs it: the CLI in a child process, against the harness's
// Worker and its real PartyKit room, forwarding to a local receiver that verifies each delivery
// with the `standardwebhooks` package. Its connection is lost by restarting the realtime server
// (under the exclusive lease, so no other file's sockets are pulled away).

const CLI = fileURLToPath(new URL("../../cli/bin.js", import.meta.url));
// Generous: the machine has 2 cores shared by the Worker, the room, Postgres and the CLI.
const WAIT_MS = 30_000;

let receiver: { url: string; received: { headers: IncomingHttpHeaders; body: string }[]; server: Server };

beforeAll(async () => {
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver = { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`, received, server };
});

afterAll(async () => {
  await new Promise((resolve) => receiver?.server.close(resolve));
});

/** The CLI running, with its output kept line by line and a way to wait for a line. */
function runListen(args: string[]) {
  const child: ChildProcess = spawn(process.execPath, [CLI, "listen", "--api", workerUrl(), ...args], {
    env: { ...process.env, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines = { stdout: [] as string[], stderr: [] as string[] };
  createInterface({ input: child.stdout! }).on("line", (line) => lines.stdout.push(line));
  createInterface({ input: child.stderr! }).on("line", (line) => lines.stderr.push(line));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  return {
    lines,
    exited,
    /** Polls until a line of `stream` matches; answers it. */
    async waitFor(stream: "stdout" | "stderr", pattern: RegExp): Promise<string> {
      let found: string | undefined;
      await expect
        .poll(() => (found = lines[stream].find((line) => pattern.test(line))), {
          timeout: WAIT_MS,
          message: `${pattern} on ${stream}:\n${lines.stdout.join("\n")}\n${lines.stderr.join("\n")}`,
        })
        .toBeDefined();
      return found!;
    },
    stop: () => child.kill("SIGINT"),
  };
}

async function call(tenant: Tenant, method: string, path: string, body: unknown): Promise<any> {
  const response = await fetch(`${workerUrl()}${path}`, {
    method,
    headers: { authorization: `Bearer ${tenant.key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(response.status, `${method} ${path}`).toBeLessThan(300);
  return ((await response.json()) as { data: any }).data;
}

describe("opsroom listen", { timeout: 90_000 }, () => {
  it("prints, filters and forwards signed events, and catches up after a disconnect", async () => {
    const tenant = await createTenant();
    const person = await tenant.insertPerson();
    const project = await tenant.insertProject();
    const listen = runListen(["--key", tenant.key, "--forward-to", receiver.url, "--events", "task.*"]);
    const secret = (await listen.waitFor("stderr", /^\s+whsec_/)).trim();
    const task = await withRoom(async () => {
      await listen.waitFor("stderr", /^Connected/);

      await call(tenant, "POST", "/v1/projects", { name: "Not a task", budget: 0, startDate: "2026-01-01", endDate: "2026-02-01" });
      const created = await call(tenant, "POST", "/v1/tasks", {
        projectId: project.id,
        assigneeId: person.id,
        title: "Fit the fire doors",
        dueDate: "2026-03-01",
      });
      await call(tenant, "PATCH", `/v1/tasks/${created.id}`, { status: "in_progress" });

      await listen.waitFor("stdout", new RegExp(`task\\.created\\s+#2\\s+${created.id}\\s+created`));
      await listen.waitFor("stdout", new RegExp(`task\\.updated\\s+#3\\s+${created.id}\\s+status: todo → in_progress`));
      await listen.waitFor("stderr", /↳ #3 task\.updated 200 OK/);
      return created;
    });
    expect(listen.lines.stdout.join("\n"), "--events task.* leaves project events out").not.toMatch(/project\./);

    // Each forward verifies as a real webhook does, and carries the event itself.
    expect(receiver.received).toHaveLength(2);
    const verified = receiver.received.map(({ headers, body }) =>
      new Webhook(secret).verify(body, headers as Record<string, string>),
    ) as Array<{ type: string; changeVersion: number }>;
    expect(verified.map((event) => [event.type, event.changeVersion])).toEqual([
      ["task.created", 2],
      ["task.updated", 3],
    ]);

    // The room goes away; a change made meanwhile is printed (and forwarded) once it is back.
    await withRealtimeServer(async (server) => {
      await server.stop();
      await listen.waitFor("stderr", /^Disconnected from the room/);
      await call(tenant, "PATCH", `/v1/tasks/${task.id}`, { status: "done" });
      await server.start();
      await listen.waitFor("stderr", /^Reconnected, caught up on 1 missed event/);
    });
    await listen.waitFor("stdout", /task\.updated\s+#4\s+.*status: in_progress → done/);
    await listen.waitFor("stderr", /↳ #4 task\.updated 200 OK/);
    expect(
      listen.lines.stdout.filter((line) => line.includes("#4")),
      "printed once",
    ).toHaveLength(1);

    listen.stop();
    expect(await listen.exited).toBe(0);
    expect(listen.lines.stderr.at(-1)).toMatch(/Stopped/);
  });

  it("--json prints each event as one raw JSON line", async () => {
    const tenant = await createTenant();
    const listen = runListen(["--key", tenant.key, "--json"]);
    const [project, line] = await withRoom(async () => {
      await listen.waitFor("stderr", /^Connected/);
      const created = await call(tenant, "POST", "/v1/projects", {
        name: "Loading bay",
        budget: 1200,
        startDate: "2026-01-01",
        endDate: "2026-02-01",
      });
      return [created, await listen.waitFor("stdout", /^\{/)] as const;
    });
    expect(JSON.parse(line)).toMatchObject({
      type: "project.created",
      changeVersion: 1,
      orgId: tenant.org.id,
      data: { id: project.id, name: "Loading bay" },
    });
    listen.stop();
    expect(await listen.exited).toBe(0);
  });

  it("--project and --exclude-own narrow the stream on the server: the socket's and the catch-up's", async () => {
    const tenant = await createTenant();
    const other = await tenant.keyWith(["projects.manage"]);
    const [p1, p2] = [await tenant.insertProject(), await tenant.insertProject()];
    const listen = runListen(["--key", tenant.key, "--project", p1.id, "--exclude-own"]);
    await listen.waitFor("stderr", new RegExp(`^Only project ${p1.id}; not this key's own changes\\.`));
    await withRoom(async () => {
      await listen.waitFor("stderr", /^Connected/);
      await call(tenant, "PATCH", `/v1/projects/${p1.id}`, { name: "Own change" }); // #1: this key's own
      await call({ ...tenant, key: other.key }, "PATCH", `/v1/projects/${p2.id}`, { name: "Other project" }); // #2: another project
      await call({ ...tenant, key: other.key }, "PATCH", `/v1/projects/${p1.id}`, { name: "Wanted" }); // #3
      // Events arrive in changeVersion order: once #3 is printed, #1 and #2 would have been too.
      await listen.waitFor("stdout", /project\.updated\s+#3\s/);
    });
    expect(listen.lines.stdout).toHaveLength(1);
    listen.stop();
    expect(await listen.exited).toBe(0);
  });

  it("refuses a malformed filter before connecting, naming the flag", async () => {
    for (const [args, message] of [
      [["--project", "p1"], /--project must be a UUID/],
      [["--events", "task.*,bogus"], /--events: "bogus" is not/],
    ] as const) {
      const listen = runListen(["--key", "ops_unknownunknownunknownunknownunkn0wn", ...args]);
      expect(await listen.exited).toBe(2);
      expect(listen.lines.stderr.join("\n")).toMatch(message);
    }
  });

  it("refuses a key the API does not know, before connecting", async () => {
    const listen = runListen(["--key", "ops_unknownunknownunknownunknownunkn0wn"]);
    expect(await listen.exited).toBe(1);
    expect(listen.lines.stderr.join("\n")).toMatch(/the API refused: 401 (invalid_key|unauthorized)/);
  });
});
