import { Hono, type Context, type Handler } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppEnv, Variables } from "../env.ts";
import { builtOnce } from "./built-once.ts";
import { answerError, noEndpoint } from "./errors.ts";

// A part of the app that only some requests need (the room's endpoints, sign-in, OAuth), loaded
// when a request first reaches one of its paths rather than when the isolate starts. The part is
// its own Hono app; the request is handed to it whole, and it sees and sets the request's
// variables (its id, its database handle, the caller) as if it were mounted in the app itself.

const outer = new WeakMap<Request, Context<AppEnv>>();

/** The part's variables are the app's: copied in when it starts, and back when it has answered. */
const sharedVariables = createMiddleware<AppEnv>(async (c, next) => {
  const app = outer.get(c.req.raw);
  copy(app?.var ?? {}, c);
  await next();
  // eslint-disable-next-line no-restricted-syntax -- every variable, once each way per request to a part
  if (app) copy(c.var, app);
});

const copy = (from: object, to: Context<AppEnv>) => {
  for (const [name, value] of Object.entries(from)) to.set(name as keyof Variables, value as never);
};

/** The handler of the paths of `part`, which `load` imports with `prefix` before each of them. */
export function lazyPart(prefix: string, load: () => Promise<Hono<AppEnv>>): Handler<AppEnv> {
  const part = builtOnce(async () => {
    const app = new Hono<AppEnv>().use("*", sharedVariables).route(prefix, await load());
    app.notFound(noEndpoint);
    app.onError(answerError);
    return app;
  });
  return async (c) => {
    const app = await part();
    outer.set(c.req.raw, c);
    return app.fetch(c.req.raw, c.env, executionContextOf(c));
  };
}

/** The request's ExecutionContext; none when the app is called without one (Node tests). */
export function executionContextOf(c: Context<AppEnv>): ExecutionContext | undefined {
  try {
    return c.executionCtx as ExecutionContext;
  } catch {
    return undefined;
  }
}
