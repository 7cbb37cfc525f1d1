import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { api, expectSuccess } from "../helpers/api.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { openRoomSocket, useRoom } from "../helpers/realtime.ts";
import { created, patched, personBody, projectBody, taskBody } from "../helpers/resources.ts";
import { inbox, nextNotification, personSocket, taskBy, team } from "../notifications/helpers.ts";

// client/asyncapi.json describes what the room sends: it is current, and the messages a real
// socket receives (ready, then events of every action; a person's notification) validate against
// its payload schemas.

useRoom();

const file = fileURLToPath(new URL("../../client/asyncapi.json", import.meta.url));

/** The document and its payload schemas, each compiled by name. */
function payloadSchemas() {
  const document = JSON.parse(readFileSync(file, "utf8"));
  // AsyncAPI's discriminator is a bare property name, which ajv does not know: drop it.
  const schemas = Object.fromEntries(
    Object.entries(document.components.schemas as Record<string, Record<string, unknown>>).map(
      ([name, { discriminator: _, ...schema }]) => [name, schema],
    ),
  );
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: "room", components: { schemas } });
  return { ajv, document, compile: (name: string) => ajv.compile({ $ref: `room#/components/schemas/${name}` }) };
}

describe("the AsyncAPI document of the realtime room", () => {
  it("every message a socket receives validates against the document's ready or event payload", async () => {
    const { ajv, compile } = payloadSchemas();
    const validReady = compile("Ready");
    const validEvent = compile("Event");

    const tenant = await createTenant();
    const socket = openRoomSocket(tenant.org.id, { apiKey: tenant.key });
    await socket.ready;
    const project = await created(tenant.key, "/v1/projects", projectBody());
    const task = await created(tenant.key, "/v1/tasks", await taskBody(tenant, { projectId: project.id }));
    await patched(tenant.key, `/v1/tasks/${task.id}`, { status: "in_progress", priority: "urgent" });
    await created(tenant.key, "/v1/personnel", personBody());
    expectSuccess(await api(`/v1/tasks/${task.id}`, { key: tenant.key, method: "DELETE" }));
    await socket.waitForEvents(5);
    socket.socket.close();

    const messages = socket.messages.map((m) => m.message);
    expect(messages.map((m) => m.type)).toEqual([
      "ready",
      "project.created",
      "task.created",
      "task.updated",
      "personnel.created",
      "task.deleted",
    ]);
    for (const message of messages) {
      const validate = message.type === "ready" ? validReady : validEvent;
      expect(validate(message), `${message.type}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
  });

  it("a person's socket receives their notification as the document's notification message, the item GET /v1/notifications lists", async () => {
    const { ajv, document, compile } = payloadSchemas();
    const valid = compile("NotificationMessage");
    expect(document.channels.room.messages.notification).toEqual({ $ref: "#/components/messages/notification" });
    const { owner, member, memberPersonnelId } = await team();
    const socket = await personSocket(member);
    await taskBy(owner, memberPersonnelId);
    const notification = await nextNotification(socket);
    const message = socket.messages.map((m) => m.message as { type: string }).find((m) => m.type === "notification");
    expect(valid(message), ajv.errorsText(valid.errors)).toBe(true);
    expect((await inbox(member)).data).toEqual([notification]);
    // A changed message is refused: the schema holds the message to its shape.
    expect(valid({ ...message, extra: true })).toBe(false);
    expect(valid({ type: "notification", notification: { ...notification, kind: "poked" } })).toBe(false);
  });
});
