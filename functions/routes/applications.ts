import { z } from "@hono/zod-openapi";
import { DEFAULT_SECRET_OVERLAP_SECONDS } from "../../domain/oauth.ts";
import * as applications from "../../services/applications.ts";
import { serviceContext } from "../http/context.ts";
import { emptyEnvelope, recordEnvelope, reply, wholeListEnvelope, wholeListReply } from "../http/envelope.ts";
import { defineRoute } from "../http/registry.ts";
import {
  ApplicationSchema,
  ApplicationSettingsSchema,
  CreateApplicationSchema,
  CreatedApplicationSchema,
  InstallationSchema,
  RotateClientSecretSchema,
  RotatedClientSecretSchema,
  UpdateApplicationSchema,
} from "../schemas/applications.ts";
import { Uuid } from "../schemas/common.ts";

// The settings area's OAuth applications (docs/apps.md): owners and admins register their
// organisation's applications, and see and uninstall the applications installed in it. A session
// only, as the rest of the settings area: no key and no application manages applications.

const IdParams = z.object({ id: Uuid });
const tag = "Applications";
const common = { auth: "session" as const, scope: null, tag, errors: ["insufficient_role" as const] };

export const applicationRoutes = [
  defineRoute({
    ...common,
    method: "get",
    path: "/v1/settings/applications",
    operationId: "listApplications",
    summary: "The OAuth applications the organisation registered (owners and admins)",
    response: { schema: wholeListEnvelope(ApplicationSchema), description: "Applications in creation order." },
    verb: applications.listApplications,
    async handler(c) {
      return wholeListReply(await applications.listApplications({ ctx: serviceContext(c), input: {} }), ["application", "applications"]);
    },
  }),
  defineRoute({
    ...common,
    method: "post",
    path: "/v1/settings/applications",
    operationId: "createApplication",
    summary: "Register an OAuth application; its client secret is in this answer only",
    body: CreateApplicationSchema,
    errors: ["insufficient_role", "invalid_field"],
    response: { status: 201, schema: recordEnvelope(CreatedApplicationSchema), description: "The application and its secret." },
    verb: applications.createApplication,
    async handler(c, { body }) {
      return reply(
        await applications.createApplication({ ctx: serviceContext(c), input: body }),
        "application registered: copy the client secret now, it is shown once",
      );
    },
  }),
  defineRoute({
    ...common,
    method: "get",
    path: "/v1/settings/applications/{id}",
    operationId: "getApplication",
    summary: "One of the organisation's applications",
    params: IdParams,
    response: { schema: recordEnvelope(ApplicationSchema), description: "The application." },
    verb: applications.getApplication,
    async handler(c, { params }) {
      return reply(await applications.getApplication({ ctx: serviceContext(c), input: params }), "application");
    },
  }),
  defineRoute({
    ...common,
    method: "patch",
    path: "/v1/settings/applications/{id}",
    operationId: "updateApplication",
    summary: "Change an application's name, redirect URIs or scopes (fewer scopes narrow every grant at once)",
    params: IdParams,
    body: UpdateApplicationSchema,
    errors: ["insufficient_role", "invalid_field"],
    response: { schema: recordEnvelope(ApplicationSchema), description: "The application as changed." },
    verb: applications.updateApplication,
    async handler(c, { params, body }) {
      return reply(
        await applications.updateApplication({ ctx: serviceContext(c), input: { ...body, id: params.id } }),
        "application changed",
      );
    },
  }),
  defineRoute({
    ...common,
    method: "delete",
    path: "/v1/settings/applications/{id}",
    operationId: "deleteApplication",
    summary: "Delete an application: uninstalled everywhere, every token refused at once",
    params: IdParams,
    response: { schema: recordEnvelope(ApplicationSchema), description: "The application as it was." },
    verb: applications.deleteApplication,
    async handler(c, { params }) {
      return reply(await applications.deleteApplication({ ctx: serviceContext(c), input: params }), "application deleted");
    },
  }),
  defineRoute({
    ...common,
    method: "post",
    path: "/v1/settings/applications/{id}/secret",
    operationId: "rotateClientSecret",
    summary: "A new client secret, shown once; the old one keeps working for the overlap chosen",
    params: IdParams,
    body: RotateClientSecretSchema,
    errors: ["insufficient_role", "conflict"],
    response: { schema: recordEnvelope(RotatedClientSecretSchema), description: "The new secret." },
    verb: applications.rotateSecret,
    async handler(c, { params, body }) {
      const input = { id: params.id, overlapSeconds: body.overlapSeconds ?? DEFAULT_SECRET_OVERLAP_SECONDS };
      return reply(await applications.rotateSecret({ ctx: serviceContext(c), input }), "secret rotated: copy it now, it is shown once");
    },
  }),
  defineRoute({
    ...common,
    method: "get",
    path: "/v1/settings/installations",
    operationId: "listInstallations",
    summary: "The applications installed in the organisation: who installed them, their scopes and last use",
    response: { schema: wholeListEnvelope(InstallationSchema), description: "Installations in installing order." },
    verb: applications.listInstallations,
    async handler(c) {
      return wholeListReply(await applications.listInstallations({ ctx: serviceContext(c), input: {} }), ["installation", "installations"]);
    },
  }),
  defineRoute({
    ...common,
    method: "delete",
    path: "/v1/settings/installations/{id}",
    operationId: "uninstallApplication",
    summary: "Uninstall an application: its tokens refused at once, its sockets closed and its webhooks stopped",
    params: IdParams,
    response: { schema: emptyEnvelope, description: "Uninstalled." },
    verb: applications.uninstall,
    async handler(c, { params }) {
      await applications.uninstall({ ctx: serviceContext(c), input: params });
      return reply(null, "application uninstalled");
    },
  }),
  defineRoute({
    ...common,
    method: "get",
    path: "/v1/settings/organisation",
    operationId: "getApplicationSettings",
    summary: "The organisation's settings: dynamically registered applications, confirmed addresses",
    response: { schema: recordEnvelope(ApplicationSettingsSchema), description: "The settings." },
    verb: applications.organisationSettings,
    async handler(c) {
      return reply(await applications.organisationSettings({ ctx: serviceContext(c), input: {} }), "organisation settings");
    },
  }),
  defineRoute({
    ...common,
    method: "patch",
    path: "/v1/settings/organisation",
    operationId: "changeApplicationSettings",
    summary: "Allow dynamically registered applications, or require confirmed addresses, or not (owners only)",
    body: ApplicationSettingsSchema.partial().strict(),
    response: { schema: recordEnvelope(ApplicationSettingsSchema), description: "The settings as changed." },
    verb: applications.organisationSettings,
    async handler(c, { body }) {
      return reply(await applications.organisationSettings({ ctx: serviceContext(c), input: body }), "organisation settings changed");
    },
  }),
];
