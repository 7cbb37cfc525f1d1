import { revokeApiKey } from "../../db/queries/admin.ts";
import type { CommandSpec } from "../lib/command.ts";
import { CommandError } from "../lib/errors.ts";
import { parseUuid } from "../lib/validate.ts";

const keyRevoke: CommandSpec<{ keyId: string }, { id: string; revoked: true }> = {
  name: "key revoke",
  description: "Revokes an API key. Requests with it are refused (401) from now on. Revoking twice is harmless.",
  positionals: [{ name: "KEY_ID", description: "the key's id (from opsroom key list)" }],
  options: {},
  parse: (args) => ({ keyId: parseUuid(args.positionals[0]!, "KEY_ID") }),
  async run({ db }, { keyId }) {
    if (!(await revokeApiKey(db, keyId))) throw new CommandError(`no API key with id ${keyId}`);
    return { id: keyId, revoked: true };
  },
  render: ({ id }) => `Revoked API key ${id}\n`,
};

export default keyRevoke;
