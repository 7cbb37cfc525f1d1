import { Hono } from "hono";
import { createMiddleware } from "hono/factory";
import { connectDatabase } from "../db/client.ts";
import { eventsAfter, roomStartingPoint } from "../db/queries/events.ts";
import type { Bindings } from "./env.ts";
import { UUID_PATTERN } from "./lib/ids.ts";
import { bearerToken, secretsEqual } from "./lib/secrets.ts";

/**
 * Endpoints for the realtime room only, authenticated by the shared REALTIME_SECRET: they are
 * not part of the public API and not in its registry. The room asks where to start when it
 * has no memory, and for the events it missed when a publish arrives after a gap.
 */
export const internal = new Hono<{ Bindings: Bindings }>();

internal.use(
  "*",
  createMiddleware<{ Bindings: Bindings }>(async (c, next) => {
    const secret = c.env.REALTIME_SECRET;
    if (!secret || !secretsEqual(bearerToken(c.req.header("authorization")), secret)) {
      return c.json({ success: false, version: "v1", message: "not found", error: { code: "not_found" } }, 404);
    }
    await next();
  }),
);

internal.get("/rooms/:orgId/start", async (c) => {
  const orgId = c.req.param("orgId");
  if (!UUID_PATTERN.test(orgId)) return c.json({ watermark: 0 });
  const db = connectDatabase({ url: c.env.DATABASE_URL, wsProxy: c.env.DB_WS_PROXY });
  try {
    return c.json({ watermark: await roomStartingPoint(db, orgId) });
  } finally {
    c.executionCtx.waitUntil(db.close());
  }
});

internal.get("/rooms/:orgId/events", async (c) => {
  const orgId = c.req.param("orgId");
  const after = Number(c.req.query("after") ?? "0");
  const limit = Math.min(Number(c.req.query("limit") ?? "500"), 1000);
  if (!UUID_PATTERN.test(orgId) || !Number.isInteger(after) || after < 0 || !Number.isInteger(limit) || limit < 1) {
    return c.json({ events: [] }, 400);
  }
  const db = connectDatabase({ url: c.env.DATABASE_URL, wsProxy: c.env.DB_WS_PROXY });
  try {
    return c.json({ events: await eventsAfter(db, orgId, after, limit) });
  } finally {
    c.executionCtx.waitUntil(db.close());
  }
});
