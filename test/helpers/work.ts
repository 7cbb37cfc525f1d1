import { uuidv7 } from "../../domain/ids.ts";
import { query } from "./database.ts";
import type { Tenant } from "./fixtures.ts";
import { unique } from "./resources.ts";

// Fixtures for labels, comments, checklists and the task graphs (dependencies, subtasks). insert*
// write rows straight into the database (no changeVersion, no event), for arranging; what is under
// test goes through the API.

/** A label body: a fresh name and a colour. */
export const labelBody = (fields: Record<string, unknown> = {}) => ({ name: `Label ${unique()}`, colour: "#1f883d", ...fields });

export const commentBody = (fields: Record<string, unknown> = {}) => ({ body: `Comment ${unique()}`, ...fields });

export async function insertLabel(tenant: Tenant, fields: { name?: string; colour?: string } = {}): Promise<string> {
  const [row] = await query<{ id: string }>("insert into labels (id, org_id, name, colour) values ($1, $2, $3, $4) returning id", [
    uuidv7(),
    tenant.org.id,
    fields.name ?? `Label ${unique()}`,
    fields.colour ?? "#0969da",
  ]);
  return row!.id;
}

/** A comment on the task, written by opsroom itself (the author a CLI write would have). */
export async function insertComment(tenant: Tenant, taskId: string, body = `Comment ${unique()}`): Promise<string> {
  const [row] = await query<{ id: string }>(
    `insert into comments (id, org_id, task_id, project_id, body, author)
     select $1, t.org_id, t.id, t.project_id, $3, '{"type":"system","id":null,"name":"opsroom"}'::jsonb from tasks t where t.org_id = $2 and t.id = $4
     returning id`,
    [uuidv7(), tenant.org.id, body, taskId],
  );
  if (!row) throw new Error(`insertComment: no task ${taskId}`);
  return row.id;
}

export const checklistItemBody = (fields: Record<string, unknown> = {}) => ({ title: `Item ${unique()}`, ...fields });

/** `count` items on the task's checklist (not done), in one statement. */
export async function insertChecklistItems(tenant: Tenant, taskId: string, count = 1): Promise<string[]> {
  const rows = await query<{ id: string }>(
    `insert into checklist_items (id, org_id, task_id, project_id, title)
     select x.id, t.org_id, t.id, t.project_id, 'Item ' || x.n from tasks t, unnest($3::uuid[]) with ordinality as x(id, n) where t.org_id = $1 and t.id = $2
     order by x.n returning id`,
    [tenant.org.id, taskId, Array.from({ length: count }, () => uuidv7())],
  );
  if (rows.length !== count) throw new Error(`insertChecklistItems: no task ${taskId}`);
  return rows.map((row) => row.id);
}

/** A task of the tenant; with `parentId`, a subtask in the parent's project. */
export async function insertTaskIn(
  tenant: Tenant,
  fields: { projectId?: string; parentId?: string; status?: string; blockedBy?: string[]; labelIds?: string[] } = {},
): Promise<string> {
  const projectId =
    fields.projectId ??
    (fields.parentId
      ? (await query<{ project_id: string }>("select project_id from tasks where id = $1", [fields.parentId]))[0]!.project_id
      : undefined);
  const task = await tenant.insertTask({ ...(projectId ? { projectId } : {}), ...(fields.status ? { status: fields.status } : {}) });
  if (fields.parentId || fields.blockedBy || fields.labelIds) {
    await query("update tasks set parent_id = $2, blocked_by = $3, label_ids = $4 where id = $1", [
      task.id,
      fields.parentId ?? null,
      fields.blockedBy ?? [],
      fields.labelIds ?? [],
    ]);
  }
  return task.id;
}
