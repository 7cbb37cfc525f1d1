import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MCP_FILE_BYTES } from "../../domain/attachments.ts";
import { api, expectSuccess } from "../helpers/api.ts";
import { download, pngBytes, sha256 } from "../helpers/attachments.ts";
import { expectNoTrace, snapshot } from "../helpers/database.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { startProductionWorker } from "../helpers/production-worker.ts";
import { insertRisk } from "../helpers/project-records.ts";
import { insertTaskIn } from "../helpers/work.ts";
import { startFileServer, type FileServer } from "./file-server.ts";
import { connectMcp } from "./helpers.ts";

// The MCP file tools (docs/mcp.md "Files"): attach<Record>FromUrl has the Worker fetch a URL the
// agent gives, under the webhook URL rules (no private, loopback, link-local or metadata address,
// redirects included; a size cap and a time cap), and read<Record>Attachment answers the bytes as
// MCP content. Through the real stack: the harness's Worker (loopback allowed, as for webhook
// receivers, so the files come from a node:http server here) and, for loopback itself, a Worker
// as production runs it.

let files: FileServer;
beforeAll(async () => {
  files = await startFileServer();
});
afterAll(() => files?.close());

type Result = { content: Array<Record<string, any>>; structuredContent?: any; isError?: boolean };
const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as Result;

const text = (length: number) => new TextEncoder().encode("Method statement, line by line.\n".repeat(length));

describe("attaching a file from a URL, and reading it back", () => {
  it("round-trips a text file, an image and a PDF through the tools, byte-identical, typed by their bytes", async () => {
    const tenant = await createTenant({ application: "Site agent" });
    const task = await insertTaskIn(tenant);
    const client = await connectMcp(tenant.key, { query: { tools: "attachments" } });
    const notes = text(100);
    const png = pngBytes(64 * 1024);
    const pdf = new Uint8Array([...new TextEncoder().encode("%PDF-1.7\n"), ...pngBytes(2000).subarray(8)]);
    // The server calls each something else: the bytes decide.
    const sources = [
      { bytes: notes, url: files.serve("/docs/method%20statement.txt", notes, "application/pdf"), name: "method statement.txt" },
      { bytes: png, url: files.serve("/photos/snag.png", png, "text/html"), name: "snag.png" },
      { bytes: pdf, url: files.serve("/invoice", pdf, "image/png"), name: "invoice" },
    ];
    const attached = [];
    for (const source of sources) {
      const result = await call(client, "attachTaskFromUrl", { id: task, url: source.url });
      expect(result.isError, JSON.stringify(result.structuredContent)).toBe(false);
      const data = result.structuredContent.data;
      expect(data).toMatchObject({ taskId: task, name: source.name, size: source.bytes.byteLength, sha256: sha256(source.bytes) });
      expect(data.uploader).toMatchObject({ type: "key", id: tenant.keyId, name: "Site agent" });
      attached.push(data);
    }
    expect(attached.map((a) => a.contentType)).toEqual(["text/plain", "image/png", "application/pdf"]);

    const listed = await call(client, "listTaskAttachments", { id: task });
    expect(listed.structuredContent.data.map((a: { id: string }) => a.id)).toEqual(attached.map((a) => a.id));

    const [asText, asImage, asLink] = await Promise.all(
      attached.map((a) => call(client, "readTaskAttachment", { id: task, attachmentId: a.id })),
    );
    expect(asText!.content[1]).toEqual({ type: "text", text: new TextDecoder().decode(notes) });
    expect(asImage!.content[1]).toEqual({ type: "image", mimeType: "image/png", data: Buffer.from(png).toString("base64") });
    // A PDF is no MCP content type: a link to its bytes, which downloads them byte-identical.
    expect(asLink!.content[1]).toMatchObject({ type: "resource_link", name: "invoice", mimeType: "application/pdf", size: pdf.byteLength });
    const got = await download(asLink!.content[1]!.uri);
    expect(Buffer.from(got.bytes).equals(Buffer.from(pdf))).toBe(true);
    // The envelope comes first, as every tool's answer does.
    expect(JSON.parse(asText!.content[0]!.text).data).toMatchObject({ id: attached[0].id, downloadUrl: expect.any(String) });
  });

  it("follows a redirect to a public-rule URL, takes a name given, and attaches once per idempotencyKey", async () => {
    const tenant = await createTenant();
    const risk = await insertRisk(tenant);
    const client = await connectMcp(tenant.key, { query: { tools: "attachments" } });
    const bytes = text(3);
    const target = files.serve("/files/final.txt", bytes);
    const url = files.redirect("/r/1", files.redirect("/r/2", target));
    const args = { id: risk, url, name: "register.txt", idempotencyKey: `risk-file-${risk}` };
    const first = await call(client, "attachRiskFromUrl", args);
    expect(first.structuredContent.data).toMatchObject({ riskId: risk, name: "register.txt", sha256: sha256(bytes) });
    const again = await call(client, "attachRiskFromUrl", args);
    expect(again.structuredContent.data.id).toBe(first.structuredContent.data.id);
    const list = expectSuccess(await api(`/v1/risks/${risk}/attachments`, { key: tenant.key }));
    expect(list.data).toHaveLength(1);
  });
});

describe("refusals: nothing fetched from where a webhook may not point, nothing kept", () => {
  const refusedUrls = [
    "http://169.254.169.254/latest/meta-data/",
    "https://169.254.169.254/latest/meta-data/",
    "https://10.0.0.7/file.pdf",
    "https://172.16.4.4/file.pdf",
    "https://192.168.1.10/file.pdf",
    "https://100.64.0.1/file.pdf",
    "https://[fd00::1]/file.pdf",
    "https://[fe80::1]/file.pdf",
    "https://[::ffff:10.0.0.1]/file.pdf",
    "http://files.example.com/file.pdf",
    "ftp://files.example.com/file.pdf",
    "https://user:secret@files.example.com/file.pdf",
    "not a url",
  ];

  it("refuses private, link-local, metadata and non-https URLs, and redirects to them, naming url, with no trace", async () => {
    const tenant = await createTenant();
    const task = await insertTaskIn(tenant);
    const client = await connectMcp(tenant.key, { query: { tools: "attachments" } });
    const before = await snapshot(tenant.org.id);
    for (const url of refusedUrls) {
      const result = await call(client, "attachTaskFromUrl", { id: task, url });
      expect(result.isError, url).toBe(true);
      expect(result.structuredContent.error, url).toMatchObject({ code: "invalid_field", field: "url" });
    }
    const seen = files.requests.length;
    for (const to of ["http://169.254.169.254/latest/meta-data/iam/", "https://10.0.0.7/x", "https://[fd00::1]/x"]) {
      const result = await call(client, "attachTaskFromUrl", {
        id: task,
        url: files.redirect(`/to-private/${encodeURIComponent(to)}`, to),
      });
      expect(result.structuredContent.error, to).toMatchObject({ code: "invalid_field", field: "url" });
      expect(result.structuredContent.message).toContain("redirected to");
    }
    // The redirects were asked for; nothing more was.
    expect(files.requests.length - seen).toBe(3);
    expectNoTrace(before, await snapshot(tenant.org.id));
  });

  it("refuses loopback where the deployment does not allow it (a Worker as production runs it)", async () => {
    const production = await startProductionWorker();
    try {
      const tenant = await createTenant();
      const task = await insertTaskIn(tenant);
      const client = new Client({ name: "opsroom-tests", version: "1.0.0" });
      const transport = new StreamableHTTPClientTransport(new URL("/mcp?tools=attachments", production.url), {
        requestInit: { headers: { authorization: `Bearer ${tenant.key}`, "cf-connecting-ip": "2001:db8:1::7" } },
      });
      await client.connect(transport);
      const before = await snapshot(tenant.org.id);
      const seen = files.requests.length;
      for (const url of [files.serve("/local.txt", text(1)), "https://127.0.0.1/x", "https://localhost/x", "https://[::1]/x"]) {
        const result = await call(client, "attachTaskFromUrl", { id: task, url });
        expect(result.structuredContent.error, url).toMatchObject({ code: "invalid_field", field: "url" });
      }
      expect(files.requests.length).toBe(seen);
      expectNoTrace(before, await snapshot(tenant.org.id));
      await client.close();
    } finally {
      await production.dispose();
    }
  }, 120_000);

  it("refuses a file over the cap, stated or only streamed, and keeps nothing", async () => {
    const tenant = await createTenant();
    const task = await insertTaskIn(tenant);
    const client = await connectMcp(tenant.key, { query: { tools: "attachments" } });
    const before = await snapshot(tenant.org.id);
    const stated = files.serve("/big-stated", new Uint8Array(MCP_FILE_BYTES + 1));
    const streamed = files.stream("/big-streamed", MCP_FILE_BYTES + 1);
    for (const url of [stated, streamed]) {
      const result = await call(client, "attachTaskFromUrl", { id: task, url });
      expect(result.structuredContent.error, url).toMatchObject({ code: "payload_too_large", field: "url" });
    }
    // Exactly the cap is taken.
    const atCap = await call(client, "attachTaskFromUrl", { id: task, url: files.stream("/at-cap", MCP_FILE_BYTES) });
    expect(atCap.structuredContent.data).toMatchObject({ size: MCP_FILE_BYTES });
    const after = await snapshot(tenant.org.id);
    expect(after.changeVersion).toBe(before.changeVersion + 1);
  }, 60_000);

  it("gives up on a URL that does not answer within the time cap", async () => {
    const tenant = await createTenant();
    const task = await insertTaskIn(tenant);
    const client = await connectMcp(tenant.key, { query: { tools: "attachments" } });
    const before = await snapshot(tenant.org.id);
    const started = Date.now();
    const result = await call(client, "attachTaskFromUrl", { id: task, url: files.hang("/never") });
    expect(result.structuredContent.error).toMatchObject({ code: "invalid_field", field: "url" });
    expect(result.structuredContent.message).toContain("did not answer");
    expect(Date.now() - started).toBeLessThan(30_000);
    expectNoTrace(before, await snapshot(tenant.org.id));
  }, 60_000);

  it("a key without tasks.manage neither sees nor runs attachTaskFromUrl (nothing fetched), and reads with tasks.read", async () => {
    const tenant = await createTenant();
    const task = await insertTaskIn(tenant);
    const reader = await tenant.keyWith(["tasks.read", "risks.manage"]);
    const client = await connectMcp(reader.key, { query: { tools: "attachments" } });
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("readTaskAttachment");
    expect(names).toContain("attachRiskFromUrl");
    expect(names).not.toContain("attachTaskFromUrl");
    const before = await snapshot(tenant.org.id);
    const seen = files.requests.length;
    const url = files.serve("/for-a-reader.txt", text(1));
    const refused = await call(client, "attachTaskFromUrl", { id: task, url });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent.error).toMatchObject({ code: "insufficient_scope", scope: "tasks.manage" });
    expect(files.requests.length).toBe(seen);
    expectNoTrace(before, await snapshot(tenant.org.id));

    // Attached by a key that may, it reads back with tasks.read.
    const writer = await connectMcp(tenant.key, { query: { tools: "attachments" } });
    const made = await call(writer, "attachTaskFromUrl", { id: task, url });
    const read = await call(client, "readTaskAttachment", { id: task, attachmentId: made.structuredContent.data.id });
    expect(read.content[1]).toEqual({ type: "text", text: new TextDecoder().decode(text(1)) });
    // Another organisation's task is not found, by either tool.
    const other = await createTenant();
    const foreign = await call(writer, "readTaskAttachment", {
      id: await insertTaskIn(other),
      attachmentId: made.structuredContent.data.id,
    });
    expect(foreign.structuredContent.error).toMatchObject({ code: "not_found" });
  });

  it("refuses unknown and missing arguments by name", async () => {
    const tenant = await createTenant();
    const task = await insertTaskIn(tenant);
    const client = await connectMcp(tenant.key, { query: { tools: "attachments" } });
    const missing = await call(client, "attachTaskFromUrl", { id: task });
    expect(missing.structuredContent.error).toMatchObject({ code: "missing_field", field: "url" });
    const unknown = await call(client, "readTaskAttachment", { id: task, attachmentId: task, inline: true });
    expect(unknown.structuredContent.error).toMatchObject({ code: "unknown_field", field: "inline" });
  });
});
