import { createServer, type Server, type Socket } from "node:net";
import type { PGlite } from "@electric-sql/pglite";

// Serves one PGlite over the Postgres wire protocol to many connections.
//
// PGlite is a single Postgres session, so connections must take turns. @electric-sql/pglite-socket
// takes turns per protocol *message*, which lets another connection's Parse land between this
// connection's Parse and Execute (the unnamed statement is shared session state): under concurrent
// load queries then fail or connections drop. Here a connection holds the session from its first
// message up to and including the Sync (or simple Query) that ends its request, and for as long as
// it keeps a transaction open.

const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
/** Messages after which the client waits for an answer: Sync, simple Query, Flush. */
const REQUEST_ENDS = new Set(["S", "Q", "H"]);
/** After these the request is complete; after Flush the client may go on with the same request. */
const RELEASES_SESSION = new Set(["S", "Q"]);

class SessionTurns {
  private owner: number | null = null;
  private waiting: (() => void)[] = [];

  async take(connection: number): Promise<void> {
    while (this.owner !== null && this.owner !== connection) await new Promise<void>((wake) => this.waiting.push(wake));
    this.owner = connection;
  }

  give(connection: number): void {
    if (this.owner !== connection) return;
    this.owner = null;
    this.waiting.shift()?.();
  }

  holds(connection: number): boolean {
    return this.owner === connection;
  }
}

export interface PGliteServer {
  port: number;
  close(): Promise<void>;
}

/**
 * One request's messages, run while the connection holds the session; it keeps it while a
 * transaction stays open, or when the request is not over (`release` false: a Flush).
 */
async function runMessages(db: PGlite, turns: SessionTurns, id: number, socket: Socket, messages: Buffer[], release: boolean) {
  await turns.take(id);
  try {
    await db.runExclusive(async () => {
      for (const message of messages) {
        // `data` is a view into PGlite's memory, which it reuses for the next piece: a write the
        // socket must queue (a large answer) would send later pieces' bytes, so it is copied.
        await db.execProtocolRawStream(new Uint8Array(message), {
          onRawData: (data) => socket.writable && socket.write(Buffer.from(data)),
        });
      }
    });
  } finally {
    if (release && !db.isInTransaction()) turns.give(id);
  }
}

/** One client connection: its startup, then its messages gathered into requests, each run in turn. */
function serveConnection(db: PGlite, turns: SessionTurns, socket: Socket, id: number): void {
  socket.setNoDelay(true);
  let buffer = Buffer.alloc(0);
  let started = false;
  let request: Buffer[] = [];
  let work = Promise.resolve();

  const run = (messages: Buffer[], release: boolean) => runMessages(db, turns, id, socket, messages, release);

  const consume = async () => {
    for (;;) {
      if (!started) {
        if (buffer.length < 8) return;
        const length = buffer.readInt32BE(0);
        const code = buffer.readInt32BE(4);
        if (code === SSL_REQUEST || code === GSS_REQUEST) {
          buffer = buffer.subarray(8);
          socket.write("N");
          continue;
        }
        if (code === CANCEL_REQUEST) return void socket.end();
        if (buffer.length < length) return;
        const startup = buffer.subarray(0, length);
        buffer = buffer.subarray(length);
        started = true;
        await run([startup], true);
        continue;
      }
      if (buffer.length < 5) return;
      const total = 1 + buffer.readInt32BE(1);
      if (buffer.length < total) return;
      const message = Buffer.from(buffer.subarray(0, total));
      buffer = buffer.subarray(total);
      const type = String.fromCharCode(message[0]!);
      if (type === "X") return void socket.end();
      request.push(message);
      if (REQUEST_ENDS.has(type)) {
        const messages = request;
        request = [];
        await run(messages, RELEASES_SESSION.has(type));
      }
    }
  };

  socket.on("data", (chunk) => {
    buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
    work = work.then(consume).catch(() => void socket.destroy());
  });
  const closed = () => {
    work = work.then(async () => {
      // A client that vanished inside a transaction must not keep the session.
      if (!turns.holds(id)) return;
      if (db.isInTransaction()) await db.exec("ROLLBACK").catch(() => {});
      turns.give(id);
    });
  };
  socket.on("close", closed);
  socket.on("error", () => socket.destroy());
}

export async function servePGlite(db: PGlite, options: { host: string; port: number }): Promise<PGliteServer> {
  const turns = new SessionTurns();
  const sockets = new Set<Socket>();
  let nextId = 1;

  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    serveConnection(db, turns, socket, nextId++);
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
