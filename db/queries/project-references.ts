import { sql } from "drizzle-orm";
import type { Reference } from "./records.ts";

// References shared by the records that belong to a project (risks, issues, financial entries).
// Each is checked inside the write statement, against the caller's organisation only.

export const projectOfOrganisation = (id: string): Reference => ({
  field: "projectId",
  exists: sql`exists (select 1 from projects p where p.org_id = auth.org_id and p.id = ${id}::uuid)`,
});

/** Someone who is handed responsibility (an owner, an assignee) must still be active. */
export const activePerson = (field: string, id: string): Reference => ({
  field,
  exists: sql`exists (select 1 from personnel x where x.org_id = auth.org_id and x.id = ${id}::uuid and x.active)`,
});

/** Someone named as a fact (who reported an issue) need only be a person of the organisation. */
export const anyPerson = (field: string, id: string): Reference => ({
  field,
  exists: sql`exists (select 1 from personnel x where x.org_id = auth.org_id and x.id = ${id}::uuid)`,
});
