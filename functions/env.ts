import type { Database } from "../db/client.ts";
import type { Actor } from "../db/queries/actor.ts";
import type { IdempotencyRequest } from "../db/queries/idempotency.ts";
import type { Scope } from "./lib/scopes.ts";
import type { AnyRoute } from "./registry.ts";
import type { RateLimiter } from "./rate-limit/limiter.ts";

/** Worker bindings (wrangler.toml [vars] and secrets). */
export interface Bindings {
  /** Postgres connection string; a Neon one in production (a secret). */
  DATABASE_URL: string;
  /** host:port of the local WebSocket-to-TCP bridge; unset in production. */
  DB_WS_PROXY?: string;
  /** Base URL of the PartyKit realtime server. */
  REALTIME_URL?: string;
  /** Shared secret the Worker publishes to the realtime room with (a secret). */
  REALTIME_SECRET?: string;
  /** "true" lets webhooks point at this machine over plain http (development and tests only). */
  WEBHOOKS_ALLOW_LOOPBACK?: string;
  /** One RateLimiter Durable Object per API key. */
  RATE_LIMITER: DurableObjectNamespace<RateLimiter>;
}

export interface Variables {
  requestId: string;
  db: Database;
  /** The caller, known by its key's hash; set by the bearer middleware on every keyed route. */
  actor: Actor;
  /** The scope the matched route needs (null: any valid key). */
  scope: Scope | null;
  /** The parsed JSON body, kept so validation errors can tell a missing field from an invalid one. */
  body: unknown;
  /** A POST's Idempotency-Key with the fingerprint of its request; unset without the header. */
  idempotency?: IdempotencyRequest;
  /** Every operation of the API, from the route registry (GET /v1 lists them). */
  operations: Operation[];
  /** The route registry itself (the OpenAPI document is generated from it). */
  routes: AnyRoute[];
}

export interface Operation {
  method: string;
  path: string;
  scope: Scope | null;
  summary: string;
}

export interface AppEnv {
  Bindings: Bindings;
  Variables: Variables;
}
