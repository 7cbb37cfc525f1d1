import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { SCALAR_BUNDLE_PATH } from "../../functions/openapi/docs-page.ts";
import { api, workerUrl } from "../helpers/api.ts";

// GET /docs (the API reference) and GET / (the live console): pages for people, served by the
// Worker without a key, and complete offline: nothing they load comes from another origin.
// test/console/console.test.ts renders both in a browser.

const get = (path: string) => fetch(new URL(path, workerUrl()));

describe("GET /docs", () => {
  it("answers an HTML page, without a key, that renders GET /v1/openapi.json with the bundled Scalar", async () => {
    const response = await get("/docs");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toContain(`<script src="${SCALAR_BUNDLE_PATH}"></script>`);
    expect(html).toContain('"url": "/v1/openapi.json"');
    expect(html, "nothing from a CDN: the page must work offline").not.toMatch(/https?:\/\//);
  });

  it("carries a Content-Security-Policy: scripts from this origin and its own start-up script (by hash), nothing inline else", async () => {
    const response = await get("/docs");
    const html = await response.text();
    const policy = response.headers.get("content-security-policy") ?? "";
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("connect-src 'self'");
    expect(policy).toContain("frame-ancestors 'none'");
    const scripts = /script-src ([^;]*)/.exec(policy)?.[1]?.split(" ") ?? [];
    expect(scripts).not.toContain("'unsafe-inline'");
    expect(scripts).not.toContain("'unsafe-eval'");
    // The one inline script is allowed by its hash, and only it.
    const inline = [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    expect(inline).toHaveLength(1);
    const hash = `'sha256-${createHash("sha256").update(inline[0]!).digest("base64")}'`;
    expect(scripts).toEqual(["'self'", hash]);
  });

  it("serves the Scalar bundle from the Worker's static assets", async () => {
    const response = await get(SCALAR_BUNDLE_PATH);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/javascript/);
    expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(1_000_000);
  });

  it("is not an API operation: absent from GET /v1's operations", async () => {
    const { body } = await api("/v1/openapi.json");
    expect(Object.keys(body.paths)).not.toContain("/docs");
  });
});

describe("GET / (the console)", () => {
  it("answers the console page with a strict Content-Security-Policy", async () => {
    const response = await get("/");
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("<title>opsroom console</title>");
    const policy = response.headers.get("content-security-policy") ?? "";
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("connect-src 'self' ws: wss:");
  });

  it("does not serve the console's type-checking config", async () => {
    const response = await get("/tsconfig.json");
    expect(response.headers.get("content-type") ?? "").not.toMatch(/^text\/html/);
    expect(await response.text()).not.toContain("checkJs");
  });
});
