import type { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { DomainError } from "../../domain/errors.ts";
import type { AppEnv } from "../env.ts";
import { refuse } from "../middleware/refuse.ts";
import { serialised, stamped } from "./envelope.ts";
import { statusOf } from "./errors.ts";
import type { AnyRoute } from "./registry.ts";
import { validationError } from "./validation.ts";

// How a declared route runs once its middleware has let the request through (functions/app.ts
// mounts one per route): its input is validated, its handler called, and the answer stamped with
// the changeVersion the call observed and sent as the declared status.

/** The query as the validators read it: one value as a string, a repeated one as an array. */
function queryOf(c: Context<AppEnv>): Record<string, string | string[]> {
  return Object.fromEntries(Object.entries(c.req.queries()).map(([key, values]) => [key, values.length === 1 ? values[0]! : values]));
}

/** Parses one part of the request with its schema; a failure is refused in the API's own terms. */
async function parsed(
  c: Context<AppEnv>,
  schema: z.ZodType | undefined,
  value: () => unknown,
  target: "param" | "query" | "json",
): Promise<unknown> {
  if (!schema) return undefined;
  const input = value();
  // Synchronous: no schema of the API refines asynchronously, and the async path costs promises per field.
  const result = schema.safeParse(input);
  if (!result.success) await refuse(c, validationError(result.error, input, target));
  return result.data;
}

/** An operation that takes no query parameters refuses any, as a list refuses one it does not know. */
async function noQuery(c: Context<AppEnv>): Promise<undefined> {
  const { url } = c.req;
  const start = url.indexOf("?");
  if (start === -1) return undefined;
  const [name] = new URLSearchParams(url.slice(start + 1)).keys();
  if (name !== undefined)
    await refuse(
      c,
      new DomainError("unknown_field", `${name} is not a query parameter this endpoint takes (it takes none)`, { field: name }),
    );
  return undefined;
}

/**
 * The route's handler, after its input is validated: params, query, then body. A 400 the handler
 * decides before asking the database (a bad cursor or If-Match) still answers 401/403 first.
 */
export function handlerOf(route: AnyRoute) {
  return async (c: Context<AppEnv>) => {
    const input = {
      params: await parsed(c, route.params, () => c.req.param(), "param"),
      query: route.query ? await parsed(c, route.query, () => queryOf(c), "query") : await noQuery(c),
      body: await parsed(c, route.body, () => c.get("body"), "json"),
    };
    try {
      const answer = await route.handler(c, input);
      for (const [name, value] of Object.entries(answer.headers ?? {})) c.header(name, value);
      if ("stream" in answer)
        return c.body(answer.stream, 200, {
          "content-type": answer.headers?.["content-type"] ?? route.response.mediaType ?? "application/x-ndjson",
        });
      const body = serialised(stamped(answer.body as Record<string, unknown>, c.get("changeVersion")));
      return c.body(body, answer.status ?? route.response.status ?? 200, { "content-type": "application/json" });
    } catch (error) {
      if (error instanceof DomainError && statusOf(error) === 400 && c.get("db").queryCount === 0) await refuse(c, error);
      throw error;
    }
  };
}
