import type { Database } from "../db/client.ts";
import type { IdempotencyRequest } from "../db/statements/engine/idempotency.ts";
import type { Actor } from "../domain/actor.ts";
import type { AuditRequest } from "../domain/audit.ts";
import type { Mailer } from "./mail.ts";
import type { Rooms } from "./room-client.ts";

export type { IdempotencyRequest };

/**
 * What every service verb runs with: the database, who is acting, the rooms to tell of what
 * changed, and where to put work that follows the commit. The Worker builds one per request (and
 * hands deferred work to waitUntil, after the answer); the CLI builds one per command (and awaits
 * deferred work before it exits), so a write or a revocation from either reaches the room at once.
 */
export interface ServiceContext {
  db: Database;
  actor: Actor;
  rooms: Rooms;
  /** Sends the mail a write queued (MAIL_URL); null or absent: it waits in the outbox for one. */
  mailer?: Mailer | null;
  /**
   * What notification mails link to: the public origin, and the secret their unsubscribe tokens are
   * signed with (AUTH_SECRET). Absent: notifications are made, but no mail is queued for them.
   */
  notificationLinks?: { origin: string; secret: string } | null;
  /** Runs `work` after the answer; a failure is logged, not thrown at the caller. */
  defer(work: () => Promise<unknown>): void;
  /**
   * Told the organisation's changeVersion each statement saw, and the one each write produced; the
   * Worker answers the last in the envelope (`changeVersion`). The CLI does not listen.
   */
  observe?(changeVersion: number): void;
  /** The Idempotency-Key a create came with. */
  idempotency?: IdempotencyRequest | undefined;
  /** Where the request came from: the audit entries its writes append carry it. None for the CLI. */
  request?: AuditRequest | undefined;
  /**
   * How many more subrequests (statements, room messages) the invocation may make: Workers cap
   * them (functions/subrequests.ts). Loops that could make many stop short of it; unset: no cap.
   */
  subrequestsLeft?(): number;
}

/** The subrequests `ctx`'s invocation may still make (Infinity with no cap: the CLI). */
export const subrequestsLeft = (ctx: Pick<ServiceContext, "subrequestsLeft">): number => ctx.subrequestsLeft?.() ?? Infinity;

/** What the system's own work runs with (the sweep, the room's calls): no caller. */
export type SystemContext = Omit<ServiceContext, "actor" | "idempotency" | "request">;

/** A service verb's argument: its context and its input. */
export interface Call<Input, Context = ServiceContext> {
  ctx: Context;
  input: Input;
}
