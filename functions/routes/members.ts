import { z } from "@hono/zod-openapi";
import * as members from "../../services/members.ts";
import * as links from "../../services/personnel-links.ts";
import { serviceContext } from "../http/context.ts";
import { recordEnvelope, reply, wholeListEnvelope, wholeListReply } from "../http/envelope.ts";
import { defineRoute } from "../http/registry.ts";
import { Uuid } from "../schemas/common.ts";
import { LinkMemberSchema, MemberLinkSchema, MemberSchema, Role } from "../schemas/settings.ts";

// The settings area (docs/people.md), its members: any member may see who is in the organisation,
// and leave it; owners and admins change roles and remove members. A session only.

const UserIdParams = z.object({ userId: Uuid.openapi({ description: "The member's user id (GET /v1/settings/members)." }) });

const tag = "Settings";

export const memberRoutes = [
  defineRoute({
    method: "get",
    path: "/v1/settings/members",
    operationId: "listMembers",
    auth: "session",
    scope: null,
    tag,
    summary: "The organisation's members and their roles (any member may look)",
    response: { schema: wholeListEnvelope(MemberSchema), description: "Members in joining order." },
    verb: members.listMembers,
    async handler(c) {
      return wholeListReply(await members.listMembers({ ctx: serviceContext(c), input: {} }), ["member", "members"]);
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
    method: "put",
    path: "/v1/settings/members/{userId}/personnel",
    operationId: "linkMemberPersonnel",
    auth: "session",
    scope: null,
    tag,
    summary: "Link a member to the personnel record they are, or unlink them (owners and admins)",
    description:
      "A member is at most one person and a person one member: a link over another is refused (409), unlink first with personnelId null. " +
      "The person's change is personnel.updated with changes.userId. A member's tasks are then GET /v1/tasks?assigneeId=me.",
    params: UserIdParams,
    body: LinkMemberSchema,
    errors: ["insufficient_role", "invalid_reference", "conflict"],
    response: { schema: recordEnvelope(MemberLinkSchema), description: "The member and the person they are now (null: none)." },
    verb: links.linkMember,
    async handler(c, { params, body }) {
      const input = { userId: params.userId, personnelId: body.personnelId };
      const { personnelId } = await links.linkMember({ ctx: serviceContext(c), input });
      return reply({ userId: params.userId, personnelId }, personnelId ? "member linked" : "member unlinked");
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
];
