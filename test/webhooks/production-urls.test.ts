import { randomInt } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectNoTrace, snapshot } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { startProductionWorker, type ProductionWorker } from "../helpers/production-worker.ts";

// Webhook URLs reach only the public internet. The harness's Worker allows local receivers
// (WEBHOOKS_ALLOW_LOOPBACK=true, for the delivery tests), so this file starts a second Worker as
// production runs it (test/helpers/production-worker.ts: wrangler.toml's production settings,
// without the flag, at an https origin), on the same database, and sends it URLs aimed at every
// special-purpose range (loopback, private, link-local, unique-local, multicast, broadcast,
// carrier-grade NAT, benchmarking, IETF assignments, IPv4-mapped and -compatible, NAT64, 6to4,
// Teredo, site-local, documentation and reserved), in every spelling WHATWG URL accepts, plus
// localhost names. Each is 400 invalid_field naming url, on create and on change, and leaves no
// trace. The ranges are written out here, independent of the code under test.

let production: ProductionWorker;
let tenant: Tenant;
let webhookId: string;

const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : randomInt(2 ** 31);
const RUNS = 150;

beforeAll(async () => {
  production = await startProductionWorker();
  tenant = await createTenant({ rateLimit: 1_000_000 });
  const created = await call("POST", "/v1/webhooks", { url: "https://hooks.example.com/opsroom" });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  webhookId = created.body.data.id;
}, 120_000);

afterAll(async () => {
  await production?.dispose();
}, 60_000);

async function call(method: "POST" | "PATCH", path: string, body: unknown) {
  const response = await fetch(new URL(path, production.url), {
    method,
    headers: { authorization: `Bearer ${tenant.key}`, "content-type": "application/json", "cf-connecting-ip": "2001:db8:1::1" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

/** Creates and changes with `url` on the production Worker: both refused, naming url, no trace. */
async function expectRefusedEverywhere(url: string) {
  const before = await snapshot(tenant.org.id);
  for (const [method, path] of [
    ["POST", "/v1/webhooks"],
    ["PATCH", `/v1/webhooks/${webhookId}`],
  ] as const) {
    const answer = await call(method, path, { url });
    expect(answer.status, `${method} ${url}: ${JSON.stringify(answer.body)}`).toBe(400);
    expect(answer.body.error, `${method} ${url}`).toMatchObject({ code: "invalid_field", field: "url" });
  }
  expectNoTrace(before, await snapshot(tenant.org.id));
}

// ---- Special-purpose ranges, as CIDR blocks ---------------------------------------------------

const V4: Array<[string, string, number]> = [
  ["unspecified", "0.0.0.0", 8],
  ["private", "10.0.0.0", 8],
  ["carrier-grade NAT", "100.64.0.0", 10],
  ["loopback", "127.0.0.0", 8],
  ["link-local", "169.254.0.0", 16],
  ["private", "172.16.0.0", 12],
  ["IETF protocol assignments", "192.0.0.0", 24],
  ["documentation", "192.0.2.0", 24],
  ["private", "192.168.0.0", 16],
  ["benchmarking", "198.18.0.0", 15],
  ["documentation", "198.51.100.0", 24],
  ["documentation", "203.0.113.0", 24],
  ["multicast", "224.0.0.0", 4],
  ["reserved", "240.0.0.0", 4],
  ["broadcast", "255.255.255.255", 32],
];

const V6: Array<[string, string, number]> = [
  ["unspecified", "::", 128],
  ["loopback", "::1", 128],
  ["IPv4-compatible", "::", 96],
  ["IPv4-mapped", "::ffff:0:0", 96],
  ["NAT64", "64:ff9b::", 96],
  ["discard", "100::", 64],
  ["Teredo", "2001::", 32],
  ["benchmarking", "2001:2::", 48],
  ["documentation", "2001:db8::", 32],
  ["6to4", "2002::", 16],
  ["unique-local", "fc00::", 7],
  ["link-local", "fe80::", 10],
  ["site-local", "fec0::", 10],
  ["multicast", "ff00::", 8],
];

const v4ToInt = (dotted: string) => dotted.split(".").reduce((n, part) => n * 256 + Number(part), 0);
const intToV4 = (n: number) => [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join(".");

function v6ToBig(text: string): bigint {
  const [head, tail = ""] = text.split("::");
  const parts = (s: string) => (s ? s.split(":") : []);
  const groups = text.includes("::")
    ? [...parts(head!), ...Array(8 - parts(head!).length - parts(tail).length).fill("0"), ...parts(tail)]
    : parts(text);
  return groups.reduce((n, group) => (n << 16n) | BigInt(parseInt(group, 16)), 0n);
}
const bigToV6 = (n: bigint) => Array.from({ length: 8 }, (_, i) => ((n >> BigInt(16 * (7 - i))) & 0xffffn).toString(16)).join(":");

/** Every spelling of an IPv4 address that a URL parser turns back into it. */
function v4Spellings(n: number): fc.Arbitrary<string> {
  const dotted = intToV4(n);
  const [a, b, c, d] = dotted.split(".").map(Number) as [number, number, number, number];
  return fc.constantFrom(
    dotted,
    String(n),
    `0x${n.toString(16)}`,
    [a, b, c, d].map((x) => `0x${x.toString(16)}`).join("."),
    [a, b, c, d].map((x) => `0${x.toString(8)}`).join("."),
    `${a}.${b}.${c * 256 + d}`,
    `${a}.${b * 65536 + c * 256 + d}`,
    `${dotted}.`,
    `[::ffff:${dotted}]`,
  );
}

const inV4 = ([, base, bits]: [string, string, number]) =>
  fc.integer({ min: 0, max: 2 ** (32 - bits) - 1 }).map((host) => v4ToInt(base) + host);

const inV6 = ([, base, bits]: [string, string, number]) =>
  fc.bigInt({ min: 0n, max: (1n << BigInt(128 - bits)) - 1n }).map((host) => v6ToBig(base) + host);

const specialUrl = fc
  .oneof(
    fc.constantFrom(...V4).chain((range) =>
      inV4(range)
        .chain(v4Spellings)
        .map((host) => ({ range: range[0], host })),
    ),
    fc.constantFrom(...V6).chain((range) => inV6(range).map((n) => ({ range: range[0], host: `[${bigToV6(n)}]` }))),
  )
  .chain(({ range, host }) =>
    fc.record({
      range: fc.constant(range),
      url: fc
        .constantFrom("https", "http")
        .chain((scheme) => fc.constantFrom("", ":443", ":8443").map((port) => `${scheme}://${host}${port}/hooks/opsroom`)),
    }),
  );

describe(`webhook URLs on a Worker as production runs it (seed ${SEED})`, () => {
  it("localhost by every name: 400 invalid_field url, nothing written", async () => {
    for (const host of ["localhost", "localhost.", "LOCALHOST", "api.localhost", "api.localhost.", "a.b.localhost"]) {
      for (const scheme of ["https", "http"]) await expectRefusedEverywhere(`${scheme}://${host}:8443/hooks`);
    }
  });

  it("http to a public host, credentials in the URL, other schemes: 400 invalid_field url", async () => {
    for (const url of [
      "http://hooks.example.com/x",
      "https://user:secret@hooks.example.com/x",
      "ftp://hooks.example.com/x",
      "file:///etc/passwd",
    ]) {
      await expectRefusedEverywhere(url);
    }
  });

  it("an address in any special-purpose range, in any spelling: 400 invalid_field url, nothing written", async () => {
    console.log(
      `[production-urls] seed=${SEED} runs=${RUNS}: FC_SEED=${SEED} npx vitest run test/webhooks/production-urls.test.ts replays it`,
    );
    await fc.assert(
      fc.asyncProperty(specialUrl, async ({ url }) => expectRefusedEverywhere(url)),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  }, 180_000);

  it("a public address or name is taken, on create and on change", async () => {
    for (const url of ["https://8.8.8.8/hooks", "https://[2606:4700:4700::1111]/hooks", "https://hooks.example.com:8443/x"]) {
      const createdHook = await call("POST", "/v1/webhooks", { url });
      expect(createdHook.status, JSON.stringify(createdHook.body)).toBe(201);
      const changed = await call("PATCH", `/v1/webhooks/${webhookId}`, { url });
      expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    }
  });
});
