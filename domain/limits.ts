// The service's numbers: how much, how long, how often. Read by the code that enforces them, the
// tests that prove them and the documents that state them.

/** Requests per key per window, unless the key was given a limit of its own. */
export const DEFAULT_RATE_LIMIT = 600;
/** Both limiters count in fixed windows of the clock, this long. */
export const WINDOW_SECONDS = 60;
/** Refused keys (unknown or revoked) one client address may present per window before it waits for the next. */
export const FAILED_KEYS_PER_WINDOW = 30;

/** Failed sign-ins per window for one account, and for one client address, before either waits for the next. */
export const FAILED_SIGN_INS_PER_ACCOUNT = 10;
export const FAILED_SIGN_INS_PER_ADDRESS = 30;

/**
 * Sign-ups one client address may send per SIGN_UP_WINDOW_SECONDS, whatever their outcome: each
 * hashes a password, and most create a person and an organisation.
 */
export const SIGN_UPS_PER_ADDRESS = 20;
export const SIGN_UP_WINDOW_SECONDS = 60 * 60;
/**
 * Password-reset mails one account may be sent, and requests one client address may make, per
 * PASSWORD_RESET_WINDOW_SECONDS (each sends a mail to someone); then they wait for the next window.
 */
export const PASSWORD_RESETS_PER_ACCOUNT = 5;
export const PASSWORD_RESETS_PER_ADDRESS = 20;
export const PASSWORD_RESET_WINDOW_SECONDS = 60 * 60;
/** How long a password-reset link works (once). */
export const PASSWORD_RESET_SECONDS = 60 * 60;
/** Requests per window a signed-in person may make in one organisation (all their sessions together), as a key's default. */
export const PERSON_RATE_LIMIT = DEFAULT_RATE_LIMIT;

/**
 * How deep a JSON body's arrays and objects may nest (the body itself is depth 1; the API's own
 * bodies go 5 deep, in a batch), and how many values it may hold in all (a batch of 100 creates
 * holds about 7,000). Checked before any code walks the body.
 */
export const MAX_JSON_DEPTH = 20;
export const MAX_JSON_VALUES = 10_000;

/** How long events stay readable through GET /v1/events and kept for redeliveries, unless EVENT_RETENTION_DAYS says otherwise. */
export const EVENT_RETENTION_DAYS = 30;

/** How long a POST's Idempotency-Key replays its first response. */
export const IDEMPOTENCY_WINDOW_HOURS = 24;

/** The most tasks one task may be blocked by (its blockedBy), and the most tasks one task may block. */
export const MAX_BLOCKERS = 100;
export const MAX_BLOCKING = 100;
/**
 * The dependency links one request's cycle checks may follow together (a batch's dependencies
 * share them): the work a request does on the dependency graph under the organisation's write
 * lock, whatever the graph's size. A check that has not decided within them is refused.
 */
export const DEPENDENCY_CHECK_LINKS = 10_000;

/**
 * The most subtasks one task may have (direct ones; they nest at most MAX_TASK_DEPTH levels), as
 * GitHub's sub-issues and GitLab's child items allow 100 under one parent.
 */
export const MAX_SUBTASKS = 100;
/**
 * The subtasks one request's checks may visit together (a move to done looks for open subtasks at
 * every depth, a move under a new parent measures the task's own subtasks; a batch's checks share
 * them): the work a request does on the subtask trees under the organisation's write lock,
 * whatever their size. A check that has not decided within them is refused.
 */
export const SUBTASK_CHECK_TASKS = 10_000;
/** The most comments one task may hold: what its delete takes with it, beside its checklist and the tasks it blocks. */
export const MAX_COMMENTS_PER_TASK = 200;
/** The most items one task's checklist may hold: a checklist is short; longer work is subtasks. */
export const MAX_CHECKLIST_ITEMS_PER_TASK = 100;
/**
 * The records one request's deletes may change with them, each with its event (a label's tasks,
 * a task's comments, checklist items and the tasks it blocked; a batch's deletes together): as
 * many as the fullest task takes, so that a task's delete alone always fits. Changing a task and
 * writing its event costs the database about 0.2 ms under the organisation's write lock, so a
 * request's deletes hold it under 0.1 s.
 */
export const CASCADE_RECORDS = MAX_BLOCKING + MAX_COMMENTS_PER_TASK + MAX_CHECKLIST_ITEMS_PER_TASK;

/**
 * Bytes of records or events one statement answers at most, beyond the first (db/statements/engine/answer-size.ts):
 * a list page, an export's page, the sweep's read.
 */
export const ANSWER_BYTES = 4 * 1024 * 1024;
