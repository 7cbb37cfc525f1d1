import { describe, expect, it } from "vitest";
import { committed, GENERATED } from "../../client/generated.ts";

// Every generated file (client/generated.ts) is what its generator writes today: a route, a schema,
// a tool group, a kernel list or an entry point changed without `npm run generate` fails here (and
// in CI's `npm run generate -- --check`), naming the file.

describe("the generated files", () => {
  it.each(GENERATED.map((generated) => [generated.file, generated] as const))("%s is current", async (file, { render }) => {
    const current = committed(file);
    expect(current === (await render(current)), `${file} is stale: run \`npm run generate\` and commit it`).toBe(true);
  });
});
