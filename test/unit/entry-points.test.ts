import type { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { createApp } from "../../functions/app.ts";
import { authRoutes } from "../../functions/auth/routes.ts";
import { ENTRY_POINTS, honoPath, type EntryPart, type EntryPoint } from "../../functions/entry-points.ts";
import { internal } from "../../functions/internal.ts";
import { unsubscribeRoutes } from "../../functions/mail/unsubscribe.ts";
import { oauthRoutes } from "../../functions/oauth/routes.ts";

// The map of the Worker's entry points besides /v1 (functions/entry-points.ts, and from it
// docs/routes.md's "Protocol endpoints") is the truth: each part's router serves exactly its rows,
// and the app mounts every row on its part. A handler added to a router and not to the map, or a
// row no router serves, fails here.

const entries = Object.values(ENTRY_POINTS) as EntryPoint[];
const rowsOf = (part: EntryPart) =>
  entries
    .filter((entry) => entry.part === part)
    .flatMap((entry) => entry.methods.map((method) => `${method} ${honoPath(entry.path)}`))
    .sort();
/** What a router serves: its handlers, not its middleware (`use`, which Hono records as ALL). */
const servedBy = (router: Hono<never> | Hono<any>) =>
  [...new Set(router.routes.filter((route) => route.method !== "ALL").map((route) => `${route.method} ${route.path}`))].sort();

describe("the map of entry points", () => {
  it.each([
    ["oauth", oauthRoutes],
    ["auth", authRoutes],
    ["internal", internal],
    ["mail", unsubscribeRoutes],
  ] as const)("the %s part serves exactly its rows", (part, router) => {
    expect(servedBy(router)).toEqual(rowsOf(part));
  });

  it("the app mounts every row at its path, for each of its methods", () => {
    const mounted = new Set(createApp().routes.map((route) => `${route.method} ${route.path}`));
    for (const entry of entries)
      for (const method of entry.methods) expect(mounted, `${method} ${entry.path}`).toContain(`${method} ${honoPath(entry.path)}`);
  });

  it("no path is both an entry point and a /v1 route", () => {
    for (const entry of entries) expect(entry.path.startsWith("/v1")).toBe(false);
  });
});
