/* eslint-disable max-lines -- the faulty proxy (a Postgres protocol reader) and the stack it sits in are one tool. */
import { randomBytes } from "node:crypto";
import { createServer as createHttpServer, type Server } from "node:http";
import { createConnection, createServer as createTcpServer, type AddressInfo, type Socket } from "node:net";
import pg from "pg";
import { afterAll, beforeAll, inject } from "vitest";
import { startEmbeddedPostgres } from "../../cli/lib/embedded-postgres.ts";
import { startSqlEndpoint, type NeonFault, type SqlEndpoint } from "../../cli/lib/sql-endpoint.ts";
import type { Database } from "../../db/client.ts";
import { runMigrations } from "../../db/migrate.ts";
import { connectNodeDatabase } from "../../db/node-client.ts";
import { startTestWorker } from "./worker.ts";

// A stack of its own for the failure tests (test/protection/database-failures.test.ts): a fresh
// database (another PGlite, or another database on DATABASE_URL's server), the real SQL endpoint
// (cli/lib/sql-endpoint.ts) the Worker reaches the database through, a TCP proxy between that endpoint
// and Postgres that the test can break, a realtime stand-in that acknowledges what it is sent, and
// a Worker in workerd wired to them. The shared harness is never broken: other files run against
// it at the same time.
//
// Faults, whichever way the Worker's driver talks to the SQL endpoint (HTTP /sql or WebSocket):
//   - stopSqlEndpoint() / restartSqlEndpoint(): nothing listens where the Worker expects the SQL endpoint;
//   - refuse(): Postgres refuses connections (and the open ones are dropped);
//   - hang(): connections to Postgres are accepted and never answered (and the open ones dropped);
//   - cutBefore(sql) / cutAfter(sql): the next request whose statement matches `sql` is dropped
//     before it reaches Postgres, or forwarded whole and then the connection is cut before the
//     answer comes back (so the statement may or may not have committed);
//   - stall(sql): the next request whose statement matches `sql` is held, as a statement that
//     runs long, and reaches Postgres at heal() if its connection is still open by then;
//   - heal(): everything passes again.
// And the SQL endpoint's fault mode, failNext(fault, sql): the next request whose statement
// matches is answered with one of Neon's own error answers (cli/lib/sql-endpoint.ts). These stacks
// are each a file's own, so no other test file meets a fault.

type Fault =
  | { kind: "refuse" }
  | { kind: "hang" }
  | { kind: "cut"; when: "before" | "after"; sql: RegExp; done: () => void }
  | { kind: "stall"; sql: RegExp; done: (held: Held) => void };

/** A request stall() holds. */
export interface Held {
  /** Resolves when the client (the SQL endpoint) closes the connection the request is held on. */
  closed: Promise<void>;
}

export interface FaultyProxy {
  port: number;
  refuse(): void;
  hang(): void;
  /** Arms a cut for the next request whose SQL matches; resolves once it happened. */
  cutBefore(sql: RegExp): Promise<void>;
  cutAfter(sql: RegExp): Promise<void>;
  /** Holds the next request whose SQL matches until heal(); resolves once it is held. */
  stall(sql: RegExp): Promise<Held>;
  heal(): void;
  close(): Promise<void>;
}

/** Splits the client's side of the Postgres protocol into messages, keeping the SQL of Parse and Query. */
class FrontendMessages {
  private buffer = Buffer.alloc(0);
  private started = false;

  push(chunk: Buffer): Array<{ type: string; sql?: string }> {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    const messages: Array<{ type: string; sql?: string }> = [];
    for (;;) {
      if (!this.started) {
        if (this.buffer.length < 8) return messages;
        const length = this.buffer.readInt32BE(0);
        const code = this.buffer.readInt32BE(4);
        if (this.buffer.length < length) return messages;
        this.buffer = this.buffer.subarray(length);
        // SSLRequest and GSSENCRequest come before the startup message.
        if (code !== 80877103 && code !== 80877104) this.started = true;
        messages.push({ type: "startup" });
        continue;
      }
      if (this.buffer.length < 5) return messages;
      const total = 1 + this.buffer.readInt32BE(1);
      if (this.buffer.length < total) return messages;
      const message = this.buffer.subarray(0, total);
      this.buffer = this.buffer.subarray(total);
      const type = String.fromCharCode(message[0]!);
      const body = message.subarray(5);
      if (type === "Q") messages.push({ type, sql: body.toString("utf8", 0, body.indexOf(0)) });
      else if (type === "P") {
        const nameEnd = body.indexOf(0);
        messages.push({ type, sql: body.toString("utf8", nameEnd + 1, body.indexOf(0, nameEnd + 1)) });
      } else messages.push({ type });
    }
  }
}

/** A TCP proxy in front of Postgres that reads the client's statements and can fail on cue. */
// eslint-disable-next-line max-lines-per-function -- the proxy's fault is one variable that every connection's handler reads and the controls it returns set; one closure holds both
export async function startFaultyProxy(target: { host: string; port: number }): Promise<FaultyProxy> {
  let fault: Fault | null = null;
  const open = new Set<Socket>();
  /** What heal() sends on: the requests held by stall(). */
  const stalled: Array<() => void> = [];
  const dropAll = () => {
    for (const socket of open) socket.destroy();
    open.clear();
  };

  const server = createTcpServer((client) => {
    open.add(client);
    client.on("close", () => open.delete(client));
    client.on("error", () => client.destroy());
    if (fault?.kind === "refuse") return void client.destroy();
    // A database that never answers: the connection is open, nothing is behind it.
    if (fault?.kind === "hang") return;

    const upstream = createConnection(target);
    open.add(upstream);
    upstream.setNoDelay(true);
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    upstream.on("close", () => {
      open.delete(upstream);
      client.destroy();
    });
    upstream.on("error", close);
    // Once a request was cut after it went out, Postgres's side stays open until Postgres closes it.
    let cutOff = false;
    client.on("close", () => cutOff || upstream.destroy());
    upstream.on("data", (data) => client.writable && client.write(data));

    const protocol = new FrontendMessages();
    const pending: Buffer[] = [];
    upstream.on("connect", () => {
      for (const chunk of pending.splice(0)) upstream.write(chunk);
    });
    let armed = false;
    let held: Buffer[] | null = null;
    client.on("data", (data: Buffer) => {
      if (held) return void held.push(data);
      const cut = fault?.kind === "cut" || fault?.kind === "stall" ? fault : null;
      let requestEnds = false;
      for (const message of protocol.push(data)) {
        if (cut && message.sql && cut.sql.test(message.sql)) armed = true;
        if (armed && (message.type === "S" || message.type === "Q")) requestEnds = true;
      }
      if (cut?.kind === "stall" && armed) {
        // Nothing of this connection goes on until heal(); a connection closed meanwhile sends nothing.
        fault = null;
        armed = false;
        held = [data];
        stalled.push(() => {
          for (const chunk of held!.splice(0)) if (upstream.writable) upstream.write(chunk);
          held = null;
        });
        return cut.done({ closed: new Promise<void>((resolve) => client.once("close", () => resolve())) });
      }
      if (cut?.kind === "cut" && armed && cut.when === "before") {
        // The statement never reaches Postgres.
        fault = null;
        close();
        return cut.done();
      }
      if (upstream.connecting) pending.push(data);
      else if (upstream.writable) upstream.write(data);
      if (cut?.kind === "cut" && requestEnds) {
        // The whole request goes out (FIN after its bytes) and the client is cut off at once: it
        // never learns whether the statement committed. The cut is done when Postgres closes its
        // side, which it does only once it has run the request and then read the FIN: whatever the
        // test reads after that sees the outcome. (Done at once, a check could look while the
        // request was still on its way in, find the database quiet, and the write commit after it.)
        fault = null;
        cutOff = true;
        upstream.removeAllListeners("data");
        upstream.once("close", () => cut.done());
        upstream.end();
        client.destroy();
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const cut = (when: "before" | "after", sql: RegExp) =>
    new Promise<void>((done) => {
      fault = { kind: "cut", when, sql, done };
    });
  return {
    port: (server.address() as AddressInfo).port,
    refuse() {
      fault = { kind: "refuse" };
      dropAll();
    },
    hang() {
      fault = { kind: "hang" };
      dropAll();
    },
    cutBefore: (sql) => cut("before", sql),
    cutAfter: (sql) => cut("after", sql),
    stall: (sql) =>
      new Promise<Held>((done) => {
        fault = { kind: "stall", sql, done };
      }),
    heal() {
      fault = null;
      for (const release of stalled.splice(0)) release();
    },
    close: () =>
      new Promise<void>((resolve) => {
        dropAll();
        server.close(() => resolve());
      }),
  };
}

/** A database of its own: another PGlite, or another database on the harness's server. */
export async function startDatabase(): Promise<{ url: string; target: { host: string; port: number }; stop(): Promise<void> }> {
  if (inject("databaseKind") === "embedded") {
    const embedded = await startEmbeddedPostgres();
    await runMigrations(embedded.url);
    return { url: embedded.url, target: { host: "127.0.0.1", port: embedded.port }, stop: () => embedded.stop() };
  }
  // Named like the harness's own, so a killed run's leftover is swept the same way.
  const name = `opsroom_test_${Date.now()}_${randomBytes(4).toString("hex")}`;
  const server = new URL(inject("databaseUrl"));
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: server.toString() });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`create database "${name}"`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  await runMigrations(url.toString());
  return {
    url: url.toString(),
    target: { host: url.hostname, port: Number(url.port || 5432) },
    stop: () => admin(`drop database if exists "${name}" with (force)`),
  };
}

/** Acknowledges every event it is sent, like the room; keeps nothing. */
async function startRoomStandIn(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      let acknowledged: number[] = [];
      try {
        const message = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { events?: Array<{ changeVersion: number }> };
        acknowledged = (message.events ?? []).map((event) => event.changeVersion);
      } catch {
        // not an events message: acknowledge nothing
      }
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ acknowledged }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface FailureStack {
  workerUrl: string;
  /** Direct access to the stack's database (fixtures, inspection); not through the proxy. */
  db: Database;
  /** Between the SQL endpoint and Postgres. */
  proxy: FaultyProxy;
  /** Stops the SQL endpoint: nothing listens where the Worker expects it. */
  stopSqlEndpoint(): Promise<void>;
  /** Starts it again, on the same port. */
  restartSqlEndpoint(): Promise<void>;
  /** The SQL endpoint answers the next request with a statement matching `sql` with Neon's `fault` answer (SqlEndpoint.failNext). */
  failNext(fault: NeonFault, sql: RegExp): Promise<void>;
  /** Everything the Worker printed (its console) since the stack started. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts a stack for this file before its tests and stops it after them; the getter answers it.
 * `auth`: people may sign up and in (an AUTH_SECRET), for tests that need a session.
 */
export function useFailureStack(options: { auth?: boolean } = {}): () => FailureStack {
  let stack: FailureStack | undefined;
  beforeAll(async () => {
    stack = await startFailureStack(options);
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  }, 60_000);
  return () => stack!;
}

/**
 * Starts the stack. The Worker's console output reaches this process (wrangler prints it), so this
 * process's console, stdout and stderr are recorded from here on, and passed through as usual.
 */
export async function startFailureStack(options: { auth?: boolean } = {}): Promise<FailureStack> {
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  const stop = async () => {
    for (const cleanup of cleanups.splice(0).reverse())
      await Promise.resolve()
        .then(cleanup)
        .catch(() => {});
  };
  const output: string[] = [];
  const record = (stream: NodeJS.WriteStream) => {
    const write = stream.write.bind(stream);
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      output.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
      return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof stream.write;
    cleanups.push(() => (stream.write = write));
  };
  record(process.stdout);
  record(process.stderr);
  // wrangler prints through console, which the test runner may have replaced with its own.
  for (const method of ["log", "info", "warn", "error", "debug"] as const) {
    const original = console[method];
    console[method] = (...args: unknown[]) => {
      output.push(`${args.map((arg) => (typeof arg === "string" ? arg : String(arg))).join(" ")}\n`);
      original.apply(console, args);
    };
    cleanups.push(() => (console[method] = original));
  }
  try {
    const database = await startDatabase();
    cleanups.push(() => database.stop());
    const proxy = await startFaultyProxy(database.target);
    cleanups.push(() => proxy.close());
    let sqlEndpoint: SqlEndpoint | null = await startSqlEndpoint({ target: { host: "127.0.0.1", port: proxy.port } });
    const sqlEndpointPort = sqlEndpoint.port;
    cleanups.push(() => sqlEndpoint?.close());
    const stopSqlEndpoint = async () => {
      const stopping = sqlEndpoint;
      sqlEndpoint = null;
      await stopping?.close();
    };
    const restartSqlEndpoint = async () => {
      sqlEndpoint ??= await startSqlEndpoint({ target: { host: "127.0.0.1", port: proxy.port }, port: sqlEndpointPort });
    };
    const room = await startRoomStandIn();
    cleanups.push(() => room.close());
    const db = connectNodeDatabase(database.url, { max: 3 });
    cleanups.push(() => db.close());

    const worker = await startTestWorker(
      // The request log line is on: the console test reads it for keys it must never hold.
      {
        DATABASE_URL: database.url,
        LOCAL_SQL_ENDPOINT: sqlEndpoint.address,
        REALTIME_URL: room.url,
        REALTIME_SECRET: randomBytes(24).toString("hex"),
        LOG_REQUESTS: "true",
        ...(options.auth ? { AUTH_SECRET: randomBytes(32).toString("hex") } : {}),
      },
      { logLevel: "log" },
    );
    cleanups.push(() => worker.dispose());
    const workerUrl = worker.url;
    const failNext = (fault: NeonFault, sql: RegExp) => {
      if (!sqlEndpoint) throw new Error("the SQL endpoint is stopped");
      return sqlEndpoint.failNext(fault, sql);
    };
    return { workerUrl, db, proxy, stopSqlEndpoint, restartSqlEndpoint, failNext, output: () => output.join(""), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
