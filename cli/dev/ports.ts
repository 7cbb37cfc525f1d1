import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { CommandError } from "../lib/errors.ts";

/**
 * Fails with a clear message when something already listens on the port. Probing 127.0.0.1 also
 * catches a listener on 0.0.0.0 (partykit binds all interfaces).
 */
export async function assertPortFree(port: number, what: string): Promise<void> {
  const server = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen({ port, host: "127.0.0.1", exclusive: true }, resolve);
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE") throw new CommandError(`port ${port} (${what}) is in use — is another \`npm run dev\` running?`);
    throw new CommandError(`cannot listen on port ${port} (${what}): ${code ?? (error as Error).message}`);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

/** A port free right now on 127.0.0.1, for a server started a moment later. */
export async function reserveFreePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port: 0, host: "127.0.0.1" }, resolve);
  });
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The lowest port Linux hands out as a connection's local port (net.ipv4.ip_local_port_range). */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 11_000 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

/**
 * A port free right now on 127.0.0.1 and outside the kernel's ephemeral range, for a server that
 * a test stops and starts again on it (the room). A port from reserveFreePort lies inside that
 * range: while its server is down, any outgoing connection may take it as its local port, and the
 * server started again cannot bind it (partykit binds every interface).
 */
export async function reserveRestartablePort(): Promise<number> {
  const low = ephemeralLow();
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = 10_000 + Math.floor(Math.random() * (low - 10_000));
    const server = createServer();
    const listening = await new Promise<boolean>((resolve) => {
      server.once("error", () => resolve(false));
      server.listen({ port, host: "127.0.0.1", exclusive: true }, () => resolve(true));
    });
    if (listening) {
      await new Promise((resolve) => server.close(resolve));
      return port;
    }
  }
  throw new Error(`no free port between 10000 and ${low}`);
}
