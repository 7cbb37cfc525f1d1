import { replaysIdempotencyKey } from "../http/headers.ts";
import type { AnyRoute } from "../http/registry.ts";
import { MAX_BODY_BYTES } from "../middleware/json-body.ts";
import type { RouteModule } from "./index.ts";

/**
 * What the app mounts a route by before its module is loaded (functions/app.ts): its method and
 * path, the module declaring it, and what its middleware needs: the scope, the credentials it
 * takes, whether a POST replays an Idempotency-Key, and the body it reads. routes/manifest.ts
 * holds one per route, generated from the registry by mountOf.
 */
export interface RouteMount {
  module: RouteModule;
  method: AnyRoute["method"];
  path: AnyRoute["path"];
  operationId: string;
  scope: AnyRoute["scope"];
  auth?: "session";
  /** The largest JSON body it reads, in bytes; null: it takes none. */
  bodyLimit: number | null;
  /** A POST that replays a repeated Idempotency-Key (http/headers.ts); any other POST refuses one. */
  replaysIdempotencyKey: boolean;
}

export function mountOf(route: AnyRoute, module: RouteModule): RouteMount {
  return {
    module,
    method: route.method,
    path: route.path,
    operationId: route.operationId,
    scope: route.scope,
    ...(route.auth ? { auth: route.auth } : {}),
    bodyLimit: route.body ? (route.bodyLimit ?? MAX_BODY_BYTES) : null,
    replaysIdempotencyKey: replaysIdempotencyKey(route),
  };
}
