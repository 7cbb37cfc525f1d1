import { z } from "@hono/zod-openapi";
import * as invitations from "../../services/invitations.ts";
import { settingsOf } from "../env.ts";
import { serviceContext } from "../http/context.ts";
import { emptyEnvelope, recordEnvelope, reply, wholeListEnvelope, wholeListReply } from "../http/envelope.ts";
import { defineRoute } from "../http/registry.ts";
import { Uuid } from "../schemas/common.ts";
import { InvitationSchema, Role } from "../schemas/settings.ts";

// The settings area (docs/people.md), its invitations: owners and admins invite an address with a
// role; the one-time link is mailed to the address and shown to them too. A session only.

const IdParams = z.object({ id: Uuid });

const tag = "Settings";

export const invitationRoutes = [
  defineRoute({
    method: "get",
    path: "/v1/settings/invitations",
    operationId: "listInvitations",
    auth: "session",
    scope: null,
    tag,
    summary: "Open invitations (owners and admins)",
    errors: ["insufficient_role"],
    response: { schema: wholeListEnvelope(InvitationSchema), description: "Invitations neither accepted, revoked nor expired." },
    verb: invitations.listInvitations,
    async handler(c) {
      return wholeListReply(await invitations.listInvitations({ ctx: serviceContext(c), input: {} }), ["invitation", "invitations"]);
    },
  }),
  defineRoute({
    method: "post",
    path: "/v1/settings/invitations",
    operationId: "createInvitation",
    auth: "session",
    scope: null,
    tag,
    summary: "Invite an address with a role; the answer's link is shown this once",
    description: `The link is valid for ${invitations.INVITATION_DAYS} days and once; the invitee signs up or signs in with that address to accept. The link is mailed to the address (docs/mail.md) and shown here too, this once.`,
    body: z.strictObject({ email: z.email().max(320), role: Role }),
    errors: ["insufficient_role", "conflict"],
    response: {
      status: 201,
      schema: recordEnvelope(InvitationSchema.extend({ url: z.string().openapi({ description: "The one-time link: shown this once." }) })),
      description: "The invitation and its link.",
    },
    verb: invitations.createInvitation,
    async handler(c, { body }) {
      // The link is on the public origin, never the request's Host (a forged Host would mail a link elsewhere).
      const input = { ...body, publicOrigin: settingsOf(c.env).publicOrigin };
      const { invitation, url } = await invitations.createInvitation({ ctx: serviceContext(c), input });
      return reply({ ...invitation, url }, "invitation created");
    },
  }),
  defineRoute({
    method: "delete",
    path: "/v1/settings/invitations/{id}",
    operationId: "revokeInvitation",
    auth: "session",
    scope: null,
    tag,
    summary: "Revoke an open invitation: its link stops working",
    params: IdParams,
    errors: ["insufficient_role"],
    response: { schema: emptyEnvelope, description: "Revoked." },
    verb: invitations.revokeInvitation,
    async handler(c, { params }) {
      await invitations.revokeInvitation({ ctx: serviceContext(c), input: { invitationId: params.id } });
      return reply(null, "invitation revoked");
    },
  }),
];
