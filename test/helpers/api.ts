import { createHash } from "node:crypto";
import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { expect, inject } from "vitest";
import { ErrorEnvelopeSchema } from "../../functions/http/error-schemas.ts";
import { RESPONSE_HEADERS, responseHeadersOf } from "../../functions/http/headers.ts";
import { errorCodesOf, routeFor } from "../../functions/http/registry.ts";
import { loadRoutes } from "../../functions/routes/index.ts";
import { PRISM_RECORDS, type PrismRecord } from "../setup/prism.ts";

const routes = await loadRoutes();

// A small typed fetch against the Worker under test: JSON in, JSON out, status and headers kept.

export type Method = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

export interface ErrorEnvelope {
  success: false;
  version: "v1";
  message: string;
  error: { code: string; requestId: string; field?: string; scope?: string; [detail: string]: unknown };
}

export interface SuccessEnvelope<Data = unknown> {
  success: true;
  version: "v1";
  message?: string;
  /** The organisation's changeVersion the answer is exact for (every success answer carries it). */
  changeVersion: number;
  data: Data;
  count?: number;
  nextCursor?: string | null;
}

export interface ApiOptions {
  /** Sent as `Authorization: Bearer <key>`. */
  key?: string;
  method?: Method;
  /** Serialised with JSON.stringify. */
  body?: unknown;
  /** Sent exactly as given (broken JSON, oversized payloads); wins over `body`. */
  rawBody?: string;
  /** Extra headers; they override the defaults (Content-Type, Authorization). */
  headers?: Record<string, string>;
  /** Another Worker than the harness's (one a test started with settings of its own). */
  baseUrl?: string;
}

export interface ApiResponse<Body = any> {
  status: number;
  headers: Headers;
  /** The parsed JSON body; null when the body was empty or not JSON (see `text`). */
  body: Body;
  text: string;
}

export function workerUrl(): string {
  return inject("workerUrl");
}

/**
 * The client address a request claims (CF-Connecting-IP: Cloudflare sets it in production, and
 * miniflare keeps the one a local client sends): one of its own per test, from the documentation
 * prefix 2001:db8::/32, so the refused keys one test presents never count against another's
 * address (functions/rate-limit/auth-guard.ts). Outside a test, the file's own address.
 */
export function testClientAddress(): string {
  const state = expect.getState();
  const digest = createHash("sha256")
    .update(`${state.testPath ?? ""}\n${state.currentTestName ?? ""}`)
    .digest("hex");
  return `2001:db8:${digest.slice(0, 4)}:${digest.slice(4, 8)}:${digest.slice(8, 12)}:${digest.slice(12, 16)}:${digest.slice(16, 20)}:${digest.slice(20, 24)}`;
}

/**
 * A request the Worker has not answered in a minute fails naming itself: the Worker's own
 * statements give up after 15 s, so a longer wait is a hang, which would otherwise surface only as
 * the test's timeout (undici waits five minutes for headers).
 */
export const REQUEST_TIMEOUT_MS = 60_000;

/** The signal of a test's request: aborted, with the request named, after REQUEST_TIMEOUT_MS. */
export function answerWithin(method: string, path: string): AbortSignal {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new Error(`${method} ${path}: no answer within ${REQUEST_TIMEOUT_MS / 1000} s`)),
    REQUEST_TIMEOUT_MS,
  );
  timer.unref();
  return controller.signal;
}

export async function api<Body = any>(path: string, options: ApiOptions = {}): Promise<ApiResponse<Body>> {
  const headers: Record<string, string> = { accept: "application/json", "cf-connecting-ip": testClientAddress() };
  let payload: string | undefined;
  if (options.rawBody !== undefined) payload = options.rawBody;
  else if (options.body !== undefined) payload = JSON.stringify(options.body);
  if (payload !== undefined) headers["content-type"] = "application/json";
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  Object.assign(headers, options.headers);

  const method = options.method ?? (payload === undefined ? "GET" : "POST");
  const direct = new URL(path, options.baseUrl ?? workerUrl());
  // npm run test:contract: every call to a documented operation goes through Prism (test/setup/prism.ts),
  // but one whose body is not a JSON object or array: Prism answers a body that is not JSON itself
  // (its own 400) instead of forwarding it, and stalls on a PATCH whose body is `null`.
  const operation = inject("prismUrl") && !options.baseUrl && isJsonOrNone(payload) ? routeFor(routes, method, direct.pathname) : undefined;
  const url = operation ? new URL(path, inject("prismUrl")) : direct;
  const response = await fetch(url, { method, headers, body: payload, redirect: "manual", signal: answerWithin(method, path) });
  if (operation) expectNoPrismViolation(operation.operationId, method, direct.pathname, response);
  const text = await response.text();
  let body: Body = null as Body;
  try {
    body = text ? (JSON.parse(text) as Body) : body;
  } catch {
    // Not JSON: leave body null, tests can read `text` (and should fail on the envelope check).
  }
  expectDeclared(method, url.pathname, response.status, body);
  expectHeadersDeclared(method, url.pathname, response.status, response.headers);
  return { status: response.status, headers: response.headers, body, text };
}

function isJsonOrNone(payload: string | undefined): boolean {
  if (payload === undefined) return true;
  try {
    const parsed: unknown = JSON.parse(payload);
    return typeof parsed === "object" && parsed !== null;
  } catch {
    return false;
  }
}

/**
 * What Prism found off the document in this exchange (its sl-violations header): any violation of
 * the answer fails, and so does one of the request when the API accepted it (2xx). Each call is
 * recorded for the run's summary.
 */
function expectNoPrismViolation(operationId: string, method: string, pathname: string, response: Response): void {
  const header = response.headers.get("sl-violations");
  const found: PrismRecord["violations"] = header ? JSON.parse(header) : [];
  // An NDJSON answer (the audit log's export) is a sequence of JSON documents, which OpenAPI 3.1 can
  // only describe by its item's schema (3.2's itemSchema is what would say so) and Prism checks as one
  // body: its body is not Prism's to judge. Its headers still are; test/audit/audit-log.test.ts holds
  // each line equal to the list's entry, whose answer Prism does check against AuditEntry.
  const ndjson = response.headers.get("content-type")?.startsWith("application/x-ndjson") ?? false;
  const violations = found.filter((v) => !(ndjson && v.location[0] === "response" && v.location[1] === "body"));
  mkdirSync(PRISM_RECORDS, { recursive: true });
  appendFileSync(
    join(PRISM_RECORDS, `${process.pid}.jsonl`),
    JSON.stringify({ operationId, status: response.status, violations } satisfies PrismRecord) + "\n",
  );
  const where = `${method} ${pathname} -> ${response.status}`;
  const inAnswer = violations.filter((v) => v.location[0] === "response");
  expect(inAnswer, `${where}: Prism finds the answer off the document`).toEqual([]);
  if (response.status < 300) expect(violations, `${where}: Prism finds the request off the document, yet the API accepted it`).toEqual([]);
}

/** Every header of the API's own (functions/http/headers.ts) that an answer carries is declared for its operation and status. */
function expectHeadersDeclared(method: string, pathname: string, status: number, headers: Headers): void {
  const route = routeFor(routes, method, pathname);
  if (!route || method === "OPTIONS") return;
  const declared = new Set(responseHeadersOf(route, status).map((h) => h.name.toLowerCase()));
  for (const { name } of Object.values(RESPONSE_HEADERS)) {
    if (headers.has(name))
      expect(
        declared.has(name.toLowerCase()),
        `${method} ${pathname} -> ${status}: sends ${name}, which its OpenAPI entry does not declare`,
      ).toBe(true);
  }
}

/**
 * Every answer the tests receive is checked against what its route declares in the registry (from
 * which the OpenAPI document is generated), so the document and the runtime cannot drift: a
 * success is its declared status and parses with its declared schema, with no field the schema
 * does not name; an error is the error envelope with one of the codes the route declares.
 */
function expectDeclared(method: string, pathname: string, status: number, body: unknown): void {
  if (method === "OPTIONS" || body === null) return;
  const route = routeFor(routes, method, pathname);
  const where = `${method} ${pathname} -> ${status}`;
  if (status >= 400) {
    const envelope = ErrorEnvelopeSchema.safeParse(body);
    expect(envelope.success, `${where}: not the error envelope: ${JSON.stringify(body).slice(0, 300)}`).toBe(true);
    if (route && envelope.success)
      expect(errorCodesOf(route), `${where}: a code the route does not declare`).toContain(envelope.data.error.code);
    return;
  }
  if (!route) return;
  const declared = [route.response.status ?? 200, ...(route.response.created ? [201] : [])];
  expect(declared, `${where}: not the route's declared status`).toContain(status);
  const parsed = route.response.schema.safeParse(body);
  expect(
    parsed.success,
    `${where}: off its declared schema: ${parsed.success ? "" : JSON.stringify(parsed.error.issues).slice(0, 500)}`,
  ).toBe(true);
  // zod drops what a schema does not name: what it dropped was a field off the document.
  if (route.operationId !== "getOpenApiDocument") expect(parsed.data, `${where}: a field its declared schema does not name`).toEqual(body);
}

/**
 * Asserts an error response: status, the envelope `{ success:false, version:"v1", message,
 * error:{ code, requestId } }`, the code, and any further `error` fields given (field, scope...).
 * Never the message wording.
 */
export function expectError(
  response: ApiResponse,
  status: number,
  code: string | readonly string[],
  details: Record<string, unknown> = {},
): ErrorEnvelope {
  const body = response.body as ErrorEnvelope;
  const where = `${status} ${String(code)}; got ${response.status} ${response.text.slice(0, 300)}`;
  expect(response.status, where).toBe(status);
  expect(body, where).toMatchObject({
    success: false,
    version: "v1",
    message: expect.any(String),
    error: { code: expect.any(String), requestId: expect.any(String) },
  });
  expect(body.error.requestId.length, "error.requestId is empty").toBeGreaterThan(0);
  if (typeof code === "string") expect(body.error.code, where).toBe(code);
  else expect(code, where).toContain(body.error.code);
  expect(body.error, where).toMatchObject(details);
  expect(body, "an error response carries no data").not.toHaveProperty("data");
  return body;
}

/** Asserts a success envelope with the given status and returns it. */
export function expectSuccess<Data = any>(response: ApiResponse, status = 200): SuccessEnvelope<Data> {
  expect(response.status, `expected ${status}; got ${response.status} ${response.text.slice(0, 300)}`).toBe(status);
  expect(response.body).toMatchObject({ success: true, version: "v1" });
  return response.body as SuccessEnvelope<Data>;
}
