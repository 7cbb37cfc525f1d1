import type { AnyCommandSpec } from "../lib/command.ts";

export interface CommandEntry {
  name: string;
  summary: string;
  load(): Promise<{ default: AnyCommandSpec }>;
}

// Loaded on use, so a command starts without importing every other command's dependencies.
export const COMMANDS: CommandEntry[] = [
  { name: "migrate", summary: "apply pending database migrations", load: () => import("./migrate.ts") },
  { name: "org create", summary: "create an organisation", load: () => import("./org-create.ts") },
  { name: "key create", summary: "issue an API key (shown once)", load: () => import("./key-create.ts") },
  { name: "key list", summary: "list an organisation's API keys", load: () => import("./key-list.ts") },
  { name: "key revoke", summary: "revoke an API key at once", load: () => import("./key-revoke.ts") },
  { name: "user create", summary: "add a person who signs in, with a role (password shown once)", load: () => import("./user-create.ts") },
  { name: "personnel add", summary: "add a person to an organisation", load: () => import("./personnel-add.ts") },
  { name: "seed", summary: "create a demo organisation with data and an all-scopes key", load: () => import("./seed.ts") },
  { name: "audit verify", summary: "check an organisation's audit log chain", load: () => import("./audit-verify.ts") },
  { name: "listen", summary: "print live events; forward them to a local URL as signed webhooks", load: () => import("./listen.ts") },
];
