import type { SQL } from "drizzle-orm";
import type { AuditRequest } from "../../../domain/audit.ts";
import { mcpSessionDays } from "../../schema/index.ts";
import { auditCtes, auditTarget } from "./audit.ts";
import { sql } from "./sql-tag.ts";

// MCP sessions in the audit log (docs/audit-log.md): the first MCP call of a UTC day by a key or
// an installed application records mcp.session_started. The MCP server is stateless (no session
// to start), so "a session" is a key's or an installation's day. Every MCP call's statement
// carries these CTEs after its caller's (caller.ts): one insert of the day's row, ON CONFLICT DO
// NOTHING, which adds the row (and the entry) only the first time; later calls find the row and
// write nothing. No statement and no round trip of its own.

/**
 * `mcp_day` and the `mcp_audit_*` CTEs: over `key` and `auth` (the caller allowed what the call
 * needs: a refused call records nothing), for the MCP request `request`.
 */
export function mcpSessionCtes(request: AuditRequest): SQL {
  return sql`mcp_day as (
      insert into ${mcpSessionDays} (credential_id, day, org_id)
      select coalesce(k.installation_id, k.id), (now() at time zone 'UTC')::date, k.org_id from key k where exists (select 1 from auth)
      on conflict do nothing
      returning org_id
    ),
    ${auditCtes(
      {
        action: "mcp.session_started",
        source: sql`select d.org_id,
                           case when k.installation_id is null then ${auditTarget("api_key", sql`k.id`, sql`k.application`)}
                                else ${auditTarget("installation", sql`k.installation_id`, sql`k.application`)} end as target,
                           null::jsonb as changes
                      from mcp_day d cross join key k`,
      },
      request,
      "mcp_audit",
    )}`;
}
