import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { renderClientSchema } from "../../client/render-schema.ts";

// The typed client (client/): its committed types match the route registry, and the README's
// "A client in 15 lines" is client/example.ts, which tsc checks against those types.

const file = (path: string) => readFileSync(fileURLToPath(new URL(`../../${path}`, import.meta.url)), "utf8");

describe("the typed client", () => {
  it("client/schema.d.ts is current (run `npm run client:generate` after changing a route or schema)", async () => {
    const current = await renderClientSchema();
    expect(file("client/schema.d.ts") === current, "client/schema.d.ts is stale: run `npm run client:generate` and commit it").toBe(true);
  });

  it("the README's client section is client/example.ts, word for word", () => {
    const readme = file("README.md");
    const section = /## A client in 15 lines[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(section, 'README.md has a "A client in 15 lines" section with a ts block').toBeDefined();
    expect(section).toBe(file("client/example.ts"));
  });
});
