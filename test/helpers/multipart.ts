import { readFileSync } from "node:fs";
import { expect } from "vitest";
import { commandLine, processTree, readAllProcesses } from "../../bench/cpu/procs.ts";
import { ErrorEnvelopeSchema } from "../../functions/http/error-schemas.ts";
import { UploadSchema } from "../../functions/schemas/attachments.ts";
import { answerWithin, api, expectSuccess, testClientAddress, workerUrl, type ApiResponse } from "./api.ts";
import { sha256 } from "./attachments.ts";

// Multipart uploads to the Worker under test (docs/attachments.md "Large files"): start one,
// send its parts (bytes, each with its SHA-256 in the query), and the Worker's memory meanwhile.

export const MiB = 1024 * 1024;

/** POST .../attachment-uploads: the upload, as JSON. */
export async function startUpload(
  key: string,
  collection: string,
  file: { name?: string; size: number; sha256: string; partSize: number },
) {
  return api(`${collection}/attachment-uploads`, { key, method: "POST", body: { name: "big.bin", ...file } });
}

/** PUT one part's bytes. */
export async function sendPart(
  key: string,
  uploadPath: string,
  partNumber: number,
  bytes: Uint8Array,
  options: { sha256?: string } = {},
): Promise<ApiResponse> {
  const path = `${uploadPath}/parts/${partNumber}`;
  const response = await fetch(new URL(`${path}?sha256=${options.sha256 ?? sha256(bytes)}`, workerUrl()), {
    method: "PUT",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/octet-stream", "cf-connecting-ip": testClientAddress() },
    body: bytes as BodyInit,
    signal: answerWithin("PUT", path),
  });
  const text = await response.text();
  const parsed = text ? JSON.parse(text) : null;
  if (response.status < 300) expect(UploadSchema.shape.parts.element.safeParse(parsed?.data).success, text.slice(0, 300)).toBe(true);
  else expect(ErrorEnvelopeSchema.safeParse(parsed).success, text.slice(0, 300)).toBe(true);
  return { status: response.status, headers: response.headers, body: parsed, text };
}

/** The upload's parts that arrived, by GET. */
export async function partsArrived(key: string, uploadPath: string): Promise<number[]> {
  const upload = expectSuccess(await api(uploadPath, { key })).data;
  return upload.parts.map((p: { partNumber: number }) => p.partNumber);
}

/**
 * The resident memory of the harness's workerd processes (the Worker under test among them), in
 * MiB: those under this run's topmost vitest process, so another run's on the machine are not counted.
 */
export function workerdRss(): () => number {
  const all = readAllProcesses();
  let root = process.pid;
  for (let pid = process.pid; all.get(pid); pid = all.get(pid)!.ppid) if (/vitest/.test(commandLine(pid))) root = pid;
  const pids = processTree(root, all)
    .filter((p) => p.name === "workerd")
    .map((p) => p.pid);
  if (pids.length === 0) throw new Error("no workerd under this test run");
  const rss = (pid: number) => {
    try {
      return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
    } catch {
      return 0;
    }
  };
  return () => pids.reduce((sum, pid) => sum + rss(pid), 0);
}
