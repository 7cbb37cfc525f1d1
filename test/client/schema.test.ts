import { mkdtempSync, readdirSync, readFileSync, rmSync, type Dirent } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { generateHeyApiClient } from "../../client/hey-api-generate.ts";
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
    expect(file("client/openapi.json") === renderOpenApiJson(), "client/openapi.json is stale: run `npm run client:generate` and commit it").toBe(true);
  });

  it("client/hey-api/ is current (run `npm run client:generate` after changing a route or schema)", async () => {
    const fresh = mkdtempSync(join(tmpdir(), "opsroom-hey-api-"));
    try {
      await generateHeyApiClient(JSON.parse(renderOpenApiJson()), fresh);
      const committed = fileURLToPath(new URL("../../client/hey-api", import.meta.url));
      const files = (dir: string) => (readdirSync(dir, { recursive: true, withFileTypes: true }) as Dirent[]).filter((e) => e.isFile()).map((e) => relative(dir, join(e.parentPath, e.name))).sort();
      expect(files(committed), "client/hey-api has other files than a fresh generation").toEqual(files(fresh));
      for (const name of files(fresh)) expect(readFileSync(join(committed, name), "utf8") === readFileSync(join(fresh, name), "utf8"), `client/hey-api/${name} is stale: run \`npm run client:generate\``).toBe(true);
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  }, 60_000);

  it("docs/integrating.md's typed client is client/example.ts, word for word", () => {
    const guide = file("docs/integrating.md");
    const section = /## A typed client in 15 lines[\s\S]*?```ts\n([\s\S]*?)```/.exec(guide)?.[1];
    expect(section, 'docs/integrating.md has a "A typed client in 15 lines" section with a ts block').toBeDefined();
    expect(section).toBe(file("client/example.ts"));
  });
});
