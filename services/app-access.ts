import type { Database } from "../db/client.ts";
import * as statements from "../db/statements/app-access.ts";
import { subrequestsLeft, type Call, type ServiceContext } from "./context.ts";

// An OAuth application's access beyond one call (docs/apps.md "Realtime"): whether the grant a
// realtime token names may still open a socket, and the sweep's part: repeating to the rooms what
// ended lately (an uninstall's or a revocation's after-commit message may have been lost) and
// pruning the tokens and grants that can no longer be used.

/** The grant a realtime token names, if it is still live, with its organisation, installation, application, person and scopes now. */
export const findLiveGrant = ({ ctx, input }: Call<{ grantId: string }, { db: Database }>) =>
  statements.findLiveGrant(ctx.db, input.grantId);

/**
 * Tells each room the installations ended and grants revoked in the last `seconds`: a room that
 * was told already has closed their sockets and closes none again; one that was not closes them
 * now. A room that cannot be told is left to the next sweep (and `warn`ed of).
 */
export async function repeatEndedAccess(
  ctx: Pick<ServiceContext, "db" | "rooms">,
  seconds: number,
  warn: (message: string, facts: Record<string, unknown>) => void,
): Promise<void> {
  const ended = await statements.recentlyEndedAccess(ctx.db, seconds);
  const told = (orgId: string) => (error: unknown) => warn("could not tell a room of ended applications", { orgId, cause: String(error) });
  await Promise.all(
    [...ended].flatMap(([orgId, { installations, grants }]) => [
      ...(installations.length ? [ctx.rooms.tell(orgId, { installationsEnded: installations }).catch(told(orgId))] : []),
      // The webhooks an ended installation registered were turned off with it: the room reloads them.
      ...(installations.length ? [ctx.rooms.tell(orgId, { webhooksChanged: true }).catch(told(orgId))] : []),
      ...(grants.length ? [ctx.rooms.tell(orgId, { grantsRevoked: grants }).catch(told(orgId))] : []),
    ]),
  );
}

/** Organisations whose installations the sweep ends at a time. */
const UNAUTHORISED_ORGANISATIONS_PER_SWEEP = 50;

/**
 * Ends the installations whose installer's authority is gone by another path than a member change
 * (which ends them itself): their tokens are refused already; this turns their webhooks off and
 * records each (application.installation_ended, by opsroom). Run before the rooms are told what
 * ended lately, so they close the installations' sockets and reload their webhooks.
 */
export async function endUnauthorisedInstallations(ctx: Pick<ServiceContext, "db" | "subrequestsLeft">, reserve = 0): Promise<number> {
  let ended = 0;
  for (const orgId of await statements.organisationsWithUnauthorisedInstallations(ctx.db, UNAUTHORISED_ORGANISATIONS_PER_SWEEP)) {
    // One statement each; past the invocation's budget the next sweep ends the rest.
    if (subrequestsLeft(ctx) <= reserve) break;
    ended += (await statements.endUnauthorisedInstallations(ctx.db, orgId)).length;
  }
  return ended;
}

/** Prunes expired tokens and the grants that can no longer be used (db/statements/app-access.ts says which, and why). */
export const pruneAppTokens = (ctx: Pick<ServiceContext, "db">) => statements.pruneAppTokens(ctx.db);
