import { createMiddleware } from "hono/factory";
import { DomainError } from "../../domain/errors.ts";
import { callerRefusals } from "../../services/refusals.ts";
import { isSameOriginWrite, sessionTokenOf } from "../auth/session-cookie.ts";
import { settingsOf, type AppEnv } from "../env.ts";
import { auditRequestOf } from "../http/context.ts";
import { executionContextOf } from "../http/lazy-part.ts";
import { actorOfBearer, audienceOf, transportOf } from "./bearer.ts";

/**
 * Who is calling a /v1 route, without a database round trip: an API key (Authorization: Bearer)
 * or a person signed in (the signed session cookie). The key or session is then checked inside
 * the call's own statement.
 *
 * - `keysOrSession` (every /v1 route but the settings area): a key when the header is sent, else
 *   the session; the console works with the session, integrations with keys.
 * - `sessionOnly` (/v1/settings/*): a signed-in person only. A key is refused with 401 before
 *   anything is read, so no key can ever mint, revoke or replace keys, or manage members.
 *
 * A write with the session cookie must come from a page of this origin (cross_site_request).
 */
function credentials(sessionOnly: boolean) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const header = c.req.header("authorization");
    if (header && !sessionOnly) {
      const transport = transportOf(executionContextOf(c));
      const actor = actorOfBearer(header, audienceOf(transport, settingsOf(c.env).publicOrigin));
      // A call of the MCP server's carries the MCP request: the day's first records the MCP session.
      c.set("actor", transport.kind === "mcp" ? { ...actor, mcp: auditRequestOf(c) } : actor);
      return next();
    }
    if (header)
      throw new DomainError("unauthorized", "the settings area accepts a signed-in person only, never an API key: sign in at /sign-in");
    const auth = settingsOf(c.env).auth;
    const token = auth ? await sessionTokenOf(c, auth.secret) : null;
    if (!token) {
      throw new DomainError(
        "unauthorized",
        sessionOnly
          ? "sign in first: the settings area needs a signed-in person"
          : "send your API key as Authorization: Bearer <key>, or sign in",
      );
    }
    if (!isSameOriginWrite(c)) throw callerRefusals.crossSite();
    c.set("actor", { sessionToken: token });
    return next();
  });
}

export const keysOrSession = credentials(false);
export const sessionOnly = credentials(true);
