import { OpenAPIHono, z } from "@hono/zod-openapi";
import { SCOPES } from "../../domain/scopes.ts";
import type { AppEnv } from "../env.ts";
import { headerComponents, headerParameterComponents } from "../http/headers.ts";
import type { AnyRoute } from "../http/registry.ts";
import { OAUTH_PATHS } from "../oauth/metadata.ts";
import { EVENT_TYPES } from "../schemas/event-types.ts";
import { addOperationExamples } from "./examples.ts";
import { apiGuide } from "./guide.ts";
import { toOpenApiRoute } from "./operation.ts";
import { addRequestExamples } from "./request-examples.ts";
import { shareErrorResponses } from "./shared-responses.ts";

type OpenApiDocument = ReturnType<OpenAPIHono["getOpenAPI31Document"]>;

const documents = new WeakMap<object, OpenApiDocument>();

const StandardWebhookHeaders = z.object({
  "webhook-id": z.string().openapi({
    description: "The event's id: the same on every retry of it, to drop duplicates.",
    example: "019a8a0e-7c5e-7b52-9a43-2f6f1c3f4d10",
  }),
  "webhook-timestamp": z
    .string()
    .openapi({ description: "Unix seconds when this attempt was signed; refuse one too far from now.", example: "1795471084" }),
  "webhook-signature": z.string().openapi({
    description:
      "Space-separated `v1,<base64 HMAC-SHA256>` of `<webhook-id>.<webhook-timestamp>.<body>` under the webhook's secret (two while a rotation overlaps). Standard Webhooks.",
    example: "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=",
  }),
});

/** The document's `webhooks`: one entry per event type, as a webhook receiver gets it. */
function registerWebhooks(app: OpenAPIHono<AppEnv>) {
  for (const { type, schema } of EVENT_TYPES) {
    app.openAPIRegistry.registerWebhook({
      method: "post",
      path: type,
      summary: `${type}, as a webhook delivers it`,
      description:
        "Signed per Standard Webhooks. Answer any 2xx within 10 s to acknowledge; anything else (or no answer) is retried with backoff, and the attempt logged.",
      tags: ["Webhooks"],
      // The receiver authenticates the request by its signature (the headers), not by a scheme of ours.
      security: [],
      request: { headers: StandardWebhookHeaders, body: { content: { "application/json": { schema } } } },
      responses: { 200: { description: "Any 2xx acknowledges the delivery." } },
    });
  }
}

/**
 * The OAuth 2.1 authorization server's flows (docs/apps.md): the authorization code with PKCE
 * (S256), and client credentials for a confidential application acting as itself. The URLs are
 * relative to the server (this origin); the scopes are the API's, with GET /v1's labels.
 */
function oauth2Scheme() {
  const scopes = { ...SCOPES };
  return {
    type: "oauth2" as const,
    description:
      "An OAuth 2.1 application's access token (opsroom_at_...), found by discovery at /.well-known/oauth-authorization-server: " +
      "the authorization code flow needs PKCE with S256, refresh tokens rotate on every use (a reused one revokes its grant), " +
      "access tokens live an hour. An access token works as an API key with the scopes granted, limited per installation. " +
      "The tokens are opaque (stored hashed and checked in the call's statement, so a revocation takes effect at once), " +
      "not JWTs: RFC8725's JWT practices have nothing to apply to.",
    flows: {
      authorizationCode: {
        authorizationUrl: OAUTH_PATHS.authorize,
        tokenUrl: OAUTH_PATHS.token,
        refreshUrl: OAUTH_PATHS.token,
        scopes,
      },
      // No refresh token: the application asks the token endpoint again (.spectral.yaml says why the rule is off here).
      clientCredentials: { tokenUrl: OAUTH_PATHS.token, scopes },
    },
  };
}

/** The OpenAPI 3.1 document, generated from the route registry once per isolate; `serverUrl` is where it was asked for. */
export function openApiDocument(routes: AnyRoute[], serverUrl: string): OpenApiDocument {
  // x-internal: false says the server is meant for integrators (OWASP API9, inventory).
  return { ...documentOf(routes), servers: [{ url: serverUrl, "x-internal": false } as { url: string }] };
}

const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };

/**
 * Gives every integer schema its format from its bounds: int32 when both fit, else int64 (every
 * integer of the API is a JavaScript safe integer, within int64). zod states the bounds, not the
 * format, and generated clients pick their integer type from it.
 */
function addIntegerFormats(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(addIntegerFormats);
  if (!node || typeof node !== "object") return;
  const schema = node as Record<string, unknown>;
  const isInteger = schema.type === "integer" || (Array.isArray(schema.type) && schema.type.includes("integer"));
  if (isInteger && schema.format === undefined) {
    const fits = (bound: unknown, limit: number, side: 1 | -1) => typeof bound === "number" && side * bound <= side * limit;
    schema.format = fits(schema.minimum, INT32.min, -1) && fits(schema.maximum, INT32.max, 1) ? "int32" : "int64";
  }
  Object.values(schema).forEach(addIntegerFormats);
}

function documentOf(routes: AnyRoute[]): OpenApiDocument {
  let document = documents.get(routes);
  if (!document) {
    const app = new OpenAPIHono<AppEnv>();
    for (const route of routes) app.openAPIRegistry.registerPath(toOpenApiRoute(route));
    app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
      type: "http",
      scheme: "bearer",
      description: "An opsroom API key (ops_...). The scopes listed on an operation are the ones it needs.",
    });
    app.openAPIRegistry.registerComponent("securitySchemes", "oauth2", oauth2Scheme());
    app.openAPIRegistry.registerComponent("securitySchemes", "sessionCookie", {
      type: "apiKey",
      in: "cookie",
      name: "opsroom.session_token",
      description:
        "A signed-in person's session (sign in at /sign-in; __Secure-opsroom.session_token over https). Its scopes are those of the person's role; a write must come from this origin.",
    });
    for (const [name, header] of Object.entries(headerComponents())) app.openAPIRegistry.registerComponent("headers", name, header);
    for (const [name, parameter] of Object.entries(headerParameterComponents()))
      app.openAPIRegistry.registerComponent("parameters", name, parameter);
    registerWebhooks(app);
    const generated = app.getOpenAPI31Document({
      openapi: "3.1.0",
      info: {
        title: "opsroom API",
        version: "v1",
        // The envelope, errors, scopes and event catalogue: the introduction GET /docs shows.
        description: apiGuide(routes),
        // openapi3-ts types lack 3.1's license.identifier; the document itself is 3.1.
        license: { name: "Proprietary", identifier: "LicenseRef-opsroom" } as { name: string },
      },
      tags: [
        { name: "Organisation", description: "The key's organisation and self-description." },
        { name: "Projects", description: "Projects: name, budget, dates and status." },
        { name: "Milestones", description: "The milestones of a project." },
        { name: "Tasks", description: "Tasks, their assignees and their workflow." },
        { name: "Personnel", description: "People who may be assigned to tasks." },
        { name: "Risks", description: "The risks of a project: probability, impact, owner and mitigation." },
        { name: "Issues", description: "The issues of a project: severity, reporter, assignee and resolution." },
        { name: "Financial entries", description: "Costs, invoices, payments and adjustments of a project, and its finances." },
        { name: "Batch", description: "Many creates, changes and deletes in one call, all or nothing." },
        { name: "Realtime", description: "Catching up on events, and tokens for the realtime room." },
        { name: "Webhooks", description: "Endpoints that receive every visible event, signed per Standard Webhooks." },
        {
          name: "Settings",
          description:
            "The settings area of people signed in (cookie auth; API keys are answered 401): their session, members, invitations and API keys.",
        },
        { name: "Meta", description: "The API's own description." },
      ],
    });
    addIntegerFormats(generated);
    addRequestExamples(generated as Parameters<typeof addRequestExamples>[0]);
    addOperationExamples(generated as Parameters<typeof addOperationExamples>[0]);
    shareErrorResponses(generated as Parameters<typeof shareErrorResponses>[0]);
    document = generated;
    documents.set(routes, document);
  }
  return document;
}
