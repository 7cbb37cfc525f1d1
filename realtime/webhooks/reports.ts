import type * as Party from "partykit/server";
import type { DeliveryAttempt } from "../protocol.ts";
import { writeAtomically } from "../storage.ts";
import type { InternalApi } from "./targets.ts";

// Attempt reports wait in room storage (`report:<id>`), written in the same batch as the job's
// next state, until the API has taken them into the delivery log.

const REPORT_PREFIX = "report:";
/** Reports sent to the API per request. */
export const REPORT_BATCH = 500;

export const reportKey = (report: DeliveryAttempt) => `${REPORT_PREFIX}${report.id}`;

export async function hasReports(storage: Party.Storage): Promise<boolean> {
  return (await storage.list({ prefix: REPORT_PREFIX, limit: 1 })).size > 0;
}

/** Sends the stored reports to the API; kept for later if it cannot be reached. Answers whether none is left. */
export async function flushReports(storage: Party.Storage, api: InternalApi): Promise<boolean> {
  for (;;) {
    const reports = await storage.list<DeliveryAttempt>({ prefix: REPORT_PREFIX, limit: REPORT_BATCH });
    if (reports.size === 0) return true;
    const response = await api("/deliveries", { method: "POST", body: JSON.stringify({ attempts: [...reports.values()] }) }).catch(
      () => null,
    );
    if (!response?.ok) return false;
    await writeAtomically(storage, { delete: [...reports.keys()] });
  }
}
