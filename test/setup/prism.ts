import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startService, type ServiceProcess } from "../../cli/dev/child-process.ts";
import { reserveFreePort } from "../../cli/dev/ports.ts";
import { waitForHttp } from "../../cli/dev/readiness.ts";
import { localBin, PROJECT_ROOT } from "../../cli/lib/paths.ts";

// `npm run test:contract`: Stoplight's Prism, a validating proxy nobody here wrote, in front of the
// Worker. With OPSROOM_VIA_PRISM=1 the global setup starts it on client/openapi.json, and the
// tests' api() sends every call to a documented operation through it (test/helpers/api.ts). Prism
// forwards each request as it is (--errors=false) and reports what is off the document in the
// `sl-violations` header: api() fails the test on any violation of an answer, and on a request
// violation that the API nevertheless answered 2xx (the document would then be stricter than the
// API). A request violation answered 4xx is a test sending a bad request on purpose.

/** Each test process appends what Prism saw here, one JSON line per call. */
export const PRISM_RECORDS = join(PROJECT_ROOT, "test", "artifacts", "prism");
export const PRISM_SUMMARY = join(PROJECT_ROOT, "test", "artifacts", "prism-summary.json");

export interface PrismProxy {
  url: string;
  dispose(): Promise<void>;
}

export async function startPrism(upstream: string): Promise<PrismProxy> {
  rmSync(PRISM_RECORDS, { recursive: true, force: true });
  mkdirSync(PRISM_RECORDS, { recursive: true });
  const port = await reserveFreePort();
  const prism: ServiceProcess = startService({
    name: "prism",
    command: localBin("prism"),
    // Its own CORS headers off: the API's pass through as they are.
    args: [
      "proxy",
      "client/openapi.json",
      upstream,
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
      "--errors=false",
      "--cors=false",
      "--verboseLevel",
      "warn",
    ],
    // A connection per forward to the Worker (prism-agent.mjs says why).
    env: { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import ${join(PROJECT_ROOT, "test", "setup", "prism-agent.mjs")}`.trim() },
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    // Any answer means it listens (GET /v1 without a key is 401, forwarded).
    await waitForHttp(`${url}/v1/openapi.json`, { timeoutMs: 60_000, abandon: prism.exited });
  } catch (error) {
    await prism.stop();
    throw new Error(`prism did not start: ${(error as Error).message}\n${prism.keptOutput()}`, { cause: error });
  }
  return { url, dispose: () => prism.stop() };
}

export interface PrismRecord {
  operationId: string;
  status: number;
  violations: { location: string[]; severity: string; code: string | number; message: string }[];
}

/** Adds up what the test processes recorded; writes and answers the summary. */
export function summarisePrism(operationIds: string[]): {
  requests: number;
  operationsCovered: number;
  operations: number;
  responseViolations: number;
  acceptedRequestViolations: number;
  refusedRequestViolations: number;
  uncovered: string[];
} {
  const records: PrismRecord[] = existsSync(PRISM_RECORDS)
    ? readdirSync(PRISM_RECORDS).flatMap((file) =>
        readFileSync(join(PRISM_RECORDS, file), "utf8")
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line) as PrismRecord),
      )
    : [];
  const covered = new Set(records.map((r) => r.operationId));
  const isResponse = (v: PrismRecord["violations"][number]) => v.location[0] === "response";
  const summary = {
    requests: records.length,
    operationsCovered: covered.size,
    operations: operationIds.length,
    responseViolations: records.reduce((n, r) => n + r.violations.filter(isResponse).length, 0),
    acceptedRequestViolations: records
      .filter((r) => r.status < 300)
      .reduce((n, r) => n + r.violations.filter((v) => !isResponse(v)).length, 0),
    refusedRequestViolations: records
      .filter((r) => r.status >= 300)
      .reduce((n, r) => n + r.violations.filter((v) => !isResponse(v)).length, 0),
    uncovered: operationIds.filter((id) => !covered.has(id)),
  };
  writeFileSync(PRISM_SUMMARY, JSON.stringify(summary, null, 2) + "\n");
  return summary;
}
