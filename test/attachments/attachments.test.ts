import { describe, expect, inject, it } from "vitest";
import { signDownload } from "../../domain/crypto/download-url.ts";
import { api, expectError, expectSuccess } from "../helpers/api.ts";
import { download, pngBytes, sha256, upload } from "../helpers/attachments.ts";
import { expectNoTrace, query, snapshot } from "../helpers/database.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { insertFinancialEntry, insertIssue, insertRisk } from "../helpers/project-records.ts";
import { expectOneWrite } from "../helpers/resources.ts";
import { insertComment, insertTaskIn } from "../helpers/work.ts";

// Attachments (docs/attachments.md): files on tasks, comments, risks, issues and financial
// entries, streamed into the Worker's R2 (wrangler's local R2 here), checked against the size and
// SHA-256 stated, served by signed links that expire, with the parent record's scopes.

const MiB = 1024 * 1024;

describe("a file on a task", () => {
  it("1 MiB uploaded and downloaded byte-identical; its type read from the bytes; attachment.created for tasks.read", async () => {
    const tenant = await createTenant({ application: "Site camera" });
    const task = await insertTaskIn(tenant);
    const bytes = pngBytes(MiB);
    const before = await snapshot(tenant.org.id);
    // The client calls it text/plain; the bytes say PNG.
    const created = expectSuccess(await upload(tenant.key, `/v1/tasks/${task}/attachments`, bytes, { name: "façade.png" }), 201).data;
    expect(created).toMatchObject({
      taskId: task,
      commentId: null,
      name: "façade.png",
      size: MiB,
      sha256: sha256(bytes),
      contentType: "image/png",
      uploader: { type: "key", id: tenant.keyId, name: "Site camera" },
    });
    const event = await expectOneWrite(tenant.org.id, before, "attachment.created");
    expect([event.scope, event.data]).toEqual(["tasks.read", created]);

    const list = expectSuccess(await api(`/v1/tasks/${task}/attachments`, { key: tenant.key }));
    expect(list.data).toEqual([created]);
    const one = expectSuccess(await api(`/v1/tasks/${task}/attachments/${created.id}`, { key: tenant.key })).data;
    expect(Date.parse(one.downloadExpiresAt) - Date.now()).toBeGreaterThan(14 * 60_000);
    const got = await download(one.downloadUrl);
    expect(got.status).toBe(200);
    expect(Buffer.from(got.bytes).equals(Buffer.from(bytes))).toBe(true);
    expect(got.headers.get("content-type")).toBe("image/png");
    expect(got.headers.get("content-disposition")).toBe(`attachment; filename="fa_ade.png"; filename*=UTF-8''fa%C3%A7ade.png`);
    expect(got.headers.get("x-content-type-options")).toBe("nosniff");
    expect(got.headers.get("content-security-policy")).toMatch(/^sandbox; default-src 'none'/);

    // Inline by choice, for an image.
    const inline = expectSuccess(await api(`/v1/tasks/${task}/attachments/${created.id}?inline=true`, { key: tenant.key })).data;
    expect((await download(inline.downloadUrl)).headers.get("content-disposition")).toMatch(/^inline; /);
  });

  it("every kind of record holds files, each read and written with its own scopes", async () => {
    const tenant = await createTenant();
    const task = await insertTaskIn(tenant);
    const parents = {
      tasks: task,
      comments: await insertComment(tenant, task),
      risks: await insertRisk(tenant),
      issues: await insertIssue(tenant),
      "financial-entries": await insertFinancialEntry(tenant),
    };
    const scopes = { tasks: "tasks", comments: "tasks", risks: "risks", issues: "issues", "financial-entries": "financials" } as const;
    for (const [path, id] of Object.entries(parents) as [keyof typeof scopes, string][]) {
      const text = new TextEncoder().encode(`notes for ${path}`);
      const reader = await tenant.keyWith([`${scopes[path]}.read`]);
      // Reading is not enough to attach; the record's own manage scope is.
      expectError(await upload(reader.key, `/v1/${path}/${id}/attachments`, text), 403, "insufficient_scope", {
        scope: `${scopes[path]}.manage`,
      });
      const writer = await tenant.keyWith([`${scopes[path]}.manage`]);
      const created = expectSuccess(await upload(writer.key, `/v1/${path}/${id}/attachments`, text, { name: "notes.txt" }), 201).data;
      expect(created.contentType).toBe("text/plain");
      expect(expectSuccess(await api(`/v1/${path}/${id}/attachments`, { key: reader.key })).data).toEqual([created]);
      // Another record kind's scope sees nothing of it.
      const other = await tenant.keyWith([path === "risks" ? "issues.read" : "risks.read"]);
      expectError(await api(`/v1/${path}/${id}/attachments`, { key: other.key }), 403, "insufficient_scope");
    }
  }, 60_000);
});

describe("refusals leave nothing", () => {
  it("a body of another SHA-256 or size than stated is refused, and nothing is kept", async () => {
    const tenant = await createTenant();
    const task = await insertTaskIn(tenant);
    const path = `/v1/tasks/${task}/attachments`;
    const bytes = pngBytes(256 * 1024);
    const before = await snapshot(tenant.org.id);
    expectError(await upload(tenant.key, path, bytes, { sha256: sha256(pngBytes(10)) }), 400, "invalid_field", { field: "sha256" });
    // Content-Length differs from the size stated.
    expectError(await upload(tenant.key, path, bytes, { size: bytes.length + 1 }), 400, "invalid_field", { field: "size" });
    // A chunked body shorter, then longer, than stated.
    const stream = (b: Uint8Array) => new Blob([b as BlobPart]).stream();
    expectError(await upload(tenant.key, path, stream(bytes), { size: bytes.length + 10, sha256: sha256(bytes) }), 400, "invalid_field", {
      field: "size",
    });
    expectError(await upload(tenant.key, path, stream(bytes), { size: bytes.length - 10, sha256: sha256(bytes) }), 400, "invalid_field", {
      field: "size",
    });
    expectNoTrace(before, await snapshot(tenant.org.id));
  });

  it("past the organisation's quota: 413, nothing kept; GET /v1 says what is used", async () => {
    const tenant = await createTenant();
    const task = await insertTaskIn(tenant);
    await query("update organisations set attachment_quota_bytes = 1000 where id = $1", [tenant.org.id]);
    expectSuccess(await upload(tenant.key, `/v1/tasks/${task}/attachments`, pngBytes(600)), 201);
    const before = await snapshot(tenant.org.id);
    expectError(await upload(tenant.key, `/v1/tasks/${task}/attachments`, pngBytes(600)), 413, "payload_too_large", { field: "size" });
    expectNoTrace(before, await snapshot(tenant.org.id));
  });

  it("another organisation's record is not found, its files not listed", async () => {
    const [a, b] = [await createTenant(), await createTenant()];
    const task = await insertTaskIn(a);
    const created = expectSuccess(await upload(a.key, `/v1/tasks/${task}/attachments`, pngBytes(100)), 201).data;
    expectError(await upload(b.key, `/v1/tasks/${task}/attachments`, pngBytes(100)), 404, "not_found");
    expectError(await api(`/v1/tasks/${task}/attachments`, { key: b.key }), 404, "not_found");
    expectError(await api(`/v1/tasks/${task}/attachments/${created.id}`, { key: b.key }), 404, "not_found");
    expectError(await api(`/v1/tasks/${task}/attachments/${created.id}`, { key: b.key, method: "DELETE" }), 404, "not_found");
    // Under another record of the right organisation, it is not found either.
    const risk = await insertRisk(a);
    expectError(await api(`/v1/risks/${risk}/attachments/${created.id}`, { key: a.key }), 404, "not_found");
  });
});

describe("download links", () => {
  it("a link altered, expired, or signed for another organisation is refused", async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const task = await insertTaskIn(tenant);
    const created = expectSuccess(await upload(tenant.key, `/v1/tasks/${task}/attachments`, pngBytes(100)), 201).data;
    const { downloadUrl } = expectSuccess(await api(`/v1/tasks/${task}/attachments/${created.id}`, { key: tenant.key })).data;
    expect((await download(downloadUrl)).status).toBe(200);
    const url = new URL(downloadUrl);
    const altered = new URL(url);
    altered.searchParams.set("expires", String(Number(url.searchParams.get("expires")) + 3600));
    expect((await download(altered.toString())).status).toBe(404);
    const secret = inject("filesSecret");
    const signed = async (orgId: string, expires: number) => {
      const link = new URL(url);
      link.searchParams.set("expires", String(expires));
      link.searchParams.set("signature", await signDownload(secret, { orgId, attachmentId: created.id, expires, inline: false }));
      return link.toString();
    };
    const now = Math.floor(Date.now() / 1000);
    expect((await download(await signed(tenant.org.id, now + 60))).status).toBe(200);
    expect((await download(await signed(tenant.org.id, now - 1))).status).toBe(404);
    expect((await download(await signed(other.org.id, now + 60))).status).toBe(404);
  });
});
