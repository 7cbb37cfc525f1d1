import { Hono, type Context } from "hono";
import { databaseFor } from "./lib/database.ts";
import { createMiddleware } from "hono/factory";
import type { Database } from "../db/client.ts";
import { eventsAfter, roomStartingPoint } from "../db/queries/events.ts";
import { recordDeliveries, type DeliveryAttempt } from "../db/queries/webhook-deliveries.ts";
import { disableWebhook, webhookTargets } from "../db/queries/webhooks.ts";
import type { Bindings } from "./env.ts";
import { UUID_PATTERN } from "./lib/ids.ts";
import { bearerToken, secretsEqual } from "./lib/secrets.ts";

/**
 * Endpoints for the realtime room only, authenticated by the shared REALTIME_SECRET: they are
 * not part of the public API and not in its registry. The room asks where to start when it has
 * no memory, for the events it missed after a gap, for the webhooks to deliver to, and reports
 * delivery attempts.
 */
type InternalEnv = { Bindings: Bindings };
export const internal = new Hono<InternalEnv>();

const notFound = (c: Context<InternalEnv>) => c.json({ success: false, version: "v1", message: "not found", error: { code: "not_found" } }, 404);

internal.use(
  "/rooms/:orgId/*",
  createMiddleware<InternalEnv>(async (c, next) => {
    const secret = c.env.REALTIME_SECRET;
    if (!secret || !secretsEqual(bearerToken(c.req.header("authorization")), secret)) return notFound(c);
    if (!UUID_PATTERN.test(c.req.param("orgId") ?? "")) return notFound(c);
    await next();
  }),
);

/** Runs `work` with a database handle closed after the response. */
async function withDatabase(c: Context<InternalEnv>, work: (db: Database, orgId: string) => Promise<Response>) {
  const db = databaseFor(c.env);
  try {
    return await work(db, c.req.param("orgId")!);
  } finally {
    c.executionCtx.waitUntil(db.close().catch(() => {}));
  }
}

internal.get("/rooms/:orgId/start", (c) => withDatabase(c, async (db, orgId) => c.json({ watermark: await roomStartingPoint(db, orgId) })));

internal.get("/rooms/:orgId/events", (c) => {
  const after = Number(c.req.query("after") ?? "0");
  const limit = Math.min(Number(c.req.query("limit") ?? "500"), 1000);
  if (!Number.isInteger(after) || after < 0 || !Number.isInteger(limit) || limit < 1) return c.json({ events: [] }, 400);
  return withDatabase(c, async (db, orgId) => c.json({ events: await eventsAfter(db, orgId, after, limit) }));
});

internal.get("/rooms/:orgId/webhooks", (c) => withDatabase(c, async (db, orgId) => c.json({ webhooks: await webhookTargets(db, orgId) })));

internal.post("/rooms/:orgId/deliveries", (c) =>
  withDatabase(c, async (db, orgId) => {
    const { attempts } = await c.req.json<{ attempts: DeliveryAttempt[] }>();
    await recordDeliveries(db, orgId, attempts);
    return c.json({ recorded: attempts.length });
  }),
);

internal.post("/rooms/:orgId/webhooks/:webhookId/disable", (c) =>
  withDatabase(c, async (db, orgId) => {
    const { reason } = await c.req.json<{ reason: string }>();
    await disableWebhook(db, orgId, c.req.param("webhookId"), reason);
    return c.json({ disabled: true });
  }),
);
