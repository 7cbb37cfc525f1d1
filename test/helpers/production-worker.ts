import { randomBytes } from "node:crypto";
import { inject } from "vitest";
import { startSqlEndpoint } from "../../cli/lib/sql-endpoint.ts";
import { startTestWorker } from "./worker.ts";

// A Worker as production runs it (docs/deployment.md): wrangler.toml's top level, which is the
// production environment, and only what a deployment sets beside it: the secrets (DATABASE_URL,
// REALTIME_SECRET, AUTH_SECRET) and REALTIME_URL. No WEBHOOKS_ALLOW_LOOPBACK, and the Worker sees
// its requests at an https origin, as on Cloudflare, so its session cookies are the __Secure- ones.
// What a test machine cannot do as production does: the database through the local SQL endpoint
// (LOCAL_SQL_ENDPOINT: there is no Neon here), the harness's room over http, and CHECK_STATEMENTS,
// on in every test Worker (it compares each statement's two compilations and changes no answer).
// On the harness's database, so fixtures made through it (createTenant) are there too.

/** The origin the production Worker sees in request.url. */
export const PRODUCTION_ORIGIN = "https://api.opsroom.example";

export interface ProductionWorker {
  /** Where to send requests (the Worker's own local address; it sees them at PRODUCTION_ORIGIN). */
  url: string;
  dispose(): Promise<void>;
}

export async function startProductionWorker(): Promise<ProductionWorker> {
  const database = new URL(inject("databaseUrl"));
  const sqlEndpoint = await startSqlEndpoint({ target: { host: database.hostname, port: Number(database.port || 5432) } });
  try {
    const bindings = {
      DATABASE_URL: inject("databaseUrl"),
      LOCAL_SQL_ENDPOINT: sqlEndpoint.address,
      REALTIME_URL: inject("realtimeUrl"),
      REALTIME_SECRET: inject("realtimeSecret"),
      AUTH_SECRET: randomBytes(32).toString("hex"),
    };
    const worker = await startTestWorker(bindings, { origin: PRODUCTION_ORIGIN });
    return {
      url: worker.url,
      dispose: async () => {
        await worker.dispose();
        await sqlEndpoint.close();
      },
    };
  } catch (error) {
    await sqlEndpoint.close();
    throw error;
  }
}
