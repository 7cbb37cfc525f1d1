import type { Context } from "hono";
import { z } from "zod";
import {
  MAX_REDIRECT_URIS,
  OAuthError,
  REGISTRATION_WINDOW_SECONDS,
  REGISTRATIONS_PER_ADDRESS,
  scopeParameter,
} from "../../domain/oauth.ts";
import { applicationNameProblem, GRANT_TYPES, parseScopeParameter } from "../../domain/oauth.ts";
import { RECORD_READ_SCOPES } from "../../domain/scopes.ts";
import { registerDynamicClient } from "../../services/applications.ts";
import { oauthRefusals } from "../../services/refusals.ts";
import type { AppEnv } from "../env.ts";
import { addressGuardOf, oauthErrorResponse } from "./requests.ts";

// POST /oauth/register (RFC 7591): an application registers itself, owned by no organisation. It
// can only be installed in an organisation whose owner allowed dynamic registration (docs/apps.md),
// so registering grants nothing. Counted per client address (CF-Connecting-IP, which Cloudflare sets;
// locally the header is whatever the client sends), as sign-ups are. Without a scope it may ask for
// the records' read scopes only; a name that names the service is refused.

const AUTH_METHODS = ["none", "client_secret_basic", "client_secret_post"] as const;

const Metadata = z.object({
  redirect_uris: z.array(z.string().max(2000)).min(1).max(MAX_REDIRECT_URIS),
  client_name: z.string().trim().min(1).max(200).optional(),
  token_endpoint_auth_method: z.enum(AUTH_METHODS).default("client_secret_basic"),
  grant_types: z.array(z.enum(GRANT_TYPES)).default(["authorization_code", "refresh_token"]),
  response_types: z.array(z.literal("code")).default(["code"]),
  scope: z.string().max(2000).optional(),
});

export async function registerClient(c: Context<AppEnv>): Promise<Response> {
  try {
    const guard = addressGuardOf(c, "register");
    const decision = await guard.attempt(REGISTRATIONS_PER_ADDRESS, REGISTRATION_WINDOW_SECONDS);
    if (decision.blocked) throw oauthRefusals.tooManyFrom("registrations", decision.retryAfter);
    if (!/^application\/json\s*(;|$)/i.test(c.req.header("content-type") ?? ""))
      throw new OAuthError("invalid_client_metadata", "send the metadata as application/json");
    const text = await c.req.text();
    if (text.length > 16_384) throw new OAuthError("invalid_client_metadata", "the metadata is over 16384 bytes");
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new OAuthError("invalid_client_metadata", "the metadata is not JSON");
    }
    const parsed = Metadata.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const field = issue.path.join(".") || "body";
      throw new OAuthError(
        field.startsWith("redirect_uris") ? "invalid_redirect_uri" : "invalid_client_metadata",
        `${field}: ${issue.message}`,
      );
    }
    const metadata = parsed.data;
    // Without a scope: the records' read scopes, never more (a client asks for writes by name).
    const asked = parseScopeParameter(metadata.scope ?? RECORD_READ_SCOPES.join(" "));
    if (asked.invalid || asked.scopes.length === 0)
      throw new OAuthError("invalid_client_metadata", "scope names no scope, or an unknown one");
    const isPublic = metadata.token_endpoint_auth_method === "none";
    if (isPublic && metadata.grant_types.includes("client_credentials"))
      throw new OAuthError("invalid_client_metadata", "a public client cannot use client_credentials");
    const name = metadata.client_name ?? "Unnamed application";
    const named = applicationNameProblem(name);
    if (named) throw new OAuthError("invalid_client_metadata", `client_name ${named}`);
    const registered = await registerDynamicClient({
      ctx: { db: c.get("db") },
      input: { name, redirectUris: metadata.redirect_uris, scopes: asked.scopes, public: isPublic },
    });
    return c.json(
      {
        client_id: registered.clientId,
        ...(registered.clientSecret ? { client_secret: registered.clientSecret, client_secret_expires_at: 0 } : {}),
        client_id_issued_at: Math.floor(Date.now() / 1000),
        client_name: name,
        redirect_uris: metadata.redirect_uris,
        token_endpoint_auth_method: metadata.token_endpoint_auth_method,
        grant_types: metadata.grant_types,
        response_types: metadata.response_types,
        scope: scopeParameter(registered.scopes),
      },
      201,
      { "Cache-Control": "no-store", Pragma: "no-cache" },
    );
  } catch (error) {
    return oauthErrorResponse(c, error);
  }
}
