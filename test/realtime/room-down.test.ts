import { expect, it } from "vitest";
import { api, expectSuccess } from "../helpers/api.ts";
import { query } from "../helpers/database.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { openRoomSocket, runSweep, waitForAcknowledged, withRealtimeServer, type RoomMessage } from "../helpers/realtime.ts";
import { created, patched, taskBody } from "../helpers/resources.ts";

// No event is lost when the realtime server is down (docs/api.md "changeVersion and events"):
// writes go on, their events wait in the outbox, and once the room is back the cron sweep
// re-publishes them. Stops the shared realtime server, so it holds the exclusive lease (no useRoom).

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

it(
  "with the room stopped writes still succeed, and once it is back and the sweep runs every event arrives, once, in order",
  { timeout: 60_000 },
  () =>
    withRealtimeServer(async (server) => {
      const tenant = await createTenant();
      const project = await tenant.insertProject();

      // A client following the README's reconnect recipe, beside the raw socket it uses.
      let seen = 0;
      const applied: number[] = [];
      let queue = Promise.resolve();
      const recipe = (message: RoomMessage) => {
        queue = queue.then(async () => {
          if (message.type === "ready") {
            for (let after = seen, more = true; more;) {
              const page = expectSuccess(await api(`/v1/events?after=${after}&limit=200`, { key: tenant.key }));
              for (const event of page.data as Array<{ changeVersion: number }>) {
                if (event.changeVersion > seen) applied.push((seen = event.changeVersion));
              }
              more = page.nextCursor !== null;
              if (more) after = Number(page.nextCursor);
            }
            return;
          }
          if (message.changeVersion <= seen) return;
          applied.push((seen = message.changeVersion));
        });
      };
      const socket = openRoomSocket(tenant.org.id, { apiKey: tenant.key }, { onMessage: recipe });
      await socket.ready;
      await patched(tenant.key, `/v1/projects/${project.id}`, { budget: 1 });
      await patched(tenant.key, `/v1/projects/${project.id}`, { budget: 2 });
      await socket.waitForEvents(2);
      // The room's acknowledgement is recorded after it answered (with the Worker's next write, or
      // by the sweep), so a socket can see an event first; stop the room only once both are
      // recorded, or the sweep would rightly re-send event 2.
      expect(await waitForAcknowledged(tenant.org.id, 2)).toEqual([1, 2]);

      await server.stop();
      // Five writes of different kinds while the room is unreachable: every one succeeds.
      const task = await created(tenant.key, "/v1/tasks", await taskBody(tenant, { projectId: project.id }));
      await patched(tenant.key, `/v1/tasks/${task.id}`, { status: "in_progress" });
      await patched(tenant.key, `/v1/projects/${project.id}`, { budget: 3 });
      expectSuccess(await api(`/v1/tasks/${task.id}`, { key: tenant.key, method: "DELETE" }));
      await created(tenant.key, "/v1/personnel", { name: "Late Joiner", email: `late-${tenant.org.id.slice(-8)}@example.test` });
      const unpublished = await query<{ change_version: string }>(
        "select change_version from events where org_id = $1 and published_at is null order by change_version",
        [tenant.org.id],
      );
      expect(unpublished.map((row) => Number(row.change_version))).toEqual(range(3, 7));

      await server.start();
      // The socket reconnects by itself; the room kept its place across the restart.
      await socket.waitFor(() => socket.readies().length >= 2, 15_000);
      expect(socket.readies()).toEqual([0, 2]);

      // The sweep takes events older than its 10 s grace, as the cron would a minute later.
      const deadline = Date.now() + 30_000;
      while (socket.events().length < 7 && Date.now() < deadline) {
        await runSweep();
        await socket.waitForEvents(7, 1_000).catch(() => {});
      }
      await queue;
      expect(socket.events().map((e) => e.changeVersion)).toEqual(range(1, 7));
      expect(socket.events().map((e) => e.type)).toEqual([
        "project.updated",
        "project.updated",
        "task.created",
        "task.updated",
        "project.updated",
        "task.deleted",
        "personnel.created",
      ]);
      expect(applied).toEqual(range(1, 7));
      // And the outbox knows: the room's acknowledgement is recorded (just after it delivered).
      expect(await waitForAcknowledged(tenant.org.id, 7)).toEqual(range(1, 7));
    }),
);

it("a client that was away while the room was down catches up: ready, then GET /v1/events?after=<last seen>", { timeout: 60_000 }, () =>
  withRealtimeServer(async (server) => {
    const tenant = await createTenant();
    const project = await tenant.insertProject();
    const first = openRoomSocket(tenant.org.id, { apiKey: tenant.key });
    await first.ready;
    await patched(tenant.key, `/v1/projects/${project.id}`, { budget: 1 });
    const lastSeen = (await first.waitForEvents(1)).at(-1)!.changeVersion;
    first.close();

    await server.stop();
    for (let i = 2; i <= 4; i++) await patched(tenant.key, `/v1/projects/${project.id}`, { budget: i });
    await server.start();

    // Back before any sweep: the room has not had 2..4 yet, and says so.
    const again = openRoomSocket(tenant.org.id, { apiKey: tenant.key });
    expect(await again.ready).toBe(lastSeen);
    const page = expectSuccess(await api(`/v1/events?after=${lastSeen}`, { key: tenant.key }));
    expect(page.data.map((e: { changeVersion: number; data: { budget: number } }) => [e.changeVersion, e.data.budget])).toEqual([
      [2, 2],
      [3, 3],
      [4, 4],
    ]);
    // A live write now: the room fills the gap from the API before it, so the socket gets 2..5 in order.
    await patched(tenant.key, `/v1/projects/${project.id}`, { budget: 5 });
    await again.waitForEvents(4);
    expect(again.events().map((e) => e.changeVersion)).toEqual([2, 3, 4, 5]);
  }),
);
