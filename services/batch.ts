import type { Database, QueryResult, Statement } from "../db/client.ts";
import { batchRefusalOf, openBatch, rememberBatch, STORED_ANSWER, type StoredBatch } from "../db/statements/batch.ts";
import { isIdempotencyRace } from "../db/statements/engine/idempotency.ts";
import { inResponseOrder } from "../db/statements/engine/projection.ts";
import type { Resource } from "../db/statements/engine/resource.ts";
import { DomainError } from "../domain/errors.ts";
import type { OpsEvent } from "../domain/events.ts";
import { uuidv7 } from "../domain/ids.ts";
import { translateConstraintError } from "./constraint-errors.ts";
import type { Call, IdempotencyRequest, ServiceContext } from "./context.ts";
import { idempotencyMismatch } from "./refusals.ts";
import { eventsOf, notifyAfterCommit, publish } from "./rooms.ts";
import type { WriteResult } from "./settle.ts";

// POST /v1/batch: up to 100 creates, changes and deletes, all or nothing, in one round trip.
//
// Each operation runs through its own service verb, exactly as its single call would, but on a
// database handle that collects its one statement instead of sending it. Once every operation
// has handed in its statement, they go as one transaction in one request, in order: each sees
// the ones before it, so a task may name the project created two operations earlier, and their
// changeVersions are consecutive. A refused operation raises inside the transaction with its
// outcome (db/statements/engine/sql.ts runWrite), so nothing commits; its verb then settles that outcome
// into the very error the single call answers, and the batch answers it with the operation's
// index. The committed events go to the room in one message, in order.

export interface BatchOperation {
  /** Runs the operation's service verb on the context it is handed (one statement). */
  run(ctx: ServiceContext): Promise<WriteResult<{ version: number }> & { created?: boolean }>;
  /** What it answers when it succeeds: 201 for a create, 200 for a change or delete (an upsert answers 201 when it created). */
  status: 200 | 201;
  /** For a create: the id its record gets, chosen now so that later operations can name it. */
  newId?: string | undefined;
  /** The resource it writes: a replayed answer is put back in the order its records are answered in. */
  resource: Resource;
}

export interface BatchAnswer {
  results: { status: number; data: Record<string, unknown> }[];
  batchId: string | null;
  /** The stored first answer to a repeated Idempotency-Key. */
  replayed: boolean;
}

/** An error of one operation, as the batch answers it: the operation's index beside the usual details. */
export function atOperation(error: unknown, operation: number): unknown {
  if (!(error instanceof DomainError) || error.details.operation !== undefined) return error;
  return new DomainError(error.code, error.message, { ...error.details, operation });
}

/** The abort handed to the operations that did not fail when another one did. */
class BatchAborted extends Error {}

/**
 * A bug, not a refusal: the transaction committed (every operation's statement found its checks
 * held) but an operation's service then settled its outcome as an error. The answer must not say
 * that nothing was written.
 */
export class CommittedButUnsettled extends DomainError {
  constructor(operation: number, cause: unknown) {
    super(
      "internal_error",
      `the batch was committed, but operation ${operation}'s answer could not be built; read its records (GET) for their state`,
      { operation },
    );
    this.cause = cause;
  }
}

interface Pending<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

function pending<T>(): Pending<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

/** Waits until every operation has handed in its statement; one that fails before it has one (then nothing was sent) fails the batch. */
async function statementsHandedIn(
  running: Promise<unknown>[],
  handedIn: Pending<void>[],
  statements: (Statement | undefined)[],
): Promise<void> {
  for (const [i, run] of running.entries()) {
    const first = await Promise.race([
      handedIn[i]!.promise.then(() => "statement" as const),
      run.then(
        () => "settled" as const,
        () => "settled" as const,
      ),
    ]);
    if (first === "settled" && !statements[i]) {
      await run.catch((error: unknown) => {
        throw atOperation(error, i);
      });
      throw new Error(`operation ${i} answered without a statement`);
    }
  }
}

/**
 * The batch's transaction failed. An operation's refusal settles that operation (its refusal is
 * the batch's) and aborts the others; the stored answer to the Idempotency-Key is answered as it
 * was; anything else is the database's error.
 */
async function refused(
  ctx: ServiceContext,
  { operations, idempotency }: { operations: BatchOperation[]; idempotency: IdempotencyRequest | undefined },
  error: unknown,
  answers: Pending<QueryResult<Record<string, unknown>>>[],
  running: Promise<unknown>[],
): Promise<BatchAnswer> {
  const refusal = batchRefusalOf(error);
  if (!refusal) throw translateConstraintError(error, false);
  if (refusal.operation === STORED_ANSWER) return storedAnswer(ctx, operations, refusal.outcome as unknown as StoredBatch, idempotency!);
  const op = refusal.operation;
  answers.forEach((answer, i) => (i === op ? answer.resolve({ rows: [refusal.outcome] }) : answer.reject(new BatchAborted())));
  throw await running[op]!.then(
    () => new Error(`operation ${op} was refused by its statement but settled as a success`, { cause: error }),
    (settled: unknown) => atOperation(settled, op),
  );
}

/** Runs the batch; the caller's context supplies the database, the actor and the rooms. */
export async function runBatch({
  ctx,
  input,
}: Call<{ operations: BatchOperation[]; idempotency?: IdempotencyRequest | undefined }>): Promise<BatchAnswer> {
  const { operations, idempotency } = input;
  const batchId = uuidv7();
  const statements: (Statement | undefined)[] = operations.map(() => undefined);
  const handedIn = operations.map(() => pending<void>());
  const answers = operations.map(() => pending<QueryResult<Record<string, unknown>>>());
  const observed: number[] = [];

  const handleFor = (operation: number, op: BatchOperation): Database => ({
    batch: { operation, remember: idempotency !== undefined, newId: op.newId },
    queryCount: 0,
    checksStatements: ctx.db.checksStatements,
    query<Row>(text: string, params: unknown[] = []) {
      if (statements[operation]) throw new Error("an operation of a batch must be one statement");
      statements[operation] = { text, params };
      handedIn[operation]!.resolve();
      return answers[operation]!.promise as Promise<QueryResult<Row>>;
    },
    transaction: () => Promise.reject(new Error("an operation of a batch cannot open a transaction of its own")),
  });

  const running = operations.map((op, i) =>
    op.run({
      ...ctx,
      db: handleFor(i, op),
      idempotency: undefined,
      observe: (changeVersion) => observed.push(changeVersion),
      // The batch publishes its events together, after the commit (below).
      defer: () => {},
    }),
  );
  running.forEach((run) => run.catch(() => {}));

  await statementsHandedIn(running, handedIn, statements);

  const opening = openBatch(ctx.db, ctx.actor, batchId, idempotency);
  const closing = idempotency ? rememberBatch(ctx.db, ctx.actor, idempotency) : null;
  const all = [...opening, ...(statements as Statement[]), ...(closing ? [closing] : [])];
  let results: QueryResult<Record<string, unknown>>[];
  try {
    results = await ctx.db.transaction(all).catch((error: unknown) => {
      // Another request with the same Idempotency-Key claimed it first and committed: once more,
      // and the opening finds its answer.
      if (idempotency && isIdempotencyRace(error)) return ctx.db.transaction(all);
      throw error;
    });
  } catch (error) {
    return await refused(ctx, { operations, idempotency }, error, answers, running);
  }

  results.slice(opening.length, opening.length + operations.length).forEach((result, i) => answers[i]!.resolve(result));
  const written: BatchAnswer["results"] = [];
  const events: OpsEvent[] = [];
  for (const [i, run] of running.entries()) {
    // Committed: every operation's checks held inside the transaction, so each settles as a success.
    const result = await run.catch((error: unknown) => {
      throw new CommittedButUnsettled(i, error);
    });
    const status = result.created === undefined ? operations[i]!.status : result.created ? 201 : 200;
    written.push({ status, data: result.record as unknown as Record<string, unknown> });
    events.push(...eventsOf(result));
  }
  if (observed.length) ctx.observe?.(Math.max(...observed));
  const orgId = events[0]?.orgId;
  if (orgId) ctx.defer(() => publish(ctx, orgId, events));
  notifyAfterCommit(ctx, events);
  return { results: written, batchId: events.length ? batchId : null, replayed: false };
}

/** The stored first answer to this Idempotency-Key; another request under the same key is refused. */
function storedAnswer(
  ctx: ServiceContext,
  operations: BatchOperation[],
  stored: StoredBatch,
  idempotency: IdempotencyRequest,
): BatchAnswer {
  if (stored.requestHash !== idempotency.requestHash) throw idempotencyMismatch();
  if (stored.changeVersion !== null) ctx.observe?.(Number(stored.changeVersion));
  const results = stored.response.results.map((answer, i) => ({
    status: answer.created ? 201 : 200,
    data: inResponseOrder(operations[i]!.resource, answer.data),
  }));
  return { results, batchId: stored.response.batchId, replayed: true };
}
