import { ALL_SCOPES } from "../../domain/scopes.ts";
import { listApiKeys, type ApiKeySummary } from "../../services/api-keys.ts";
import type { CommandSpec } from "../lib/command.ts";
import { cliRooms } from "../lib/context.ts";
import { requireOrganisation } from "../lib/organisations.ts";
import { formatTable } from "../lib/table.ts";
import { parseUuid } from "../lib/validate.ts";

const keyList: CommandSpec<{ orgId: string }, ApiKeySummary[]> = {
  name: "key list",
  description: "Lists an organisation's API keys, revoked ones included. Keys show only their prefix.",
  options: {
    org: { type: "string", placeholder: "ID", description: "the organisation's id", required: true },
  },
  parse: (args) => ({ orgId: parseUuid(args.required("org"), "--org") }),
  async run({ db }, { orgId }) {
    await requireOrganisation(db, orgId);
    return listApiKeys({ ctx: { db, rooms: await cliRooms(), defer: () => {} }, input: { orgId } });
  },
  render(keys) {
    if (keys.length === 0) return "The organisation has no API keys.\n";
    return formatTable(
      ["ID", "PREFIX", "APPLICATION", "SCOPES", "LIMIT", "CREATED", "STATUS"],
      keys.map((key) => [
        key.id,
        `${key.prefix}…`,
        key.application,
        key.scopes.length === ALL_SCOPES.length ? "all" : key.scopes.join(","),
        String(key.rateLimit),
        key.createdAt.slice(0, 10),
        key.revokedAt ? `revoked ${key.revokedAt.slice(0, 10)}` : "active",
      ]),
    );
  },
};

export default keyList;
