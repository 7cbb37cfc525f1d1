import { startEmbeddedPostgres, type EmbeddedPostgres } from "../../cli/lib/embedded-postgres.ts";
import { startSqlEndpoint } from "../../cli/lib/sql-endpoint.ts";
import { runMigrations } from "../../db/migrate.ts";

// The local SQL endpoint (cli/lib/sql-endpoint.ts, as `npm run dev` starts it) in a Node process of
// its own, so that bench/sections/cpu.ts can read its CPU apart from the load generator's:
//
//   node --import tsx bench/cpu/sql-endpoint-process.ts --port=N --target=host:port
//   node --import tsx bench/cpu/sql-endpoint-process.ts --port=N --pglite-port=M
//
// The second form also runs the database in this process, an in-memory PGlite served on port M
// and migrated, as `npm run dev` runs PGlite in the process that runs the endpoint. The endpoint
// listens only once the database is ready, so its port answering means the whole thing is.

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const port = Number(arg("port"));
const pglitePort = arg("pglite-port");
let embedded: EmbeddedPostgres | undefined;
let target: { host: string; port: number };
if (pglitePort) {
  embedded = await startEmbeddedPostgres({ port: Number(pglitePort) });
  await runMigrations(embedded.url);
  target = { host: "127.0.0.1", port: embedded.port };
} else {
  const [host, targetPort] = (arg("target") ?? "").split(":");
  if (!host || !targetPort) throw new Error("--target=host:port or --pglite-port=N is required");
  target = { host, port: Number(targetPort) };
}
const endpoint = await startSqlEndpoint({ target, port });
process.stdout.write(`sql endpoint on ${endpoint.address} → ${target.host}:${target.port}${embedded ? " (PGlite in this process)" : ""}\n`);

const stop = async () => {
  await endpoint.close();
  await embedded?.stop();
  process.exit(0);
};
process.once("SIGTERM", () => void stop());
process.once("SIGINT", () => void stop());
