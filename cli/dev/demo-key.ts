import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import type { Database } from "../../db/client.ts";
import { isLiveKey } from "../../db/statements/api-keys.ts";
import { hasOrganisations } from "../../db/statements/organisations.ts";
import { passwordHashOf } from "../../db/statements/users.ts";
import { hashApiKey } from "../../domain/crypto/api-keys.ts";
import { verifyPassword } from "../../domain/crypto/passwords.ts";
import { ALL_SCOPES } from "../../domain/scopes.ts";
import { createApiKey } from "../../services/api-keys.ts";
import { findOrganisation } from "../../services/organisation.ts";
import type { Rooms } from "../../services/room-client.ts";
import { DEMO_KEY_APPLICATION } from "../../services/seed/demo-company.ts";
import { DEMO_IDS } from "../../services/seed/demo-ids.ts";
import { seedDemoViews } from "../../services/seed/demo-views.ts";
import { seedDemo } from "../../services/seed/seed.ts";
import { createUser } from "../../services/users.ts";
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
  /** The demo organisation's owner, who signs in to the console (the password is kept here only). */
  owner?: DemoOwner | undefined;
}

export interface DemoOwner {
  email: string;
  password: string;
}

export type DemoOutcome =
  | { demo: DemoKey; how: "seeded" | "stored" | "reissued" }
  /** The database had organisations before dev first ran (or demo.json was deleted): nothing to show. */
  | { demo: null; how: "unavailable" };

/**
 * The demo key to print: on the first start (no organisation yet) the demo organisation is seeded;
 * later starts reuse the stored key while it is still valid, and replace it if it was revoked.
 */
export async function ensureDemoKey(db: Database, rooms: Rooms, databaseLabel: string, webhookReceiver: string): Promise<DemoOutcome> {
  if (!(await hasOrganisations(db))) {
    // The database is empty, so the demo can take the fixed ids the OpenAPI examples name.
    const seeded = await seedDemo({ db, rooms }, { exampleIds: true, webhookReceiver });
    const demo = { orgId: seeded.organisation.id, orgName: seeded.organisation.name, keyId: seeded.key.id, key: seeded.key.key };
    // Its owner takes the fixed id the examples of the settings area's views name, and those views.
    const owner = await demoOwner(db, demo.orgId, DEMO_IDS.owner);
    await seedDemoViews(db);
    return remember(databaseLabel, { ...demo, owner }, "seeded");
  }
  const stored = readDemoFile()[databaseLabel];
  if (!stored) return { demo: null, how: "unavailable" };
  const owner = stored.owner && (await signsIn(db, stored.owner)) ? stored.owner : await demoOwner(db, stored.orgId);
  if (await isKeyValid(db, stored))
    return owner === stored.owner ? { demo: stored, how: "stored" } : remember(databaseLabel, { ...stored, owner }, "stored");
  const organisation = await findOrganisation({ ctx: { db }, input: { orgId: stored.orgId } });
  if (!organisation) return { demo: null, how: "unavailable" };
  const key = await createApiKey({ ctx: { db }, input: { orgId: organisation.id, application: DEMO_KEY_APPLICATION, scopes: ALL_SCOPES } });
  return remember(databaseLabel, { orgId: organisation.id, orgName: organisation.name, keyId: key.id, key: key.key, owner }, "reissued");
}

/** A new owner of the demo organisation, with a generated password (an address of its own each time). */
async function demoOwner(db: Database, orgId: string, userId?: string): Promise<DemoOwner> {
  const email = `owner-${randomBytes(3).toString("hex")}@demo.opsroom.dev`;
  const created = await createUser({ ctx: { db }, input: { orgId, email, name: "Demo Owner", role: "owner", userId } });
  return { email: created.email, password: created.password };
}

/** Whether the stored owner still exists with the stored password (a reset database loses them). */
async function signsIn(db: Database, owner: DemoOwner): Promise<boolean> {
  const hash = await passwordHashOf(db, owner.email);
  return hash !== null && (await verifyPassword({ hash, password: owner.password }));
}

async function isKeyValid(db: Database, demo: DemoKey): Promise<boolean> {
  return isLiveKey(db, { id: demo.keyId, orgId: demo.orgId, keyHash: hashApiKey(demo.key) });
}

function remember(databaseLabel: string, demo: DemoKey, how: "seeded" | "stored" | "reissued"): DemoOutcome {
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
