import type { Database } from "../db/client.ts";
import * as statements from "../db/statements/applications.ts";
import type { EndedInstallation } from "../db/statements/applications.ts";
import { MANAGE_SETTINGS } from "../db/statements/engine/settings-caller.ts";
import { NO_REQUEST } from "../domain/audit.ts";
import { generateClientId, generateCredential, hashCredential } from "../domain/crypto/oauth.ts";
import { DomainError, notFound } from "../domain/errors.ts";
import { uuidv7 } from "../domain/ids.ts";
import { applicationNameProblem, OAuthError, redirectUriProblem } from "../domain/oauth.ts";
import { expandScopes, type Scope } from "../domain/scopes.ts";
import type { Call, ServiceContext } from "./context.ts";
import { callerRefusals } from "./refusals.ts";
import { settleCaller } from "./settle.ts";

// Applications in the settings area (docs/apps.md): an owner or admin registers, changes, rotates
// the secret of and deletes their organisation's applications, and lists and uninstalls the
// applications installed in it. Ending an installation refuses its tokens at once (the statement);
// after the answer its room is told, to close its sockets (4401) and stop its webhooks.

export type { ApplicationRecord, InstallationRecord } from "../db/statements/applications.ts";

/** The name names not the service; 400 naming `name` otherwise. */
function checkName(name: string): string {
  const problem = applicationNameProblem(name);
  if (problem) throw new DomainError("invalid_field", `name ${problem}`, { field: "name" });
  return name;
}

/** Every redirect URI may be registered (https, or http to loopback); 400 naming redirectUris otherwise. */
function checkRedirectUris(uris: string[]): string[] {
  for (const [index, uri] of uris.entries()) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new DomainError("invalid_field", `redirectUris[${index}] ${problem}`, { field: "redirectUris" });
  }
  return [...new Set(uris)];
}

/**
 * The rooms of the organisations whose installations ended reload their webhooks before the answer
 * goes out, as after any change of a webhook (services/webhooks.ts): an event published after the
 * answer reaches none of the webhooks those installations registered. After the answer, the rooms
 * close their sockets. A room that cannot be told (down) loads its webhooks afresh when it wakes.
 */
export async function tellEnded(ctx: Pick<ServiceContext, "defer" | "rooms">, ended: EndedInstallation[]): Promise<void> {
  const byOrg = new Map<string, string[]>();
  for (const { id, orgId } of ended) byOrg.set(orgId, [...(byOrg.get(orgId) ?? []), id]);
  await Promise.all(
    [...byOrg.keys()].map((orgId) =>
      ctx.rooms
        .tell(orgId, { webhooksChanged: true })
        .catch((error: unknown) =>
          console.warn(JSON.stringify({ level: "warn", message: "the room could not reload its webhooks", orgId, cause: String(error) })),
        ),
    ),
  );
  for (const [orgId, ids] of byOrg) ctx.defer(() => ctx.rooms.tell(orgId, { installationsEnded: ids }));
}

export async function listApplications({ ctx }: Call<Record<string, never>>) {
  const outcome = await statements.listApplications(ctx.db, ctx.actor);
  settleCaller(outcome.caller, ctx, MANAGE_SETTINGS);
  return outcome.applications;
}

export async function getApplication({ ctx, input }: Call<{ id: string }>) {
  const outcome = await statements.getApplication(ctx.db, ctx.actor, input.id);
  settleCaller(outcome.caller, ctx, MANAGE_SETTINGS);
  if (!outcome.application) throw notFound("application");
  return outcome.application;
}

/** Registers an application; a confidential one's secret is answered this once. */
export async function createApplication({
  ctx,
  input,
}: Call<{ name: string; redirectUris: string[]; scopes: Scope[]; public?: boolean | undefined; id?: string | undefined }>) {
  const redirectUris = checkRedirectUris(input.redirectUris);
  const isPublic = input.public ?? false;
  const secret = isPublic ? null : generateCredential("clientSecret");
  const outcome = await statements.createApplication(
    ctx.db,
    ctx.actor,
    {
      id: input.id ?? uuidv7(),
      clientId: generateClientId(),
      name: checkName(input.name),
      redirectUris,
      scopes: expandScopes(input.scopes),
      public: isPublic,
      secretHash: secret && hashCredential(secret),
    },
    ctx.request ?? NO_REQUEST,
  );
  settleCaller(outcome.caller, ctx, MANAGE_SETTINGS);
  return { application: outcome.application!, clientSecret: secret };
}

export async function updateApplication({
  ctx,
  input,
}: Call<{ id: string; name?: string | undefined; redirectUris?: string[] | undefined; scopes?: Scope[] | undefined }>) {
  const outcome = await statements.updateApplication(
    ctx.db,
    ctx.actor,
    input.id,
    {
      name: input.name === undefined ? undefined : checkName(input.name),
      redirectUris: input.redirectUris && checkRedirectUris(input.redirectUris),
      scopes: input.scopes && expandScopes(input.scopes),
    },
    ctx.request ?? NO_REQUEST,
  );
  settleCaller(outcome.caller, ctx, MANAGE_SETTINGS);
  if (!outcome.application) throw notFound("application");
  return outcome.application;
}

/** Deletes an application: uninstalled from every organisation, every token refused. */
export async function deleteApplication({ ctx, input }: Call<{ id: string }>) {
  const outcome = await statements.deleteApplication(ctx.db, ctx.actor, input.id, ctx.request ?? NO_REQUEST);
  settleCaller(outcome.caller, ctx, MANAGE_SETTINGS);
  if (!outcome.deleted) throw notFound("application");
  await tellEnded(ctx, outcome.ended);
  return outcome.deleted;
}

/** A new client secret, answered once; the old one keeps working `overlapSeconds`. */
export async function rotateSecret({ ctx, input }: Call<{ id: string; overlapSeconds: number }>) {
  const secret = generateCredential("clientSecret");
  const outcome = await statements.rotateSecret(
    ctx.db,
    ctx.actor,
    input.id,
    { hash: hashCredential(secret), overlapSeconds: input.overlapSeconds },
    ctx.request ?? NO_REQUEST,
  );
  settleCaller(outcome.caller, ctx, MANAGE_SETTINGS);
  if (!outcome.found) throw notFound("application");
  if (!outcome.rotated) throw new DomainError("conflict", "a public application has no secret to rotate");
  return { clientSecret: secret, previousSecretExpiresAt: outcome.rotated.previousSecretExpiresAt };
}

export async function listInstallations({ ctx }: Call<Record<string, never>>) {
  const outcome = await statements.listInstallations(ctx.db, ctx.actor);
  settleCaller(outcome.caller, ctx, MANAGE_SETTINGS);
  return outcome.installations;
}

/** Uninstalls: every token refused at once; after the answer, its sockets closed and its webhooks stopped. */
export async function uninstall({ ctx, input }: Call<{ id: string }>) {
  const outcome = await statements.uninstall(ctx.db, ctx.actor, input.id, ctx.request ?? NO_REQUEST);
  settleCaller(outcome.caller, ctx, MANAGE_SETTINGS);
  if (outcome.ended.length === 0) throw notFound("installation");
  await tellEnded(ctx, outcome.ended);
}

/**
 * The organisation's settings (dynamically registered applications, confirmed addresses); changing
 * them is an owner's.
 */
export async function organisationSettings({
  ctx,
  input,
}: Call<{ allowDynamicClientRegistration?: boolean | undefined; requireVerifiedEmail?: boolean | undefined }>) {
  const change = {
    ...(input.allowDynamicClientRegistration === undefined ? {} : { allowDynamicClientRegistration: input.allowDynamicClientRegistration }),
    ...(input.requireVerifiedEmail === undefined ? {} : { requireVerifiedEmail: input.requireVerifiedEmail }),
  };
  const outcome = await statements.organisationSettings(ctx.db, ctx.actor, change, ctx.request ?? NO_REQUEST);
  settleCaller(outcome.caller, ctx, MANAGE_SETTINGS);
  if (Object.keys(change).length > 0 && outcome.role !== "owner") throw callerRefusals.roleMissing(["owner"]);
  return outcome.settings!;
}

/**
 * RFC 7591: an application registered by nobody, installable only where an owner allows it.
 * Answers what it registered, with the secret of a confidential one (shown once).
 */
export async function registerDynamicClient({
  ctx,
  input,
}: Call<{ name: string; redirectUris: string[]; scopes: Scope[]; public: boolean }, { db: Database }>) {
  for (const uri of input.redirectUris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError("invalid_redirect_uri", `${uri.slice(0, 200)} ${problem}`);
  }
  const secret = input.public ? null : generateCredential("clientSecret");
  const clientId = generateClientId();
  const scopes = expandScopes(input.scopes);
  await statements.insertDynamicApplication(ctx.db, {
    id: uuidv7(),
    clientId,
    name: input.name,
    redirectUris: input.redirectUris,
    scopes,
    public: input.public,
    secretHash: secret && hashCredential(secret),
  });
  return { clientId, clientSecret: secret, scopes };
}

/** An installation made by the operator (the demo's seed): no consent, no grant. */
export const installForSeed = ({ ctx, input }: Call<Parameters<typeof statements.insertInstallation>[1], { db: Database }>) =>
  statements.insertInstallation(ctx.db, input);
