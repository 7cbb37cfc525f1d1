import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The typed client (client/): its committed types match the route registry, and the typed client in
// docs/integrating.md is client/example.ts, which tsc checks against those types.

const file = (path: string) => readFileSync(fileURLToPath(new URL(`../../${path}`, import.meta.url)), "utf8");

describe("the typed client", () => {
  it("docs/integrating.md's typed client is client/example.ts, word for word", () => {
    const guide = file("docs/integrating.md");
    const section = /## A typed client in 15 lines[\s\S]*?```ts\n([\s\S]*?)```/.exec(guide)?.[1];
    expect(section, 'docs/integrating.md has a "A typed client in 15 lines" section with a ts block').toBeDefined();
    expect(section).toBe(file("client/example.ts"));
  });
});
