import { expect } from "vitest";
import { api, expectError, expectSuccess, type ApiResponse, type Method } from "../helpers/api.ts";
import { expectNoTrace, snapshot } from "../helpers/database.ts";
import type { Tenant } from "../helpers/fixtures.ts";
import { UUID } from "../helpers/resources.ts";

// Shared by the POST /v1/batch tests (test/batch/): sending a batch, the answer's shape, the
// events a batch left (read through GET /v1/events, as a client follows them), and "refused,
// at this operation, and nothing written".

export interface Operation {
  method: Method | string;
  path: string;
  body?: unknown;
  ref?: string;
  ifMatch?: string | number;
  [extra: string]: unknown;
}

export interface BatchResult {
  status: number;
  data: Record<string, any>;
}

export interface BatchAnswer {
  success: true;
  version: "v1";
  message: string;
  changeVersion: number;
  batchId: string | null;
  data: BatchResult[];
}

export interface FeedEvent {
  id: string;
  type: string;
  changeVersion: number;
  data: Record<string, any>;
  changes: Record<string, { from: unknown; to: unknown }> | null;
  actor: { type: string; id: string | null; name: string };
  batchId: string | null;
}

/** POST /v1/batch with these operations. */
export function sendBatch(key: string, operations: Operation[], headers: Record<string, string> = {}): Promise<ApiResponse> {
  return api("/v1/batch", { key, body: { operations }, headers });
}

/** Asserts a committed batch: 200, the envelope, one result per operation; answers the body. */
export function expectCommitted(response: ApiResponse, operations: number): BatchAnswer {
  const body = expectSuccess<BatchResult[]>(response, 200) as unknown as BatchAnswer;
  expect(body.message).toBe(`${operations} ${operations === 1 ? "operation" : "operations"} committed`);
  expect(body.data, "one result per operation").toHaveLength(operations);
  return body;
}

/** Sends a batch that must commit; answers its body. */
export async function committed(key: string, operations: Operation[], headers: Record<string, string> = {}): Promise<BatchAnswer> {
  return expectCommitted(await sendBatch(key, operations, headers), operations.length);
}

/** Asserts the batch id is a UUID and that every event carries it, with consecutive changeVersions ending at the answer's. */
export function expectOneBatch(answer: BatchAnswer, events: Array<{ changeVersion: number; batchId: string | null }>): void {
  expect(answer.batchId).toMatch(UUID);
  expect(
    events.map((e) => e.batchId),
    "every event of the batch carries its batchId",
  ).toEqual(events.map(() => answer.batchId));
  const last = answer.changeVersion;
  expect(
    events.map((e) => e.changeVersion),
    "consecutive changeVersions, ending at the answer's",
  ).toEqual(events.map((_, i) => last - events.length + 1 + i));
}

/** Every event after `after`, through GET /v1/events (all pages), as a client follows the feed. */
export async function feed(key: string, after: number): Promise<FeedEvent[]> {
  const events: FeedEvent[] = [];
  for (let cursor: string | null = String(after); cursor !== null;) {
    const page = expectSuccess(await api(`/v1/events?limit=200&after=${cursor}`, { key }));
    events.push(...(page.data as FeedEvent[]));
    cursor = (page.nextCursor ?? null) as string | null;
  }
  return events;
}

/**
 * Sends a batch that must be refused at operation `operation` with this status and code (and
 * details), and asserts that none of the organisations changed. Answers the error body.
 */
export async function expectBatchRefused(
  tenant: Tenant | { key: string; orgIds: string[] },
  operations: Operation[],
  status: number,
  code: string,
  details: Record<string, unknown> & { operation?: number | undefined } = {},
  headers: Record<string, string> = {},
) {
  const orgIds = "org" in tenant ? [tenant.org.id] : tenant.orgIds;
  const before = await Promise.all(orgIds.map((id) => snapshot(id)));
  const response = await sendBatch(tenant.key, operations, headers);
  const body = expectError(response, status, code, details);
  expect(body, "a refusal carries no batch answer").not.toHaveProperty("batchId");
  const after = await Promise.all(orgIds.map((id) => snapshot(id)));
  orgIds.forEach((_, i) => expectNoTrace(before[i]!, after[i]!));
  return { response, body };
}

/** The same operation as a single call (its method, path, body and If-Match): what the batch must answer alike. */
export function singleCall(key: string, operation: Operation): Promise<ApiResponse> {
  const headers: Record<string, string> = operation.ifMatch === undefined ? {} : { "if-match": String(operation.ifMatch) };
  return api(operation.path, {
    key,
    method: operation.method as Method,
    headers,
    ...(operation.body === undefined ? {} : { body: operation.body }),
  });
}

/**
 * The refusal of a batch is exactly the single call's: the same status, message and error fields,
 * with `error.operation` added (requestIds differ).
 */
export function expectSameRefusal(batch: ApiResponse, single: ApiResponse, operation: number): void {
  expect(batch.status, `the single call answered ${single.status} ${single.text.slice(0, 200)}`).toBe(single.status);
  const { requestId: _b, operation: index, ...batchError } = batch.body.error as Record<string, unknown>;
  const { requestId: _s, ...singleError } = single.body.error as Record<string, unknown>;
  expect(index).toBe(operation);
  expect(batchError).toEqual(singleError);
  expect(batch.body.message).toBe(single.body.message);
}
