import { beforeAll, describe, expect, inject, it } from "vitest";
import { SCOPES } from "../../domain/scopes.ts";
import { ErrorEnvelopeSchema, errorExampleOf } from "../../functions/http/error-schemas.ts";
import { ERROR_STATUS } from "../../functions/http/errors.ts";
import { eventCatalogue } from "../../functions/openapi/event-catalogue.ts";
import { loadRoutes } from "../../functions/routes/index.ts";
import { roomsAt } from "../../services/room-client.ts";
import { seedDemoFiles } from "../../services/seed/demo-files.ts";
import { DEMO_IDS } from "../../services/seed/demo-ids.ts";
import { seedDemoViews } from "../../services/seed/demo-views.ts";
import { seedDemo } from "../../services/seed/seed.ts";
import { createUser } from "../../services/users.ts";
import { api, expectSuccess, type Method } from "../helpers/api.ts";
import { upload } from "../helpers/attachments.ts";
import { testDatabase } from "../helpers/database.ts";
import { asPerson, cookieOf, newEmail, signIn } from "../helpers/people.ts";
import { pollUntil } from "../helpers/wait.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";

const routes = await loadRoutes();

// What GET /docs shows besides the operations: every operation carries a whole example request and
// answer that the API itself would accept and could send (each is parsed with the route's own zod
// schema), and the introduction documents every error code, scope and event type.

let document: any;

beforeAll(async () => {
  document = (await api("/v1/openapi.json")).body;
});

describe("the OpenAPI document's examples and guide", () => {
  it("gives every operation an example answer that its response schema accepts", () => {
    for (const route of routes) {
      const status = String(route.response.status ?? 200);
      const example =
        document.paths[route.path][route.method].responses[status].content[route.response.mediaType ?? "application/json"].example;
      expect(example, `${route.operationId}: no example`).toBeDefined();
      const parsed = route.response.schema.safeParse(example);
      expect(parsed.success, `${route.operationId}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
    }
  });

  it("gives every operation with a body an example request that its body schema accepts", () => {
    for (const route of routes.filter((r) => r.body)) {
      const example = document.paths[route.path][route.method].requestBody.content["application/json"].example;
      expect(example, `${route.operationId}: no example`).toBeDefined();
      const parsed = route.body!.safeParse(example);
      expect(parsed.success, `${route.operationId}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
    }
  });

  it("gives every error code an example answer that its component accepts and the API's envelope too", () => {
    for (const code of Object.keys(ERROR_STATUS) as (keyof typeof ERROR_STATUS)[]) {
      const example = errorExampleOf(code);
      const name = Object.entries(document.components.schemas as Record<string, any>).find(
        ([, schema]) => schema.properties?.error?.properties?.code?.enum?.join() === code,
      )?.[0];
      expect(name, `no component for ${code}`).toBeDefined();
      expect(document.components.schemas[name!].example).toEqual(example);
      const parsed = ErrorEnvelopeSchema.safeParse(example);
      expect(parsed.success, `${code}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
    }
  });

  it("documents the envelope, every error code, every scope and every event type", () => {
    const guide: string = document.info.description;
    expect(guide).toContain('"success": false');
    for (const code of Object.keys(ERROR_STATUS)) expect(guide).toContain(`\`${code}\``);
    for (const scope of Object.keys(SCOPES)) expect(guide).toContain(`\`${scope}\``);
    const types = eventCatalogue(routes).map((event) => event.type);
    for (const type of types) expect(guide).toContain(`\`${type}\``);
    // docs/api.md "changeVersion and events": the catalogue derived from the registry includes the list docs/api.md gives.
    expect(types).toEqual(expect.arrayContaining(["task.deleted", "project.deleted", "milestone.deleted", "personnel.updated"]));
    expect(types).not.toContain("personnel.deleted");
  });
});

// The demo organisation the first `npm run dev` seeds, with the fixed ids the examples name: each
// request example, sent as it is (path parameters, body, an upload's query, nothing else), succeeds;
// a download follows the link its file's read answered (a link lives 15 minutes). This file is the
// only one that seeds it, once per test database (its ids are unique in a database).
describe("each request example, sent as it is to the demo organisation, succeeds", () => {
  let key: string;
  let cookie: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    const db = testDatabase();
    // The demo's webhooks deliver to a real local receiver, as npm run dev's do to its own.
    receiver = await startReceiver("demo");
    const seeded = await seedDemo(
      { db, rooms: roomsAt({ url: inject("realtimeUrl"), secret: inject("realtimeSecret") }) },
      { exampleIds: true, webhookReceiver: new URL(receiver.url).origin },
    );
    expect(seeded.organisation.id).toBe(DEMO_IDS.organisation);
    key = seeded.key.key;
    const owner = await createUser({
      ctx: { db },
      input: { orgId: seeded.organisation.id, email: newEmail("owner"), name: "Demo Owner", role: "owner", userId: DEMO_IDS.owner },
    });
    await seedDemoViews(db);
    await seedDemoFiles(
      db,
      async (file) => expectSuccess(await upload(key, file.path, file.bytes, { name: file.name }), 201).data.id,
      async (started) => expectSuccess(await api(started.path, { key, body: started.body }), 201).data.id,
    );
    const signedIn = await signIn(owner.email, owner.password);
    expect(signedIn.status).toBe(200);
    cookie = cookieOf(signedIn);
  }, 60_000);

  it("sends every operation's example in the document's order: every one answers 2xx", async () => {
    const sent: string[] = [];
    const failures: string[] = [];
    let downloadUrl: string | undefined;
    for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
      for (const [method, operation] of Object.entries(item)) {
        let url = path.replace(/\{(\w+)\}/g, (_, name: string) => {
          const parameter = (operation.parameters ?? []).find((p: { name?: string; in?: string }) => p.in === "path" && p.name === name);
          expect(parameter?.example, `${operation.operationId}: no example for {${name}}`).toBeDefined();
          return encodeURIComponent(parameter.example);
        });
        const body = operation.requestBody?.content?.["application/json"]?.example;
        // An upload's body is the file's bytes, its query what it states of them.
        const file: string | undefined = operation.requestBody?.content?.["application/octet-stream"]?.example;
        const query = new URLSearchParams(
          (operation.parameters ?? []).filter((p: any) => p.in === "query" && p.required).map((p: any) => [p.name, String(p.example)]),
        );
        const schemes = (operation.security ?? []).flatMap((requirement: object) => Object.keys(requirement));
        const options = {
          method: method.toUpperCase() as Method,
          ...(body === undefined ? {} : { body }),
          ...(file === undefined ? {} : { rawBody: file, headers: { "content-type": "application/octet-stream" } }),
        };
        // A download link lives 15 minutes: the one the example's read of that file answered.
        if (operation.operationId === "downloadAttachment") url = downloadUrl!;
        else if (query.size) url = `${url}?${query}`;
        const response = schemes.includes("bearerAuth")
          ? await api(url, { ...options, key })
          : schemes.includes("sessionCookie")
            ? await asPerson(cookie, url, options)
            : await api(url, options);
        if (operation.operationId === "getTaskAttachment") downloadUrl = response.body?.data?.downloadUrl;
        sent.push(`${method.toUpperCase()} ${url}`);
        if (response.status >= 300)
          failures.push(
            `${operation.operationId} ${method.toUpperCase()} ${url} ${JSON.stringify(body)} -> ${response.status} ${response.text.slice(0, 300)}`,
          );
      }
    }
    expect(failures).toEqual([]);
    expect(sent.length).toBe(routes.length);
    // testWebhook's example reached the demo's receiver, and so did its redelivery's.
    await pollUntil(
      async () => receiver.deliveries.filter((d) => d.event.type === "webhook.test").length,
      (tests) => tests >= 2,
      15_000,
    );
  }, 120_000);
});
