import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { expectSuccess, workerUrl } from "../helpers/api.ts";
import { asPerson, fixturesOf, signUp } from "../helpers/people.ts";
import { useRoom } from "../helpers/realtime.ts";
import { taskBody } from "../helpers/resources.ts";
import { waitUntil } from "../helpers/wait.ts";
import { openPage, useBrowser } from "./browser.ts";
import { registerApplication } from "./oauth-client.ts";

// docs/app-example.ts, the third-party application of docs/apps.md, run as its reader runs it: a
// child process against the stack, with Chromium doing the person's part (opening the URL it
// prints and allowing it). It must get its tokens, call /v1 under its own name, follow the room on a
// socket joined with a realtime token minted with its access token (an event the person makes
// arrives), and refresh its token while it runs.

useRoom();

const EXAMPLE = fileURLToPath(new URL("../../docs/app-example.ts", import.meta.url));
const WAIT_MS = 30_000;

type Line = { step: string; [field: string]: any };

const browser = useBrowser();

function runExample(env: Record<string, string>, extra: string[]) {
  const child = spawn(process.execPath, ["--import", "tsx", EXAMPLE, "--api", workerUrl(), ...extra], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  const lines: Line[] = [];
  const errors: string[] = [];
  const listeners = new Set<() => void>();
  const heard = () => listeners.forEach((listener) => listener());
  createInterface({ input: child.stdout }).on("line", (line) => (lines.push(JSON.parse(line) as Line), heard()));
  createInterface({ input: child.stderr }).on("line", (line) => (errors.push(line), heard()));
  return {
    lines,
    /** Waits for the first printed line that satisfies `match`; fails saying what it printed by then. */
    line: (match: (line: Line) => boolean): Promise<Line> =>
      waitUntil(
        listeners,
        () => lines.find(match),
        (found) => found !== undefined,
        WAIT_MS,
        () => `printed: ${JSON.stringify(lines)}\n${errors.join("\n")}`,
      ) as Promise<Line>,
    stop: () => child.kill("SIGINT"),
  };
}

describe("docs/app-example.ts", { timeout: 90_000 }, () => {
  it("is allowed by a person in Chromium, calls /v1 as itself, receives an event on its socket and refreshes its token (a new refresh token each time)", async () => {
    const owner = await signUp({ name: "Annie Easley", organisationName: "Lewis Field" });
    // Registered on one loopback port, run on another: a loopback redirect URI matches on any port.
    const client = await registerApplication(owner, "Example app", ["tasks.manage", "projects.read"], ["http://127.0.0.1:8976/callback"]);
    const env = { OPSROOM_CLIENT_ID: client.clientId, OPSROOM_CLIENT_SECRET: client.clientSecret! };
    // Refresh 2 s after each token is issued (a token lives 3600 s), so the test sees a refresh.
    const example = runExample(env, ["--port", "0", "--scope", "tasks.read projects.read", "--refresh-early", "3598"]);
    try {
      const { url } = await example.line((line) => line.step === "authorize");
      const page = await openPage(browser(), { as: owner });
      await page.goto(url);
      await page.getByRole("heading", { name: "Allow Example app to use opsroom?" }).waitFor();
      await page.getByRole("button", { name: "Allow" }).click();
      await page.getByText("you can close this window").waitFor();
      await page.close();

      expect(await example.line((line) => line.step === "token")).toMatchObject({ expiresIn: 3600 });
      const connected = await example.line((line) => line.step === "connected");
      expect(connected).toMatchObject({ organisation: owner.orgId, application: "Example app", scopes: ["projects.read", "tasks.read"] });
      // Its socket, opened with a realtime token it minted: the person's next change arrives on it.
      await example.line((line) => line.step === "ready");
      const task = expectSuccess(await asPerson(owner.cookie, "/v1/tasks", { body: await taskBody(fixturesOf(owner.orgId)) }), 201).data;
      const event = await example.line((line) => line.step === "event" && line.id === task.id);
      expect(event).toMatchObject({ type: "task.created", actor: { type: "user", id: owner.userId, name: "Annie Easley" } });
      const refreshed = await example.line((line) => line.step === "refreshed");
      expect(refreshed).toMatchObject({ scope: "projects.read tasks.read", application: "Example app" });
    } finally {
      example.stop();
    }
  });
});
