import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import type { Database } from "../../db/client.ts";
import { createApiKey, findOrganisation } from "../../db/queries/admin.ts";
import { DEMO_KEY_APPLICATION } from "../../db/queries/demo-company.ts";
import { seedDemo } from "../../db/queries/seed.ts";
import { hashApiKey } from "../../functions/lib/api-keys.ts";
import { ALL_SCOPES } from "../../functions/lib/scopes.ts";
import { DATA_DIR, DEMO_FILE } from "../lib/paths.ts";

/**
 * .data/demo.json holds one demo key per database (the embedded one, or DATABASE_URL's host:port/name):
 * a database keeps only the key's hash, so this file is the one copy of it.
 */
type DemoFile = Record<string, DemoKey>;

export interface DemoKey {
  orgId: string;
  orgName: string;
  keyId: string;
  key: string;
}

export type DemoOutcome =
  | { demo: DemoKey; how: "seeded" | "stored" | "reissued" }
  /** The database had organisations before dev first ran (or demo.json was deleted): nothing to show. */
  | { demo: null; how: "unavailable" };

/**
 * The demo key to print: on the first start (no organisation yet) the demo organisation is seeded;
 * later starts reuse the stored key while it is still valid, and replace it if it was revoked.
 */
export async function ensureDemoKey(db: Database, databaseLabel: string): Promise<DemoOutcome> {
  const { rows } = await db.query<{ any: boolean }>("select exists (select 1 from organisations) as any");
  if (!rows[0]!.any) {
    const seeded = await seedDemo(db);
    const demo = { orgId: seeded.organisation.id, orgName: seeded.organisation.name, keyId: seeded.key.id, key: seeded.key.key };
    return remember(databaseLabel, demo, "seeded");
  }
  const stored = readDemoFile()[databaseLabel];
  if (!stored) return { demo: null, how: "unavailable" };
  if (await isKeyValid(db, stored)) return { demo: stored, how: "stored" };
  const organisation = await findOrganisation(db, stored.orgId);
  if (!organisation) return { demo: null, how: "unavailable" };
  const key = await createApiKey(db, { orgId: organisation.id, application: DEMO_KEY_APPLICATION, scopes: ALL_SCOPES });
  return remember(databaseLabel, { orgId: organisation.id, orgName: organisation.name, keyId: key.id, key: key.key }, "reissued");
}

async function isKeyValid(db: Database, demo: DemoKey): Promise<boolean> {
  const { rows } = await db.query(
    "select 1 from api_keys where id = $1 and org_id = $2 and key_hash = $3 and revoked_at is null",
    [demo.keyId, demo.orgId, await hashApiKey(demo.key)],
  );
  return rows.length === 1;
}

function remember(databaseLabel: string, demo: DemoKey, how: "seeded" | "reissued"): DemoOutcome {
  mkdirSync(DATA_DIR, { recursive: true });
  const file: DemoFile = { ...readDemoFile(), [databaseLabel]: demo };
  writeFileSync(DEMO_FILE, JSON.stringify(file, null, 2) + "\n", { mode: 0o600 });
  return { demo, how };
}

function readDemoFile(): DemoFile {
  try {
    return JSON.parse(readFileSync(DEMO_FILE, "utf8")) as DemoFile;
  } catch {
    return {};
  }
}
