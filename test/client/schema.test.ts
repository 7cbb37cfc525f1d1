import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { renderConsoleForms } from "../../client/console-forms.ts";
import { renderClientSchema, renderOpenApiJson } from "../../client/render-schema.ts";

// The typed client (client/): its committed types match the route registry, and the typed client in
// docs/integrating.md is client/example.ts, which tsc checks against those types.

const file = (path: string) => readFileSync(fileURLToPath(new URL(`../../${path}`, import.meta.url)), "utf8");

describe("the typed client", () => {
  it("client/schema.d.ts is current (run `npm run client:generate` after changing a route or schema)", async () => {
    const current = await renderClientSchema();
    expect(file("client/schema.d.ts") === current, "client/schema.d.ts is stale: run `npm run client:generate` and commit it").toBe(true);
  });

  it("client/openapi.json is current (run `npm run client:generate` after changing a route or schema)", () => {
    expect(
      file("client/openapi.json") === renderOpenApiJson(),
      "client/openapi.json is stale: run `npm run client:generate` and commit it",
    ).toBe(true);
  });

  it("console/js/lib/forms.generated.js is current: the console's forms are the API's request schemas", () => {
    expect(
      file("console/js/lib/forms.generated.js") === renderConsoleForms(file("client/openapi.json")),
      "console/js/lib/forms.generated.js is stale: run `npm run client:generate` and commit it",
    ).toBe(true);
  });

  it("docs/integrating.md's typed client is client/example.ts, word for word", () => {
    const guide = file("docs/integrating.md");
    const section = /## A typed client in 15 lines[\s\S]*?```ts\n([\s\S]*?)```/.exec(guide)?.[1];
    expect(section, 'docs/integrating.md has a "A typed client in 15 lines" section with a ts block').toBeDefined();
    expect(section).toBe(file("client/example.ts"));
  });
});
