import { z } from "@hono/zod-openapi";
import { ROLES } from "../../domain/roles.ts";
import { ALL_SCOPES, type Scope } from "../../domain/scopes.ts";
import { Timestamp, Uuid } from "./common.ts";

// The wire shapes of the settings area (docs/people.md): the session, members, invitations and API
// keys, answered by functions/routes/session.ts, members.ts, invitations.ts and api-keys.ts.

export const Role = z.enum(ROLES).openapi({
  description: "owner and admin manage the settings area; member reads all but financial entries and changes tasks, risks and issues.",
});
export const ScopeName = z.enum(ALL_SCOPES as [Scope, ...Scope[]]);
const Person = z.object({ id: Uuid, name: z.string() });

export const SessionSchema = z
  .object({
    user: z.object({
      id: Uuid,
      name: z.string(),
      email: z.string(),
      emailVerified: z.boolean().openapi({ description: "The address is confirmed (the link mailed at sign-up, or later, was followed)." }),
    }),
    organisation: z.object({
      id: Uuid,
      name: z.string(),
      requireVerifiedEmail: z.boolean().openapi({
        description:
          "The organisation requires a confirmed address: while `user.emailVerified` is false, every other call for it is 403 email_unverified.",
      }),
    }),
    role: Role,
    scopes: z.array(ScopeName).openapi({ description: "The scopes the session holds: those of the role." }),
    organisations: z
      .array(z.object({ id: Uuid, name: z.string(), role: Role }))
      .openapi({ description: "Every organisation the person belongs to." }),
  })
  .openapi("Session");

const LinkedPersonnelId = Uuid.nullable().openapi({
  description: "The personnel record (who tasks are assigned to) the member is, or null: PUT /v1/settings/members/{userId}/personnel.",
});

export const MemberSchema = z
  .object({ userId: Uuid, name: z.string(), email: z.string(), role: Role, joinedAt: Timestamp, personnelId: LinkedPersonnelId })
  .openapi("Member");

/** PUT /v1/settings/members/{userId}/personnel: the person the member is, or null to unlink. */
export const MemberLinkSchema = z.object({ userId: Uuid, personnelId: LinkedPersonnelId }).openapi("MemberLink");
export const LinkMemberSchema = z.strictObject({ personnelId: LinkedPersonnelId }).openapi("LinkMember");

export const InvitationSchema = z
  .object({ id: Uuid, email: z.string(), role: Role, invitedBy: Person.nullable(), createdAt: Timestamp, expiresAt: Timestamp })
  .openapi("Invitation");

export const ApiKeySchema = z
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

export const CreatedApiKeySchema = ApiKeySchema.extend({
  key: z.string().openapi({ description: "The key itself: shown this once. Only its hash is stored.", example: "ops_4f9TqL2x..." }),
}).openapi("CreatedApiKey");
