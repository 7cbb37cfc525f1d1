import { z } from "@hono/zod-openapi";
import * as sessions from "../../services/sessions.ts";
import { serviceContext } from "../http/context.ts";
import { recordEnvelope, reply } from "../http/envelope.ts";
import { defineRoute } from "../http/registry.ts";
import { forgetSessionHolder } from "../middleware/rate-limit.ts";
import { Uuid } from "../schemas/common.ts";
import { SessionSchema } from "../schemas/settings.ts";

// The settings area (docs/people.md), its session: who is signed in, and which of their
// organisations the session acts for. A session only: an API key is answered 401 here.

const tag = "Settings";

export const sessionRoutes = [
  defineRoute({
    method: "get",
    path: "/v1/settings/session",
    operationId: "getSession",
    auth: "session",
    anyAddress: true,
    scope: null,
    tag,
    summary: "Who is signed in: the person, the organisation the session acts for, the role and its scopes",
    response: { schema: recordEnvelope(SessionSchema), description: "The session." },
    verb: sessions.describeSession,
    async handler(c) {
      return reply(await sessions.describeSession({ ctx: serviceContext(c), input: {} }), "session");
    },
  }),
  defineRoute({
    method: "post",
    path: "/v1/settings/session/organisation",
    operationId: "switchOrganisation",
    auth: "session",
    anyAddress: true,
    scope: null,
    tag,
    summary: "Act for another organisation the person belongs to",
    body: z.strictObject({ orgId: Uuid }),
    errors: ["not_found"],
    response: { schema: recordEnvelope(SessionSchema), description: "The session, now acting for that organisation." },
    verb: sessions.switchOrganisation,
    async handler(c, { body }) {
      const ctx = serviceContext(c);
      const actor = ctx.actor as { sessionToken: string };
      await sessions.switchOrganisation({ ctx, input: { sessionToken: actor.sessionToken, orgId: body.orgId } });
      // Its calls are counted in the organisation it acts for now.
      forgetSessionHolder(actor.sessionToken);
      return reply(await sessions.describeSession({ ctx, input: {} }), "organisation switched");
    },
  }),
];
