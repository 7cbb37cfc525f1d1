import { parseScopeList, type Scope } from "../../domain/scopes.ts";
import { createApiKey } from "../../services/api-keys.ts";
import type { CommandSpec } from "../lib/command.ts";
import { UsageError } from "../lib/errors.ts";
import { requireOrganisation } from "../lib/organisations.ts";
import { parseUuid, parseWholeNumber } from "../lib/validate.ts";

interface KeyCreateInput {
  orgId: string;
  application: string;
  scopes: Scope[];
  rateLimit: number | undefined;
}

/** `{ id, key, scopes }`, plus what was set for the key so a script can confirm it. */
interface KeyCreateResult {
  id: string;
  key: string;
  scopes: Scope[];
  application: string;
  rateLimit: number;
}

const keyCreate: CommandSpec<KeyCreateInput, KeyCreateResult> = {
  name: "key create",
  description:
    "Issues an API key for one application of an organisation. The key is printed once: only its\n" +
    "hash is stored. Each .manage scope also grants its .read scope.",
  options: {
    org: { type: "string", placeholder: "ID", description: "the organisation's id", required: true },
    name: { type: "string", placeholder: "APP", description: "the application the key is for (1 to 200 characters)", required: true },
    scopes: { type: "string", placeholder: "a,b", description: "comma-separated scopes, e.g. tasks.manage,projects.read", required: true },
    "rate-limit": { type: "string", placeholder: "N", description: "requests per 60 seconds (default 600)" },
  },
  parse(args) {
    const application = args.required("name").trim();
    if (application.length > 200) throw new UsageError("--name must be at most 200 characters");
    let scopes: Scope[];
    try {
      scopes = parseScopeList(args.required("scopes"));
    } catch (error) {
      throw new UsageError(`--scopes: ${(error as Error).message}`);
    }
    const rateLimit = args.optional("rate-limit");
    return {
      orgId: parseUuid(args.required("org"), "--org"),
      application,
      scopes,
      rateLimit: rateLimit === undefined ? undefined : parseWholeNumber(rateLimit, "--rate-limit", { min: 1, max: 1_000_000 }),
    };
  },
  async run({ db }, input) {
    await requireOrganisation(db, input.orgId);
    const created = await createApiKey({ ctx: { db }, input });
    return { id: created.id, key: created.key, scopes: created.scopes, application: created.application, rateLimit: created.rateLimit };
  },
  render: (created) =>
    [
      `Created API key ${created.id} for "${created.application}" (${created.rateLimit} requests per minute)`,
      `Scopes: ${created.scopes.join(", ")}`,
      "",
      `  ${created.key}`,
      "",
      "This is the only time the key is shown. Store it now; if it is lost, revoke it and create another.",
      "",
    ].join("\n"),
};

export default keyCreate;
