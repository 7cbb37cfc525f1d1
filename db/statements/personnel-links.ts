import type { SQL } from "drizzle-orm";
import type { Actor } from "../../domain/actor.ts";
import type { AuditRequest } from "../../domain/audit.ts";
import type { OpsEvent } from "../../domain/events.ts";
import { uuidv7 } from "../../domain/ids.ts";
import type { Scope } from "../../domain/scopes.ts";
import type { Database } from "../client.ts";
import { events, memberships, organisations, personnel, users } from "../schema/index.ts";
import { auditCtes, auditTarget } from "./engine/audit.ts";
import { CALLER_ORG, callerColumns, callerCtes, callerOf, orgLockStatement, type CallerOutcome, type CallerRow } from "./engine/caller.ts";
import { eventProjection } from "./engine/events.ts";
import { BATCH_ID, bumpAndEvent, committedOf, ownEventColumns, type Committed } from "./engine/outbox.ts";
import { projection } from "./engine/projection.ts";
import { MANAGE_SETTINGS } from "./engine/settings-caller.ts";
import { sql } from "./engine/sql-tag.ts";
import { runOne, runWrite } from "./engine/sql.ts";
import { AFTER_VIEW, BEFORE_VIEW, changeOfLocked, changeSucceeded, changesOf, fieldChanges, recordViews } from "./engine/write-ctes.ts";
import { personnelResource, type PersonRecord } from "./personnel.ts";

// The link between a member (a user who signs in) and a personnel record (who tasks are assigned
// to): personnel.user_id (docs/people.md "Members and personnel"). Each change of it is a change
// of the person (its version, personnel.updated with changes.userId, or personnel.created), in the
// statement that makes it: the settings area's link and unlink (here), an accepted invitation
// (invitations.ts) and a member's removal (members.ts).

/** A member's linked person, by the membership row `m`: its id, or null. */
export const linkedPersonnelId = (membership: string) => {
  const m = sql.raw(membership);
  return sql`(select p.id from ${personnel} p where p.org_id = ${m}.org_id and p.user_id = ${m}.user_id)`;
};

export interface LinkOutcome {
  caller: CallerOutcome;
  memberFound: boolean;
  /** The person as it was: the one named (link) or the one linked (unlink); null when there is none. */
  before: PersonRecord | null;
  /** The person is linked to another member. */
  personTaken: boolean;
  /** The member is linked to another person already. */
  memberTaken: boolean;
  updated: ({ record: PersonRecord } & Committed) | null;
}

/**
 * The audit entry of a link (member.linked) or an unlink (member.unlinked) that changed the person
 * (`changed`): the member as its target, `personnelId` from and to. A no-op records nothing.
 */
const linkAudit = (userId: string, personnelId: string | null, request: AuditRequest) =>
  auditCtes(
    {
      action: personnelId === null ? "member.unlinked" : "member.linked",
      source: sql`select c.org_id, ${auditTarget("member", sql`u.id`, sql`u.name`)} as target,
                         jsonb_build_object('personnelId', jsonb_build_object('from', ${personnelId === null ? sql`c.id::text` : sql`null::text`},
                                                                             'to', ${personnelId}::text)) as changes
                    from changed c join ${users} u on u.id = ${userId}::uuid`,
    },
    request,
  );

/**
 * Links the member `userId` to the person `personnelId`, or (personnelId null) unlinks them from
 * theirs, in one statement with the person's version bump and event. Owners and admins only. A
 * member is one person at most and a person one member: linking over another link is refused
 * (unlink first), so one statement changes one person.
 */
export async function linkMember(
  db: Database,
  actor: Actor,
  userId: string,
  personnelId: string | null,
  request: AuditRequest,
): Promise<LinkOutcome> {
  const resource = personnelResource;
  const changes = changesOf(resource, { userId: personnelId === null ? null : userId });
  const which = personnelId === null ? sql`r.user_id = ${userId}::uuid` : sql`r.id = ${personnelId}::uuid`;
  const rules =
    personnelId === null
      ? []
      : [
          { name: "person_free", holds: sql`l.user_id is null or l.user_id = ${userId}::uuid` },
          {
            name: "member_free",
            holds: sql`not exists (select 1 from ${personnel} x where x.org_id = l.org_id and x.user_id = ${userId}::uuid and x.id <> l.id)`,
          },
          { name: "member_found", holds: sql`exists (select 1 from member)` },
        ];
  const row = await runWrite<
    CallerRow & {
      memberFound: boolean;
      before: PersonRecord | null;
      checks: Record<string, boolean | unknown> | null;
      record: PersonRecord | null;
      event: OpsEvent | null;
      cascaded: OpsEvent[] | null;
    }
  >(db, {
    ctes: sql`${callerCtes(actor, MANAGE_SETTINGS, { writes: true, audited: true })},
        member as (select m.user_id from ${memberships} m where m.org_id = ${CALLER_ORG} and m.user_id = ${userId}::uuid),
        locked as (select * from ${personnel} r where r.org_id = ${CALLER_ORG} and ${which} for update),
        ${changeOfLocked(resource, { changes, ifMatch: null, rules, references: [] }, "changed")},
        ${recordViews(resource, sql`locked l`)},
        ${bumpAndEvent(resource, "updated", fieldChanges(resource, changes), [], AFTER_VIEW)},
        ${linkAudit(userId, personnelId, request)}`,
    columns: sql`${callerColumns}, exists (select 1 from member) as "memberFound",
               ${BEFORE_VIEW} as before,
               (select row_to_json(checks) from checks) as checks,
               ${AFTER_VIEW} as record,
               ${ownEventColumns}`,
    succeeded: changeSucceeded(),
    answer: sql`coalesce(o.record, o.before)`,
    created: sql`false`,
    // Whether the member is linked elsewhere is read after every write before this one: two links
    // of one member at once then refuse the second (409) instead of failing on the unique index.
    lockFirst: orgLockStatement(actor),
  });
  return {
    caller: callerOf(row),
    memberFound: row.memberFound,
    before: row.before,
    personTaken: row.checks?.person_free === false,
    memberTaken: row.checks?.member_free === false,
    updated: row.record ? { record: row.record, ...committedOf(row) } : null,
  };
}

/**
 * The events of personnel rows a settings statement wrote as a consequence of a membership change,
 * in the CTE `source` (at most one row: a member is one person of an organisation), each row with
 * `event_type` (created or updated) and `event_changes`: the organisation's changeVersion bump
 * and the outbox row, acted by `actor`: CTEs `link_bump` and `link_event`. The statement holds the
 * organisation's write lock before `source` writes, as every record write does (caller.ts).
 */
export function linkEventCtes(source: string, actor: SQL): SQL {
  const from = sql.identifier(source);
  return sql`link_bump as (
      update ${organisations} o set change_version = o.change_version + 1
        from ${from} s where o.id = s.org_id
      returning o.change_version
    ),
    link_event as (
      insert into ${events} (id, org_id, change_version, type, scope, data, changes, actor, batch_id)
      select ${uuidv7()}::uuid, s.org_id, b.change_version, 'personnel.' || s.event_type, ${personnelResource.readScope}::text,
             ${projection(personnelResource, "s")}, s.event_changes, ${actor}, ${BATCH_ID}
        from ${from} s, link_bump b
      returning *
    )`;
}

/**
 * A member who leaves or is removed (`leaving`, over the membership statement's `changed`) is no
 * longer the person they were linked to: the person unlinked (`unlinked`) and its event.
 */
export const unlinkRemoved = (leaving: boolean, userId: string) => sql`unlinked as (
        update ${personnel} p set user_id = null, version = p.version + 1, updated_at = now()
         where ${leaving} and p.org_id = ${CALLER_ORG} and p.user_id = ${userId}::uuid and exists (select 1 from changed)
        returning p.*, 'updated'::text as event_type,
                  jsonb_build_object('userId', jsonb_build_object('from', ${userId}::text, 'to', null)) as event_changes
      ),
      ${linkEventCtes("unlinked", sql`(select actor from key)`)}`;

/** The event a linkEventCtes statement committed, as a column `linkEvent`. */
export const linkEventColumn = sql`(select ${eventProjection("e")} from link_event e) as "linkEvent"`;

/**
 * The caller's own person, for ?<filter>=me: the member a session is, or the one an application
 * acts for (its token's onBehalfOf), and the personnel record linked to them. An API key is no one.
 */
export async function callerPerson(
  db: Database,
  actor: Actor,
  scope: Scope,
): Promise<{ caller: CallerOutcome; userId: string | null; personnelId: string | null }> {
  const row = await runOne<CallerRow & { userId: string | null; personnelId: string | null }>(
    db,
    sql`with ${callerCtes(actor, scope)},
        me as (select coalesce(k.user_id, (k.actor -> 'onBehalfOf' ->> 'id')::uuid) as user_id from key k)
        select ${callerColumns}, (select user_id from me) as "userId",
               (select p.id from ${personnel} p join me on p.user_id = me.user_id where p.org_id = ${CALLER_ORG}) as "personnelId"`,
  );
  return { caller: callerOf(row), userId: row.userId, personnelId: row.personnelId };
}
