import { inject } from "vitest";
import type { CaughtMail } from "../../cli/lib/mail-catcher.ts";
import { query } from "./database.ts";
import { runSweep } from "./realtime.ts";
import { pollUntil } from "./wait.ts";

// The mail the Worker sent, as the harness's SMTP server (cli/lib/mail-catcher.ts) received it.

export type { CaughtMail };

const catcher = () => inject("mailCatcherUrl");

/** Every message to `to`, oldest first. */
export async function mailTo(to: string): Promise<CaughtMail[]> {
  const response = await fetch(`${catcher()}/messages?to=${encodeURIComponent(to.toLowerCase())}`);
  return (await response.json()) as CaughtMail[];
}

/** Waits for the `count`-th message to `to` (within 10 s) and answers it. */
export async function nextMailTo(to: string, count = 1, timeoutMs = 10_000): Promise<CaughtMail> {
  const messages = await pollUntil(
    () => mailTo(to),
    (m) => m.length >= count,
    timeoutMs,
  );
  return messages[count - 1]!;
}

/** Waits for a message to `to` with `subject` (within 10 s) and answers the latest such. */
export async function mailWithSubject(to: string, subject: string, timeoutMs = 10_000): Promise<CaughtMail> {
  const messages = await pollUntil(
    () => mailTo(to),
    (m) => m.some((mail) => mail.subject === subject),
    timeoutMs,
  );
  return messages.filter((mail) => mail.subject === subject).at(-1)!;
}

/** The SMTP server refuses the next `times` messages to `to` with `code` (a 4xx or 5xx). */
export async function refuseMailTo(to: string, code: number, times: number): Promise<void> {
  const response = await fetch(`${catcher()}/refuse`, { method: "POST", body: JSON.stringify({ to, code, times }) });
  if (response.status !== 204) throw new Error(`the catcher did not take the refusal: ${response.status}`);
}

/** The first link of a message's text. */
export function linkIn(mail: CaughtMail): string {
  const link = /https?:\/\/\S+/.exec(mail.text)?.[0];
  if (!link) throw new Error(`no link in ${mail.text}`);
  return link;
}

/** The outbox rows for an address, oldest first. */
export const outboxFor = (to: string) =>
  query<{ id: string; kind: string; status: string; attempts: number; last_error: string | null }>(
    `select id, kind, status, attempts, last_error from mail_outbox where to_address = $1 order by created_at, id`,
    [to.toLowerCase()],
  );

/**
 * Waits until every message of `kinds` queued for `to` has reached the SMTP server and is recorded
 * sent. A refusal registered before then could be taken by one of them: the mail of a sign-up or an
 * invitation goes after its answer, and under load it can reach the catcher after the test's next calls.
 */
export async function mailDelivered(to: string, kinds: readonly string[]): Promise<void> {
  await pollUntil(
    () => outboxFor(to),
    (rows) => kinds.every((kind) => rows.some((row) => row.kind === kind)) && rows.every((row) => row.status === "sent"),
    15_000,
  );
}

/** Makes the outbox's messages to `to` due now (their backoff over), and runs the sweep. */
export async function sweepMailTo(to: string): Promise<void> {
  await query(`update mail_outbox set next_attempt_at = now() where to_address = $1 and status = 'queued'`, [to.toLowerCase()]);
  await runSweep();
}
