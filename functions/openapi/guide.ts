import { type ErrorCode } from "../../domain/errors.ts";
import { SCOPES, type Scope } from "../../domain/scopes.ts";
import { ERROR_STATUS } from "../http/errors.ts";
import type { AnyRoute } from "../http/registry.ts";
import { eventCatalogue } from "./event-catalogue.ts";

// The OpenAPI document's info.description: what every operation has in common (the envelope,
// errors, scopes, events), rendered by GET /docs as the reference's introduction. The tables come
// from the error map, the scope catalogue and the registry, so the page cannot drift from the code.

/** When each error code is answered. Exhaustive: a new code does not compile until it is explained here. */
const ERROR_MEANINGS: Record<ErrorCode, string> = {
  missing_field: "A required field is absent; `error.field` names it.",
  invalid_field:
    "A field (body, query or path) has the wrong type, format or range; `error.field` names it, `error.issues` lists every problem.",
  unknown_field: "The body or query carries a field the operation does not take; `error.field` names it.",
  invalid_json: "The body is not valid JSON.",
  invalid_reference: "An id in the body (projectId, assigneeId, milestoneId...) is not in the key's organisation; `error.field` names it.",
  unauthorized: "No API key, or not `Authorization: Bearer ops_...`.",
  invalid_key: "The key is malformed, unknown or revoked.",
  insufficient_scope: "The key is valid but lacks the scope; `error.scope` names the one needed.",
  insufficient_role:
    "The signed-in person's role does not allow this (the settings area: owners and admins); `error.roles` names the roles that may.",
  email_unverified:
    "The organisation requires a confirmed email address and the signed-in person's (or the person an application acts for) is not: follow the mailed link, or ask for another with `POST /auth/send-verification-email`.",
  cross_site_request: "A write with the session cookie came from another origin (or named none): refused, nothing changed.",
  not_found: "No such record in the key's organisation (another organisation's id answers the same).",
  invalid_transition: "The status change is not a workflow move; `error.allowed` lists the statuses allowed from the current one.",
  dependency_cycle:
    "The dependency (`blockedBy`) or parent (`parentId`) would close a cycle; `error.path` lists the task ids around it, from the task changed back to it.",
  open_blockers: "A task cannot move to done while a task blocking it is neither done nor cancelled; `error.blockers` lists them.",
  open_subtasks:
    "A task cannot move to done while one of its subtasks (at any depth) is neither done nor cancelled; `error.subtasks` lists them.",
  conflict: "The change conflicts with the state: a duplicate email, or records that still depend on the one being deleted.",
  precondition_failed: "`If-Match` does not match the record's current `version` (its ETag).",
  resync_required:
    "`after` is older than the events kept (retention); `error.oldestChangeVersion` is the first one still kept. Take a fresh snapshot (a list answer's `changeVersion`) and follow from there.",
  payload_too_large: "The body is over 64 KiB.",
  unsupported_media_type: "The body is not `application/json`.",
  idempotency_mismatch: "The `Idempotency-Key` was used before with a different request.",
  rate_limited: "Over the key's rate limit; wait `Retry-After` seconds.",
  internal_error: "An unexpected error; nothing was changed. Quote `error.requestId`.",
  unavailable:
    "The database (or realtime) is unreachable; nothing is half-written. A write cut off in flight may have been made whole, so retry a create with the same Idempotency-Key.",
};

const table = (header: string[], rows: string[][]) =>
  [`| ${header.join(" | ")} |`, `|${header.map(() => "---").join("|")}|`, ...rows.map((row) => `| ${row.join(" | ")} |`)].join("\n");

function errorsTable(): string {
  const codes = (Object.keys(ERROR_STATUS) as ErrorCode[]).sort((a, b) => ERROR_STATUS[a] - ERROR_STATUS[b]);
  return table(
    ["status", "error.code", "when"],
    codes.map((code) => [String(ERROR_STATUS[code]), `\`${code}\``, ERROR_MEANINGS[code]]),
  );
}

function scopesTable(routes: AnyRoute[]): string {
  const events = eventCatalogue(routes);
  return table(
    ["scope", "grants", "events it sees"],
    (Object.keys(SCOPES) as Scope[]).map((scope) => {
      const seen = events.filter((event) => event.scope === scope).map((event) => `\`${event.type}\``);
      return [`\`${scope}\``, SCOPES[scope], seen.join(", ") || "—"];
    }),
  );
}

function eventsTable(routes: AnyRoute[]): string {
  return table(
    ["type", "scope needed"],
    eventCatalogue(routes).map((event) => [`\`${event.type}\``, `\`${event.scope}\``]),
  );
}

export function apiGuide(routes: AnyRoute[]): string {
  return `The operations API of one organisation: projects, milestones, tasks, personnel and more. Every change is pushed live to the organisation's realtime room and to registered webhooks.

Send your API key as \`Authorization: Bearer ops_...\`. Bodies are JSON (\`Content-Type: application/json\`, at most 64 KiB).

\`\`\`sh
curl -H "Authorization: Bearer $OPSROOM_KEY" https://<host>/v1/tasks?status=todo,in_progress
\`\`\`

## The envelope

Every answer is one JSON envelope. Lists add \`count\` and \`nextCursor\`:

\`\`\`json
{ "success": true, "version": "v1", "message": "3 tasks", "count": 3, "data": [], "nextCursor": null }
\`\`\`

Refusals carry an \`error\` with a stable \`code\`, the \`field\` or \`scope\` concerned, and the \`requestId\`:

\`\`\`json
{ "success": false, "version": "v1", "message": "budget is required",
  "error": { "code": "missing_field", "field": "budget", "requestId": "0b5d7c1e-..." } }
\`\`\`

Act on \`error.code\`, never on \`message\` wording. A refused call changes nothing: no row, no changeVersion, no event, no webhook.

## Errors

Checks run in this order: key (401), rate limit (429), scope (403), input (400), existence (404), If-Match (412), state (409).

${errorsTable()}

## Scopes

A key holds scopes chosen when it is created. A \`.manage\` scope always holds its \`.read\`. \`GET /v1\` needs only a valid key and lists the key's scopes.

${scopesTable(routes)}

## Lists, writes and limits

- **Paging**: \`limit\` 1–200 (default 50) and the opaque \`cursor\` from \`nextCursor\` (also a \`Link: rel="next"\` header). Order is stable: creation time, then id.
- **Versions**: every record has \`version\` (+1 per change), also sent as \`ETag\`. Send it back as \`If-Match\` on PATCH or DELETE to refuse a stale write (412).
- **Idempotency**: a POST with \`Idempotency-Key\` replayed within 24 h answers the first response again, with \`Idempotent-Replayed: true\`.
- **Rate limits**: per key (600 requests / 60 s unless set otherwise). Every answer carries \`RateLimit-Limit\`, \`RateLimit-Remaining\` and \`RateLimit-Reset\`; a 429 adds \`Retry-After\`.

## Events

Every successful write adds 1 to the organisation's \`changeVersion\` and records one event, so a client always knows what it has seen:

\`\`\`json
{ "id": "019a8a0e-...", "type": "task.updated", "orgId": "019a8a0e-...", "changeVersion": 42,
  "occurredAt": "2026-11-21T23:00:00.000Z", "data": { "id": "019a...", "status": "in_progress" },
  "changes": { "status": { "from": "todo", "to": "in_progress" } } }
\`\`\`

\`data\` is the whole record after the change (for a delete, as it was); \`changes\` maps each changed field to \`{ from, to }\`. A key sees an event when it holds the scope below.

${eventsTable(routes)}

**Realtime**: join the room of your organisation (PartyKit party \`v1\`, room = organisation id) at the \`realtime.url\` of \`GET /v1\`, with \`?apiKey=\` or, from a browser, a short-lived \`?token=\` from \`POST /v1/realtime/tokens\`. The room first sends \`{ "type": "ready", "changeVersion": N }\`, then each visible event once, in changeVersion order.

**Catching up**: remember the last changeVersion you applied; on every \`ready\`, page through \`GET /v1/events?after=<it>\` until \`nextCursor\` is null, then apply live events, skipping any changeVersion already applied. Events are kept 30 days.

**Webhooks** receive the same event JSON as the body, signed per [Standard Webhooks](https://www.standardwebhooks.com) (\`webhook-id\`, \`webhook-timestamp\`, \`webhook-signature\`), so the \`standardwebhooks\` package verifies them with the \`whsec_...\` secret.`;
}
