import { neon, neonConfig } from "@neondatabase/serverless";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { drizzle } from "drizzle-orm/neon-http";
import type { DatabaseConfig } from "./client.ts";
import { accounts, sessions, users, verifications } from "./schema/people.ts";

// Apart from db/client.ts so that better-auth and drizzle's query builder are loaded only with
// sign-in (functions/auth/auth.ts, itself loaded when /auth is first called), not by every call.

/**
 * better-auth's database (functions/auth/auth.ts): its drizzle adapter over drizzle's query
 * builder on the same HTTP driver, with the tables of db/schema/people.ts. Nothing else uses the
 * builder; our own statements go through `Database`.
 */
export function authDatabaseFor(config: DatabaseConfig) {
  // The driver's requests go to the local /sql endpoint too, as db/client.ts's do.
  const local = config.localSqlEndpoint;
  if (local) neonConfig.fetchEndpoint = () => `http://${local}/sql`;
  return drizzleAdapter(drizzle({ client: neon(config.url), casing: "snake_case" }), {
    provider: "pg",
    schema: { user: users, session: sessions, account: accounts, verification: verifications },
    // neon over HTTP has no interactive transactions; each of better-auth's writes stands alone.
    transaction: false,
  });
}
