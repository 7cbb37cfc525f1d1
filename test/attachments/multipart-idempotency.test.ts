import { describe, expect, it } from "vitest";
import { api, expectError, expectSuccess } from "../helpers/api.ts";
import { sha256 } from "../helpers/attachments.ts";
import { expectNoTrace, query, snapshot } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { MiB, sendPart } from "../helpers/multipart.ts";
import { unique } from "../helpers/resources.ts";
import { insertTaskIn } from "../helpers/work.ts";

// A multipart upload's start and complete with an Idempotency-Key (docs/attachments.md "Large
// files"): a retried start is the same upload, its size held against the quota once; a retried
// complete is the same attachment, counted once; the key with another request is refused and
// leaves nothing. Every kind of record's routes: test/protection/idempotency.test.ts.

const start = (tenant: Tenant, task: string, body: Record<string, unknown>, key?: string) =>
  api(`/v1/tasks/${task}/attachment-uploads`, { key: tenant.key, body, ...(key ? { headers: { "idempotency-key": key } } : {}) });

const complete = (tenant: Tenant, path: string, key?: string) =>
  api(`${path}/complete`, { key: tenant.key, method: "POST", ...(key ? { headers: { "idempotency-key": key } } : {}) });

const uploadRows = async (orgId: string) =>
  (await query<{ id: string }>("select id from attachment_uploads where org_id = $1 order by id", [orgId])).map((r) => r.id);

const usedBytes = async (tenant: Tenant) =>
  (expectSuccess(await api("/v1", { key: tenant.key })) as unknown as { attachments: { usedBytes: number } }).attachments.usedBytes;

describe("a multipart start with an Idempotency-Key", () => {
  it("retried, is the same upload with its size held once: the quota that fits one file still refuses a second", async () => {
    const tenant = await createTenant();
    const task = await insertTaskIn(tenant);
    const file = { name: "big.bin", size: 60 * MiB, sha256: sha256(new TextEncoder().encode(unique())), partSize: 5 * MiB };
    await query("update organisations set attachment_quota_bytes = $2 where id = $1", [tenant.org.id, 100 * MiB]);
    const key = `start-${unique()}`;
    const first = await start(tenant, task, file, key);
    const upload = expectSuccess(first, 201).data;
    const afterFirst = await snapshot(tenant.org.id);
    // Held once: the retry is answered before the quota is asked, so 60 + 60 past 100 MiB does not refuse it.
    const retried = await start(tenant, task, file, key);
    expect(expectSuccess(retried, 201).data).toEqual(upload);
    expect(retried.headers.get("idempotent-replayed")).toBe("true");
    expect(retried.text).toBe(first.text);
    expectNoTrace(afterFirst, await snapshot(tenant.org.id));
    expect(await uploadRows(tenant.org.id)).toEqual([upload.id]);
    // A second upload (another key) does not fit beside the first.
    expectError(await start(tenant, task, file, `start-other-${unique()}`), 413, "payload_too_large", { field: "size" });
    expectNoTrace(afterFirst, await snapshot(tenant.org.id));
  });

  it("the key with another file: 422 idempotency_mismatch, nothing written; a refused first attempt is not remembered", async () => {
    const tenant = await createTenant();
    const task = await insertTaskIn(tenant);
    const file = { name: "big.bin", size: 6 * MiB, sha256: sha256(new TextEncoder().encode(unique())), partSize: 5 * MiB };
    const key = `start-mismatch-${unique()}`;
    expectSuccess(await start(tenant, task, file, key), 201);
    const otherTask = await insertTaskIn(tenant);
    const before = await snapshot(tenant.org.id);
    expectError(await start(tenant, task, { ...file, size: 7 * MiB }, key), 422, "idempotency_mismatch", { field: "Idempotency-Key" });
    expectError(await start(tenant, otherTask, file, key), 422, "idempotency_mismatch");
    // A key of this start's on a complete (another request): 422, and the key's upload is not taken.
    const [row] = await uploadRows(tenant.org.id);
    const path = `/v1/tasks/${task}/attachment-uploads/${row}`;
    expectError(await complete(tenant, path, key), 422, "idempotency_mismatch");
    expectNoTrace(before, await snapshot(tenant.org.id));

    // Past the quota, the first attempt is refused and its key left free: the same key starts once it fits.
    await query("update organisations set attachment_quota_bytes = $2 where id = $1", [tenant.org.id, 8 * MiB]);
    const later = `start-later-${unique()}`;
    expectError(await start(tenant, task, file, later), 413, "payload_too_large");
    await query("update organisations set attachment_quota_bytes = $2 where id = $1", [tenant.org.id, 100 * MiB]);
    const started = await start(tenant, task, file, later);
    expectSuccess(started, 201);
    expect(started.headers.get("idempotent-replayed")).toBeNull();
  });

  it("a malformed key is 400 invalid_field, before anything is started", async () => {
    const tenant = await createTenant();
    const task = await insertTaskIn(tenant);
    const before = await snapshot(tenant.org.id);
    const file = { name: "big.bin", size: 6 * MiB, sha256: sha256(new TextEncoder().encode(unique())), partSize: 5 * MiB };
    expectError(await start(tenant, task, file, "two words"), 400, "invalid_field", { field: "Idempotency-Key" });
    expectNoTrace(before, await snapshot(tenant.org.id));
  });
});

describe("a multipart complete with an Idempotency-Key", () => {
  it("retried after its answer was lost: the same attachment, counted once, one attachment.created", async () => {
    const tenant = await createTenant();
    const task = await insertTaskIn(tenant);
    const bytes = new TextEncoder().encode(`%PDF-1.7\n${unique()}`);
    const upload = expectSuccess(
      await start(tenant, task, { name: "one.pdf", size: bytes.length, sha256: sha256(bytes), partSize: 5 * MiB }),
      201,
    ).data;
    const path = `/v1/tasks/${task}/attachment-uploads/${upload.id}`;
    expectSuccess(await sendPart(tenant.key, path, 1, bytes));
    const key = `complete-${unique()}`;
    const first = await complete(tenant, path, key);
    const attachment = expectSuccess(first, 201).data;
    expect(attachment).toMatchObject({ taskId: task, name: "one.pdf", size: bytes.length, contentType: "application/pdf" });
    const afterFirst = await snapshot(tenant.org.id);
    const retried = await complete(tenant, path, key);
    expect(retried.status).toBe(201);
    expect(retried.headers.get("idempotent-replayed")).toBe("true");
    expect(retried.headers.get("etag")).toBe(first.headers.get("etag"));
    expect(retried.text).toBe(first.text);
    expectNoTrace(afterFirst, await snapshot(tenant.org.id));
    expect(await usedBytes(tenant)).toBe(bytes.length);
    const listed = expectSuccess(await api(`/v1/tasks/${task}/attachments`, { key: tenant.key })).data;
    expect(listed.map((a: { id: string }) => a.id)).toEqual([attachment.id]);
  });

  it("refused for missing parts, the key is not remembered: sent with the part, the same key completes", async () => {
    const tenant = await createTenant();
    const task = await insertTaskIn(tenant);
    const bytes = new TextEncoder().encode(`parts ${unique()}`);
    const upload = expectSuccess(
      await start(tenant, task, { name: "one.bin", size: bytes.length, sha256: sha256(bytes), partSize: 5 * MiB }),
      201,
    ).data;
    const path = `/v1/tasks/${task}/attachment-uploads/${upload.id}`;
    const key = `complete-early-${unique()}`;
    const before = await snapshot(tenant.org.id);
    const refused = expectError(await complete(tenant, path, key), 409, "conflict");
    expect(refused.error.missingParts).toEqual([1]);
    expectNoTrace(before, await snapshot(tenant.org.id));
    expectSuccess(await sendPart(tenant.key, path, 1, bytes));
    const done = await complete(tenant, path, key);
    expectSuccess(done, 201);
    expect(done.headers.get("idempotent-replayed")).toBeNull();
  });
});
