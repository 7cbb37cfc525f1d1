import type { Database } from "../db/client.ts";
import { organisationsOf } from "../db/statements/members.ts";
import * as statements from "../db/statements/sessions.ts";
import { recordSession, recordSignInFailure } from "../db/statements/sign-ins.ts";
import type { AuditRequest } from "../domain/audit.ts";
import { notFound } from "../domain/errors.ts";
import type { Call } from "./context.ts";
import type { Rooms } from "./room-client.ts";
import { settleCaller } from "./settle.ts";

// Sessions (docs/people.md): who is signed in, the organisation a session acts for, and what
// follows a sign-out. better-auth signs people in and out (functions/auth/auth.ts).

export type { Me } from "../db/statements/sessions.ts";

export async function describeSession({ ctx }: Call<Record<string, never>>) {
  const outcome = await statements.describeSession(ctx.db, ctx.actor);
  settleCaller(outcome.caller, ctx, null);
  return outcome.me!;
}

/** A signed-in session by id, with its organisation and its role's scopes (a realtime token names one), or null. */
export const findLiveSession = ({ ctx, input }: Call<{ sessionId: string }, { db: Database }>) =>
  statements.findLiveSession(ctx.db, input.sessionId);

/** Who a session's calls are counted as (the rate limit): its person and the organisation it acts for, or null once it has ended. */
export const sessionHolder = ({ ctx, input }: Call<{ sessionToken: string }, { db: Database }>) =>
  statements.sessionHolder(ctx.db, input.sessionToken);

/** Switches the session to another organisation the person belongs to. */
export async function switchOrganisation({ ctx, input }: Call<{ sessionToken: string; orgId: string }>) {
  if (await statements.switchOrganisation(ctx.db, input)) return;
  // An ended session (or one whose person belongs nowhere now) is 401, as on every other call.
  settleCaller((await statements.describeSession(ctx.db, ctx.actor)).caller, ctx, null);
  throw notFound("organisation");
}

/** After sign-out: the rooms of the person's organisations close the sockets of that session. */
export async function endSession(ctx: { db: Database; rooms: Rooms }, input: { sessionId: string; userId: string }): Promise<void> {
  const orgIds = await organisationsOf(ctx.db, input.userId);
  await Promise.all(orgIds.map((orgId) => ctx.rooms.tell(orgId, { sessionsEnded: [input.sessionId] })));
}

/**
 * The audit log's sign-ins and sign-outs (better-auth's hooks, functions/auth/auth.ts), in the
 * organisation the session acts for. A failure to record is logged, and the sign-in goes on.
 */
export const auditSession = (
  ctx: { db: Database; request: AuditRequest },
  input: { action: "user.signed_in" | "user.signed_out"; userId: string; orgId: string | null },
) => recordSession(ctx.db, input, ctx.request);

/** A refused sign-in (wrong password, or an address no one has: then nothing is recorded). */
export const auditSignInFailure = (ctx: { db: Database; request: AuditRequest }, input: { email: string }) =>
  recordSignInFailure(ctx.db, input.email, ctx.request);
