import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { workerUrl } from "../helpers/api.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { useRoom } from "../helpers/realtime.ts";
import { created, patched, taskBody } from "../helpers/resources.ts";
import { pollUntil } from "../helpers/wait.ts";

// The README's client (client/example.ts), run as an integrator runs it (a Node process
// with OPSROOM_URL and OPSROOM_KEY) against the real stack: it lists the tasks to do or blocked,
// joins the room, and prints a change made after it started, once.

useRoom();

const root = fileURLToPath(new URL("../../", import.meta.url));

describe("the client example (client/example.ts)", () => {
  it("lists the tasks to do or blocked, then prints a later change from the room, once", { timeout: 60_000 }, async () => {
    const tenant = await createTenant();
    const project = await created(tenant.key, "/v1/projects", {
      name: "Example project",
      budget: 1000,
      startDate: "2026-01-01",
      endDate: "2026-12-31",
    });
    const todo = await created(tenant.key, "/v1/tasks", await taskBody(tenant, { projectId: project.id, title: "Order the cabinet" }));
    await created(
      tenant.key,
      "/v1/tasks",
      await taskBody(tenant, { projectId: project.id, title: "Wait for the permit", status: "blocked" }),
    );
    const done = await created(
      tenant.key,
      "/v1/tasks",
      await taskBody(tenant, { projectId: project.id, title: "Measure the room", status: "done" }),
    );

    const child = spawn(process.execPath, ["--import", "tsx", "client/example.ts"], {
      cwd: root,
      env: { ...process.env, OPSROOM_URL: workerUrl(), OPSROOM_KEY: tenant.key },
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    try {
      await pollUntil(
        async () => output,
        (text) => text.includes("Order the cabinet") && text.includes("Wait for the permit"),
        30_000,
      );
      expect(output).not.toContain(done.title);
      const changed = await patched(tenant.key, `/v1/tasks/${todo.id}`, { status: "in_progress" });
      const changeVersion = changed.body.changeVersion as number;
      await pollUntil(
        async () => output,
        (text) => text.includes(`task.updated ${changeVersion}`),
        30_000,
      );
      expect(output.split("\n").filter((line) => line.startsWith(`task.updated ${changeVersion}`))).toHaveLength(1);
    } finally {
      child.kill();
    }
  });
});
