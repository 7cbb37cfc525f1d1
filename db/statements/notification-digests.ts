import type { Database } from "../client.ts";
import { notifications, notificationSettings, users } from "../schema/index.ts";
import { sql } from "./engine/sql-tag.ts";
import { run } from "./engine/sql.ts";
import { notificationJson, type Notification } from "./notification-inbox.ts";

// The daily digests (docs/notifications.md): whose is due, and when the next one is, so the sweep
// wakes an idle service for it.

/** A person whose digest is due: their morning (DIGEST_HOUR in their time zone) came since the last, and something waits from before it. */
export interface DueDigest {
  userId: string;
  email: string;
  name: string;
  notifications: Array<Notification & { orgId: string }>;
}

/** The person's last morning (DIGEST_HOUR in their time zone, `ns` their settings) at or before now. */
const lastMorning = (digestHour: number) => {
  const tz = sql`coalesce(ns.time_zone, 'UTC')`;
  return sql`((date_trunc('day', (now() at time zone ${tz}) - make_interval(hours => ${digestHour})) + make_interval(hours => ${digestHour})) at time zone ${tz})`;
};

export function dueDigests(db: Database, digestHour: number, limit: number): Promise<DueDigest[]> {
  const morning = lastMorning(digestHour);
  return run<DueDigest>(
    db,
    sql`select n.user_id as "userId", u.email, u.name,
               json_agg(${notificationJson("n")}::jsonb || jsonb_build_object('orgId', n.org_id) order by n.created_at, n.id) as notifications
          from ${notifications} n join ${users} u on u.id = n.user_id
          left join ${notificationSettings} ns on ns.user_id = n.user_id
         where n.mail_state = 'digest' and n.created_at < ${morning} and (ns.digest_sent_at is null or ns.digest_sent_at < ${morning})
         group by n.user_id, u.email, u.name
         limit ${limit}`,
  );
}

/**
 * When the next digest falls due (ms since the epoch), or null when no notification waits for one:
 * the morning after the last of each person with one waiting (what was due at the last morning the
 * sweep has just queued). The sweep's wake-up time for digests, so an idle service still sends them.
 */
export async function nextDigestDue(db: Database, digestHour: number): Promise<number | null> {
  const [row] = await run<{ at: number | null }>(
    db,
    sql`select (extract(epoch from min(${lastMorning(digestHour)} + interval '1 day')) * 1000)::float8 as at
          from ${notifications} n left join ${notificationSettings} ns on ns.user_id = n.user_id
         where n.mail_state = 'digest'`,
  );
  return row?.at ?? null;
}
