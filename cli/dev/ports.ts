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
