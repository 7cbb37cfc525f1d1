import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { api, expectError, expectSuccess } from "../helpers/api.ts";
import { download, sha256 } from "../helpers/attachments.ts";
import { expectNoTrace, query, snapshot } from "../helpers/database.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { MiB, partsArrived, sendPart, startUpload, workerdRss } from "../helpers/multipart.ts";
import { expectOneWrite } from "../helpers/resources.ts";
import { insertTaskIn } from "../helpers/work.ts";

// Multipart uploads (docs/attachments.md "Large files"): a file past one request's 100 MiB sent
// in parts into wrangler's local R2, each part streamed through the Worker (never the file whole),
// resumed after a lost part, completed into an attachment with attachment.created, and refused
// where the parts, the upload or the quota are wrong, leaving nothing.

const PDF = new TextEncoder().encode("%PDF-1.7\n");

/** `size` random bytes starting as a PDF (so the type is read from the first part). */
function fileOf(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let at = 0; at < size; at += 64 * MiB) bytes.set(randomBytes(Math.min(64 * MiB, size - at)), at);
  bytes.set(PDF);
  return bytes;
}

const partOf = (file: Uint8Array, partSize: number, n: number) => file.subarray((n - 1) * partSize, Math.min(n * partSize, file.length));

describe("a file in parts", () => {
  it("150 MiB in 16 MiB parts, with the Worker's memory flat; downloaded byte-identical; attachment.created once, on completion", async () => {
    const tenant = await createTenant();
    const task = await insertTaskIn(tenant);
    const file = fileOf(150 * MiB);
    const partSize = 16 * MiB;
    const before = await snapshot(tenant.org.id);
    const started = expectSuccess(
      await startUpload(tenant.key, `/v1/tasks/${task}`, { size: file.length, sha256: sha256(file), partSize }),
      201,
    ).data;
    expect(started).toMatchObject({ taskId: task, size: file.length, partSize, partCount: 10, parts: [] });
    const uploadPath = `/v1/tasks/${task}/attachment-uploads/${started.id}`;

    // The harness's workerd runs the Worker and, in the same process, wrangler's local R2, whose write
    // path holds what it writes for a while (bench/results/README.md "Files"), so while the parts go
    // the process's memory is the store's as much as the Worker's. Completing writes nothing new: R2
    // joins the parts, and the Worker reads the whole file back through its SHA-256 check. A Worker
    // that held the file would rise by 150 MiB there; one that streams by a few chunks.
    const rss = workerdRss();
    const baseline = rss();
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, rss())), 10);
    let beforeComplete: number;
    let partsPeak: number;
    try {
      for (let n = 1; n <= 10; n++) expectSuccess(await sendPart(tenant.key, uploadPath, n, partOf(file, partSize, n)));
      // No event, no record, until it completes.
      expect((await snapshot(tenant.org.id)).events).toBe(before.events);
      partsPeak = peak;
      beforeComplete = peak = rss();
      const created = expectSuccess(await api(`${uploadPath}/complete`, { key: tenant.key, method: "POST" }), 201).data;
      expect(created).toMatchObject({ taskId: task, size: file.length, sha256: sha256(file), contentType: "application/pdf" });
      const event = await expectOneWrite(tenant.org.id, before, "attachment.created");
      expect(event.data).toEqual(created);
    } finally {
      clearInterval(sampler);
    }
    const figures =
      `workerd resident memory: ${baseline.toFixed(0)} MiB before, peak ${partsPeak.toFixed(0)} MiB while 150 MiB of parts went (the Worker and the local R2), ` +
      `${beforeComplete.toFixed(0)} MiB before completing, peak ${peak.toFixed(0)} MiB while the Worker read the 150 MiB back`;
    console.log(figures);
    // Half the file: a Worker that held it would rise by all of it.
    expect(peak - beforeComplete, figures).toBeLessThan(75);

    const [attachment] = expectSuccess(await api(`/v1/tasks/${task}/attachments`, { key: tenant.key })).data;
    const link = expectSuccess(await api(`/v1/tasks/${task}/attachments/${attachment.id}`, { key: tenant.key })).data.downloadUrl;
    const got = await download(link);
    expect(got.bytes.length).toBe(file.length);
    expect(sha256(got.bytes)).toBe(sha256(file));
    // The upload is gone: a second complete finds nothing.
    expectError(await api(`${uploadPath}/complete`, { key: tenant.key, method: "POST" }), 404, "not_found");
    const self = expectSuccess(await api("/v1", { key: tenant.key })) as unknown as { attachments: { usedBytes: number } };
    expect(self.attachments.usedBytes).toBe(file.length);
  }, 240_000);

  it("a part lost on the way: the client lists what arrived, resends it, completes", async () => {
    const tenant = await createTenant();
    const task = await insertTaskIn(tenant);
    const partSize = 5 * MiB;
    const file = fileOf(12 * MiB);
    const started = expectSuccess(
      await startUpload(tenant.key, `/v1/tasks/${task}`, { size: file.length, sha256: sha256(file), partSize }),
      201,
    ).data;
    const uploadPath = `/v1/tasks/${task}/attachment-uploads/${started.id}`;
    expectSuccess(await sendPart(tenant.key, uploadPath, 1, partOf(file, partSize, 1)));
    // Part 2 is cut off mid-way: the connection drops after half of it.
    const half = partOf(file, partSize, 2).subarray(0, partSize / 2);
    const cut = await fetchCut(tenant.key, `${uploadPath}/parts/2?sha256=${sha256(partOf(file, partSize, 2))}`, half, partSize);
    expect(cut).not.toBe(200);
    expectSuccess(await sendPart(tenant.key, uploadPath, 3, partOf(file, partSize, 3)));
    // Completing now is refused, naming the part missing, and takes nothing.
    const refused = expectError(await api(`${uploadPath}/complete`, { key: tenant.key, method: "POST" }), 409, "conflict");
    expect(refused.error.missingParts).toEqual([2]);
    expect(await partsArrived(tenant.key, uploadPath)).toEqual([1, 3]);
    expectSuccess(await sendPart(tenant.key, uploadPath, 2, partOf(file, partSize, 2)));
    expect(await partsArrived(tenant.key, uploadPath)).toEqual([1, 2, 3]);
    const created = expectSuccess(await api(`${uploadPath}/complete`, { key: tenant.key, method: "POST" }), 201).data;
    expect(created.sha256).toBe(sha256(file));
    const got = await download(
      expectSuccess(await api(`/v1/tasks/${task}/attachments/${created.id}`, { key: tenant.key })).data.downloadUrl,
    );
    expect(sha256(got.bytes)).toBe(sha256(file));
  }, 60_000);
});

/** Sends `bytes` of a body that says `length`, then drops the connection: answers the status, or 0 when none came. */
async function fetchCut(key: string, path: string, bytes: Uint8Array, length: number): Promise<number> {
  const { request } = await import("node:http");
  const { workerUrl, testClientAddress } = await import("../helpers/api.ts");
  const url = new URL(path, workerUrl());
  return new Promise((resolve) => {
    const req = request(url, {
      method: "PUT",
      headers: { authorization: `Bearer ${key}`, "content-length": String(length), "cf-connecting-ip": testClientAddress() },
    });
    req.on("response", (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", () => resolve(0));
    req.write(bytes, () => setTimeout(() => req.destroy(), 200));
  });
}

describe("refusals", () => {
  it("a part size under 5 MiB, a part too short or of another SHA-256, a part past the last: refused, nothing kept", async () => {
    const tenant = await createTenant();
    const task = await insertTaskIn(tenant);
    const before = await snapshot(tenant.org.id);
    const file = fileOf(11 * MiB);
    const stated = { size: file.length, sha256: sha256(file) };
    expectError(await startUpload(tenant.key, `/v1/tasks/${task}`, { ...stated, partSize: 4 * MiB }), 400, "invalid_field", {
      field: "partSize",
    });
    expectNoTrace(before, await snapshot(tenant.org.id));

    const partSize = 5 * MiB;
    const started = expectSuccess(await startUpload(tenant.key, `/v1/tasks/${task}`, { ...stated, partSize }), 201).data;
    const uploadPath = `/v1/tasks/${task}/attachment-uploads/${started.id}`;
    const afterStart = await snapshot(tenant.org.id);
    // A part shorter than its place says (every part but the last is partSize).
    expectError(await sendPart(tenant.key, uploadPath, 1, partOf(file, partSize, 1).subarray(0, MiB)), 400, "invalid_field", {
      field: "size",
    });
    // Another SHA-256 than stated.
    expectError(await sendPart(tenant.key, uploadPath, 1, partOf(file, partSize, 1), { sha256: sha256(PDF) }), 400, "invalid_field", {
      field: "sha256",
    });
    // Past the last part (11 MiB in 5 MiB parts: 3).
    expectError(await sendPart(tenant.key, uploadPath, 4, partOf(file, partSize, 3)), 400, "invalid_field", { field: "partNumber" });
    expectNoTrace(afterStart, await snapshot(tenant.org.id));
    expect(await partsArrived(tenant.key, uploadPath)).toEqual([]);
    // Complete with every part missing.
    const refused = expectError(await api(`${uploadPath}/complete`, { key: tenant.key, method: "POST" }), 409, "conflict");
    expect(refused.error.missingParts).toEqual([1, 2, 3]);
    expectNoTrace(afterStart, await snapshot(tenant.org.id));
  }, 60_000);

  it("a wrong upload id, another record's, another organisation's: not found; a reader cannot send parts", async () => {
    const [a, b] = [await createTenant(), await createTenant()];
    const task = await insertTaskIn(a);
    const file = fileOf(6 * MiB);
    const started = expectSuccess(
      await startUpload(a.key, `/v1/tasks/${task}`, { size: file.length, sha256: sha256(file), partSize: 5 * MiB }),
      201,
    ).data;
    const uploadPath = `/v1/tasks/${task}/attachment-uploads/${started.id}`;
    const reader = await a.keyWith(["tasks.read"]);
    const other = await insertTaskIn(a);
    const before = await snapshot(a.org.id);
    const wrong = `/v1/tasks/${task}/attachment-uploads/${crypto.randomUUID()}`;
    expectError(await sendPart(a.key, wrong, 1, partOf(file, 5 * MiB, 1)), 404, "not_found");
    expectError(await api(`${wrong}/complete`, { key: a.key, method: "POST" }), 404, "not_found");
    expectError(await api(wrong, { key: a.key, method: "DELETE" }), 404, "not_found");
    // Under another task of the same organisation.
    expectError(await api(`/v1/tasks/${other}/attachment-uploads/${started.id}`, { key: a.key }), 404, "not_found");
    // Organisation B.
    expectError(await api(uploadPath, { key: b.key }), 404, "not_found");
    expectError(await sendPart(b.key, uploadPath, 1, partOf(file, 5 * MiB, 1)), 404, "not_found");
    expectError(await api(`${uploadPath}/complete`, { key: b.key, method: "POST" }), 404, "not_found");
    expectError(await api(uploadPath, { key: b.key, method: "DELETE" }), 404, "not_found");
    expectError(await sendPart(reader.key, uploadPath, 1, partOf(file, 5 * MiB, 1)), 403, "insufficient_scope", { scope: "tasks.manage" });
    expectError(
      await startUpload(reader.key, `/v1/tasks/${task}`, { size: 6 * MiB, sha256: sha256(file), partSize: 5 * MiB }),
      403,
      "insufficient_scope",
    );
    expectNoTrace(before, await snapshot(a.org.id));
    // The owner aborts it: gone.
    expectSuccess(await api(uploadPath, { key: a.key, method: "DELETE" }));
    expectError(await api(uploadPath, { key: a.key }), 404, "not_found");
  }, 60_000);

  it("over the quota, counting uploads under way: 413 at the start, nothing kept; a file that no longer fits is refused at completion", async () => {
    const tenant = await createTenant();
    const task = await insertTaskIn(tenant);
    const file = fileOf(6 * MiB);
    const stated = { size: file.length, sha256: sha256(file), partSize: 5 * MiB };
    await query("update organisations set attachment_quota_bytes = $2 where id = $1", [tenant.org.id, 10 * MiB]);
    const started = expectSuccess(await startUpload(tenant.key, `/v1/tasks/${task}`, stated), 201).data;
    const before = await snapshot(tenant.org.id);
    // The first upload holds 6 MiB of the 10: a second does not fit.
    expectError(await startUpload(tenant.key, `/v1/tasks/${task}`, stated), 413, "payload_too_large", { field: "size" });
    expectNoTrace(before, await snapshot(tenant.org.id));
    const uploadPath = `/v1/tasks/${task}/attachment-uploads/${started.id}`;
    expectSuccess(await sendPart(tenant.key, uploadPath, 1, partOf(file, 5 * MiB, 1)));
    expectSuccess(await sendPart(tenant.key, uploadPath, 2, partOf(file, 5 * MiB, 2)));
    // The quota shrinks meanwhile: completing is refused, and nothing is kept.
    await query("update organisations set attachment_quota_bytes = $2 where id = $1", [tenant.org.id, MiB]);
    const beforeComplete = await snapshot(tenant.org.id);
    expectError(await api(`${uploadPath}/complete`, { key: tenant.key, method: "POST" }), 413, "payload_too_large", { field: "size" });
    const after = await snapshot(tenant.org.id);
    expect(after.events).toBe(beforeComplete.events);
    expect(after.rows.attachments ?? 0).toBe(0);
    expect(after.rows.attachment_uploads ?? 0).toBe(0);
  }, 60_000);

  it("a file whose parts are whole but whose SHA-256 is not the one stated: refused at completion, nothing kept", async () => {
    const tenant = await createTenant();
    const task = await insertTaskIn(tenant);
    const file = fileOf(6 * MiB);
    const started = expectSuccess(
      await startUpload(tenant.key, `/v1/tasks/${task}`, { size: file.length, sha256: sha256(PDF), partSize: 5 * MiB }),
      201,
    ).data;
    const uploadPath = `/v1/tasks/${task}/attachment-uploads/${started.id}`;
    expectSuccess(await sendPart(tenant.key, uploadPath, 1, partOf(file, 5 * MiB, 1)));
    expectSuccess(await sendPart(tenant.key, uploadPath, 2, partOf(file, 5 * MiB, 2)));
    const before = await snapshot(tenant.org.id);
    expectError(await api(`${uploadPath}/complete`, { key: tenant.key, method: "POST" }), 400, "invalid_field", { field: "sha256" });
    const after = await snapshot(tenant.org.id);
    expect([after.events, after.rows.attachments ?? 0, after.rows.attachment_uploads ?? 0]).toEqual([before.events, 0, 0]);
  }, 60_000);
});

describe("the sweep", () => {
  it("aborts an upload nobody touched for 24 hours", async () => {
    const tenant = await createTenant();
    const task = await insertTaskIn(tenant);
    const file = fileOf(6 * MiB);
    const started = expectSuccess(
      await startUpload(tenant.key, `/v1/tasks/${task}`, { size: file.length, sha256: sha256(file), partSize: 5 * MiB }),
      201,
    ).data;
    const uploadPath = `/v1/tasks/${task}/attachment-uploads/${started.id}`;
    expectSuccess(await sendPart(tenant.key, uploadPath, 1, partOf(file, 5 * MiB, 1)));
    await query("update attachment_uploads set updated_at = now() - interval '25 hours' where id = $1", [started.id]);
    const { runSweep } = await import("../helpers/realtime.ts");
    await runSweep();
    // The sweep runs after the scheduled handler answers.
    await expect.poll(async () => (await api(uploadPath, { key: tenant.key })).status, { timeout: 15_000 }).toBe(404);
  }, 60_000);
});
