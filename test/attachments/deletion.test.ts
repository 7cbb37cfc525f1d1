import { describe, expect, it } from "vitest";
import { api, expectSuccess } from "../helpers/api.ts";
import { download, pngBytes, upload } from "../helpers/attachments.ts";
import { expectFromThisRequest, expectOneEntry, writerOf } from "../helpers/audit.ts";
import { query, snapshot } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { insertFinancialEntry, insertIssue, insertRisk } from "../helpers/project-records.ts";
import { runSweep } from "../helpers/realtime.ts";
import { pollUntil } from "../helpers/wait.ts";
import { commentBody, insertComment, insertTaskIn } from "../helpers/work.ts";

// Deletion that holds (docs/attachments.md "Deletion"): a file's delete is an event and an audit
// entry, in its one statement; a record's delete takes its files in its statement, each with its
// own attachment.deleted before the record's; the organisation's usage follows either way; and
// the objects leave R2 after the answer, or at the sweep.

/** The events after `changeVersion`, in order: type and record id. */
const eventsSince = async (orgId: string, changeVersion: number) =>
  (
    await query<{ type: string; id: string; scope: string; actor: { id: string } | null }>(
      "select type, data->>'id' as id, scope, actor from events where org_id = $1 and change_version > $2 order by change_version",
      [orgId, changeVersion],
    )
  ).map((e) => [e.type, e.id, e.scope, e.actor?.id]);

/** GET /v1's `attachments`: the organisation's usage and quota. */
const usedBytes = async (tenant: Tenant) =>
  (expectSuccess(await api("/v1", { key: tenant.key })) as unknown as { attachments: unknown }).attachments;

const pending = (orgId: string) => query("select 1 from attachment_removals where org_id = $1", [orgId]);

describe("a file deleted", () => {
  it("attachment.deleted and an audit entry, from this request, in the delete's own transaction; usage back; gone from R2", async () => {
    const tenant = await createTenant();
    const task = await insertTaskIn(tenant);
    const created = expectSuccess(await upload(tenant.key, `/v1/tasks/${task}/attachments`, pngBytes(100)), 201).data;
    expect(await usedBytes(tenant)).toMatchObject({ usedBytes: 100 });
    const { downloadUrl } = expectSuccess(await api(`/v1/tasks/${task}/attachments/${created.id}`, { key: tenant.key })).data;
    const before = await snapshot(tenant.org.id);
    const entry = await expectOneEntry(tenant.org.id, "attachment.deleted", async () => {
      const deleted = expectSuccess(await api(`/v1/tasks/${task}/attachments/${created.id}`, { key: tenant.key, method: "DELETE" }));
      expect(deleted.data).toEqual(created);
    });
    expectFromThisRequest(entry);
    expect(entry.actor).toMatchObject({ type: "key", id: tenant.keyId });
    expect(entry.target).toEqual({ type: "attachment", id: created.id, name: created.name });
    expect(entry.changes).toEqual({
      taskId: { from: task, to: null },
      size: { from: 100, to: null },
      sha256: { from: created.sha256, to: null },
    });
    // The entry and the event are of one transaction: the event's.
    const [event] = await query<{ id: string }>("select id from events where org_id = $1 and change_version = $2", [
      tenant.org.id,
      before.changeVersion + 1,
    ]);
    expect(entry.xmin).toBe(await writerOf("events", event!.id));
    expect(await eventsSince(tenant.org.id, before.changeVersion)).toEqual([
      ["attachment.deleted", created.id, "tasks.read", tenant.keyId],
    ]);
    expect(await usedBytes(tenant)).toMatchObject({ usedBytes: 0 });
    await pollUntil(
      () => pending(tenant.org.id),
      (rows) => rows.length === 0,
    );
    expect((await download(downloadUrl)).status).toBe(404);
  });
});

describe("a record deleted takes its files", () => {
  it("a task: its files and its comments' files, each attachment.deleted before the comment's and the task's own; the sweep empties R2", async () => {
    const tenant = await createTenant();
    const task = await insertTaskIn(tenant);
    const comment = await insertComment(tenant, task);
    const onTask = expectSuccess(await upload(tenant.key, `/v1/tasks/${task}/attachments`, pngBytes(100)), 201).data;
    const onComment = expectSuccess(await upload(tenant.key, `/v1/comments/${comment}/attachments`, pngBytes(50)), 201).data;
    const { downloadUrl } = expectSuccess(await api(`/v1/tasks/${task}/attachments/${onTask.id}`, { key: tenant.key })).data;
    expect(await usedBytes(tenant)).toMatchObject({ usedBytes: 150 });
    const before = await snapshot(tenant.org.id);
    expectSuccess(await api(`/v1/tasks/${task}`, { key: tenant.key, method: "DELETE" }));
    expect(await eventsSince(tenant.org.id, before.changeVersion)).toEqual([
      ["attachment.deleted", onTask.id, "tasks.read", tenant.keyId],
      ["attachment.deleted", onComment.id, "tasks.read", tenant.keyId],
      ["comment.deleted", comment, "tasks.read", tenant.keyId],
      ["task.deleted", task, "tasks.read", tenant.keyId],
    ]);
    expect(await query("select 1 from attachments where org_id = $1", [tenant.org.id])).toEqual([]);
    expect(await usedBytes(tenant)).toMatchObject({ usedBytes: 0 });
    // The objects wait in attachment_removals for the sweep (a record's delete has no bucket at hand).
    expect((await pending(tenant.org.id)).length).toBe(2);
    await runSweep();
    await pollUntil(
      () => pending(tenant.org.id),
      (rows) => rows.length === 0,
    );
    expect((await download(downloadUrl)).status).toBe(404);
  });

  it("a comment, a risk, an issue, a financial entry: each file's attachment.deleted, with the record's read scope, then the record's", async () => {
    const tenant = await createTenant();
    const task = await insertTaskIn(tenant);
    const records = {
      // The key's own comment: a comment's delete is its author's (or an owner's or admin's).
      comments: [
        "comment",
        expectSuccess(await api(`/v1/tasks/${task}/comments`, { key: tenant.key, body: commentBody() }), 201).data.id,
        "tasks.read",
      ],
      risks: ["risk", await insertRisk(tenant), "risks.read"],
      issues: ["issue", await insertIssue(tenant), "issues.read"],
      "financial-entries": ["financialEntry", await insertFinancialEntry(tenant), "financials.read"],
    } as const;
    for (const [path, [type, id, scope]] of Object.entries(records)) {
      const files = [];
      for (const size of [10, 20])
        files.push(expectSuccess(await upload(tenant.key, `/v1/${path}/${id}/attachments`, pngBytes(size)), 201).data);
      const before = await snapshot(tenant.org.id);
      expectSuccess(await api(`/v1/${path}/${id}`, { key: tenant.key, method: "DELETE" }));
      const sorted = files.map((f) => f.id as string).sort();
      expect(await eventsSince(tenant.org.id, before.changeVersion), path).toEqual([
        ...sorted.map((file) => ["attachment.deleted", file, scope, tenant.keyId]),
        [`${type}.deleted`, id, scope, tenant.keyId],
      ]);
      expect(await usedBytes(tenant)).toMatchObject({ usedBytes: 0 });
    }
  });
});
