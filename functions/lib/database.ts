import { connectDatabase, type Database } from "../../db/client.ts";
import type { Bindings } from "../env.ts";

/** The database handle for the Worker's bindings: the one place that maps them to db/client.ts. */
export function databaseFor(env: Bindings): Database {
  return connectDatabase({ url: env.DATABASE_URL, wsProxy: env.DB_WS_PROXY });
}
