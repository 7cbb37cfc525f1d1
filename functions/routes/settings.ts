import { z } from "@hono/zod-openapi";
import { DEFAULT_RATE_LIMIT } from "../../domain/limits.ts";
import { ROLES } from "../../domain/roles.ts";
import { ALL_SCOPES, SCOPES, type Scope } from "../../domain/scopes.ts";
import * as apiKeys from "../../services/api-keys.ts";
import * as invitations from "../../services/invitations.ts";
import * as members from "../../services/members.ts";
import * as sessions from "../../services/sessions.ts";
import { serviceContext } from "../http/context.ts";
import { envelope, recordEnvelope, reply } from "../http/envelope.ts";
import { forgetSessionHolder } from "../middleware/rate-limit.ts";
import { defineRoute } from "../http/registry.ts";
import { Name, Timestamp, Uuid } from "../schemas/common.ts";

// The settings area (docs/people.md): a signed-in person's own session, the organisation's
// members and invitations, and the API keys people create. A session only: an API key is answered
// 401 here and creates nothing, so no key can mint keys. Owners and admins manage; members may
// see who is in the organisation, and leave it.

const tag = "Settings";
const Role = z.enum(ROLES).openapi({
  description: "owner and admin manage the settings area; member reads all but financial entries and changes tasks, risks and issues.",
});
const ScopeName = z.enum(ALL_SCOPES as [Scope, ...Scope[]]);
const Person = z.object({ id: Uuid, name: z.string() });

const listOf = <T extends z.ZodType>(schema: T) => envelope({ count: z.number().int(), data: z.array(schema) });
const listReply = <T>(items: T[], noun: [string, string]) => ({
  body: {
    success: true as const,
    version: "v1" as const,
    message: `${items.length} ${items.length === 1 ? noun[0] : noun[1]}`,
    count: items.length,
    data: items,
  },
});
const emptyEnvelope = envelope({ data: z.null() });

const MeSchema = z
  .object({
    user: z.object({ id: Uuid, name: z.string(), email: z.string() }),
    organisation: z.object({ id: Uuid, name: z.string() }),
    role: Role,
    scopes: z.array(ScopeName).openapi({ description: "The scopes the session holds: those of the role." }),
    organisations: z
      .array(z.object({ id: Uuid, name: z.string(), role: Role }))
      .openapi({ description: "Every organisation the person belongs to." }),
  })
  .openapi("Session");

const MemberSchema = z.object({ userId: Uuid, name: z.string(), email: z.string(), role: Role, joinedAt: Timestamp }).openapi("Member");

const InvitationSchema = z
  .object({ id: Uuid, email: z.string(), role: Role, invitedBy: Person.nullable(), createdAt: Timestamp, expiresAt: Timestamp })
  .openapi("Invitation");

const ApiKeySchema = z
  .object({
    id: Uuid,
    name: z.string().openapi({ description: "The application the key is for.", example: "Warehouse sync" }),
    prefix: z.string().openapi({ description: "The key's first characters, to tell keys apart.", example: "ops_4f9TqL2x" }),
    scopes: z.array(ScopeName).openapi({ description: "As held: a .manage scope brings its .read." }),
    rateLimit: z.number().int(),
    createdBy: Person.nullable().openapi({ description: "Who created it; null for a key made by the CLI." }),
    createdAt: Timestamp,
    lastUsedAt: Timestamp.nullable(),
  })
  .openapi("ApiKey");

const CreatedApiKeySchema = ApiKeySchema.extend({
  key: z.string().openapi({ description: "The key itself: shown this once. Only its hash is stored.", example: "ops_4f9TqL2x..." }),
}).openapi("CreatedApiKey");

const UserIdParams = z.object({ userId: Uuid.openapi({ description: "The member's user id (GET /v1/settings/members)." }) });
const IdParams = z.object({ id: Uuid });

export const settingsRoutes = [
  defineRoute({
    method: "get",
    path: "/v1/settings/session",
    operationId: "getSession",
    auth: "session",
    scope: null,
    tag,
    summary: "Who is signed in: the person, the organisation the session acts for, the role and its scopes",
    response: { schema: recordEnvelope(MeSchema), description: "The session." },
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
    scope: null,
    tag,
    summary: "Act for another organisation the person belongs to",
    body: z.strictObject({ orgId: Uuid }),
    errors: ["not_found"],
    response: { schema: recordEnvelope(MeSchema), description: "The session, now acting for that organisation." },
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
  defineRoute({
    method: "get",
    path: "/v1/settings/members",
    operationId: "listMembers",
    auth: "session",
    scope: null,
    tag,
    summary: "The organisation's members and their roles (any member may look)",
    response: { schema: listOf(MemberSchema), description: "Members in joining order." },
    verb: members.listMembers,
    async handler(c) {
      return listReply(await members.listMembers({ ctx: serviceContext(c), input: {} }), ["member", "members"]);
    },
  }),
  defineRoute({
    method: "patch",
    path: "/v1/settings/members/{userId}",
    operationId: "changeMemberRole",
    auth: "session",
    scope: null,
    tag,
    summary: "Change a member's role (owners and admins; only an owner makes or unmakes an owner)",
    params: UserIdParams,
    body: z.strictObject({ role: Role }),
    errors: ["insufficient_role", "conflict"],
    response: { schema: recordEnvelope(MemberSchema), description: "The member with the new role." },
    verb: members.changeMemberRole,
    async handler(c, { params, body }) {
      return reply(
        await members.changeMemberRole({ ctx: serviceContext(c), input: { userId: params.userId, role: body.role } }),
        "role changed",
      );
    },
  }),
  defineRoute({
    method: "delete",
    path: "/v1/settings/members/{userId}",
    operationId: "removeMember",
    auth: "session",
    scope: null,
    tag,
    summary: "Remove a member, or leave (your own id); the last owner cannot leave",
    params: UserIdParams,
    errors: ["insufficient_role", "conflict"],
    response: { schema: recordEnvelope(MemberSchema), description: "The member as they were." },
    verb: members.removeMember,
    async handler(c, { params }) {
      return reply(await members.removeMember({ ctx: serviceContext(c), input: { userId: params.userId } }), "member removed");
    },
  }),
  defineRoute({
    method: "get",
    path: "/v1/settings/invitations",
    operationId: "listInvitations",
    auth: "session",
    scope: null,
    tag,
    summary: "Open invitations (owners and admins)",
    errors: ["insufficient_role"],
    response: { schema: listOf(InvitationSchema), description: "Invitations neither accepted, revoked nor expired." },
    verb: invitations.listInvitations,
    async handler(c) {
      return listReply(await invitations.listInvitations({ ctx: serviceContext(c), input: {} }), ["invitation", "invitations"]);
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
    description: `The link is valid for ${invitations.INVITATION_DAYS} days and once; the invitee signs up or signs in with that address to accept. opsroom sends no email: copy the link to them.`,
    body: z.strictObject({ email: z.email().max(320), role: Role }),
    errors: ["insufficient_role", "conflict"],
    response: {
      status: 201,
      schema: recordEnvelope(InvitationSchema.extend({ url: z.string().openapi({ description: "The one-time link: shown this once." }) })),
      description: "The invitation and its link.",
    },
    verb: invitations.createInvitation,
    async handler(c, { body }) {
      const { invitation, token } = await invitations.createInvitation({ ctx: serviceContext(c), input: body });
      return reply({ ...invitation, url: `${new URL(c.req.url).origin}/invite#${token}` }, "invitation created");
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
  defineRoute({
    method: "get",
    path: "/v1/settings/api-keys",
    operationId: "listApiKeys",
    auth: "session",
    scope: null,
    tag,
    summary: "The organisation's live API keys (owners and admins); never the keys themselves",
    errors: ["insufficient_role"],
    response: { schema: listOf(ApiKeySchema), description: "Live keys in creation order." },
    verb: apiKeys.listOrganisationKeys,
    async handler(c) {
      return listReply(await apiKeys.listOrganisationKeys({ ctx: serviceContext(c), input: {} }), ["API key", "API keys"]);
    },
  }),
  defineRoute({
    method: "post",
    path: "/v1/settings/api-keys",
    operationId: "createApiKey",
    auth: "session",
    scope: null,
    tag,
    summary: "Create an API key: named, with chosen scopes; the key is in this answer only",
    description: `Scopes: ${ALL_SCOPES.map((scope) => `\`${scope}\` (${SCOPES[scope]})`).join(", ")}. A .manage scope brings its .read.`,
    body: z.strictObject({
      name: Name.openapi({ description: "The application the key is for.", example: "Warehouse sync" }),
      scopes: z.array(ScopeName).min(1).max(ALL_SCOPES.length),
      rateLimit: z
        .number()
        .int()
        .min(1)
        .max(100_000)
        .optional()
        .openapi({ description: `Requests per minute; default ${DEFAULT_RATE_LIMIT}.` }),
    }),
    errors: ["insufficient_role"],
    response: { status: 201, schema: recordEnvelope(CreatedApiKeySchema), description: "The key, shown this once." },
    verb: apiKeys.createOrganisationKey,
    async handler(c, { body }) {
      return reply(
        await apiKeys.createOrganisationKey({ ctx: serviceContext(c), input: body }),
        "API key created: copy it now, it is shown once",
      );
    },
  }),
  defineRoute({
    method: "post",
    path: "/v1/settings/api-keys/{id}/revoke",
    operationId: "revokeApiKey",
    auth: "session",
    scope: null,
    tag,
    summary: "Revoke a key: refused (401) from now on, and its sockets closed",
    params: IdParams,
    errors: ["insufficient_role"],
    response: { schema: emptyEnvelope, description: "Revoked." },
    verb: apiKeys.revokeOrganisationKey,
    async handler(c, { params }) {
      await apiKeys.revokeOrganisationKey({ ctx: serviceContext(c), input: { keyId: params.id } });
      return reply(null, "API key revoked");
    },
  }),
  defineRoute({
    method: "post",
    path: "/v1/settings/api-keys/{id}/replace",
    operationId: "replaceApiKey",
    auth: "session",
    scope: null,
    tag,
    summary: "Replace a key: a new one with the same name, scopes and limit, and the old one revoked, at once",
    params: IdParams,
    errors: ["insufficient_role"],
    response: {
      status: 201,
      schema: recordEnvelope(CreatedApiKeySchema.extend({ replaces: Uuid.openapi({ description: "The revoked key's id." }) })),
      description: "The new key, shown this once.",
    },
    verb: apiKeys.replaceOrganisationKey,
    async handler(c, { params }) {
      return reply(
        await apiKeys.replaceOrganisationKey({ ctx: serviceContext(c), input: { keyId: params.id } }),
        "API key replaced: copy the new one now, it is shown once",
      );
    },
  }),
];
