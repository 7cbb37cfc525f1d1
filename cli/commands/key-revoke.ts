import { DomainError } from "../../domain/errors.ts";
import { revokeApiKey } from "../../services/api-keys.ts";
import type { CommandSpec } from "../lib/command.ts";
import { cliRooms } from "../lib/context.ts";
import { CommandError } from "../lib/errors.ts";
import { parseUuid } from "../lib/validate.ts";

interface KeyRevokeResult {
  id: string;
  revoked: true;
  /** Whether the organisation's realtime room was told, closing the key's sockets at once. */
  socketsClosed: boolean;
  /** Webhooks the key registered: they belong to the organisation and keep delivering. */
  webhooks: { id: string; url: string; enabled: boolean }[];
}

const keyRevoke: CommandSpec<{ keyId: string }, KeyRevokeResult> = {
  name: "key revoke",
  description:
    "Revokes an API key. Requests with it are refused (401) from now on, and the sockets opened with it\n" +
    "(or with realtime tokens minted from it) are closed. Revoking twice is harmless. The realtime\n" +
    "room is reached through REALTIME_URL and REALTIME_SECRET, or a running npm run dev.",
  positionals: [{ name: "KEY_ID", description: "the key's id (from opsroom key list)" }],
  options: {},
  parse: (args) => ({ keyId: parseUuid(args.positionals[0]!, "KEY_ID") }),
  async run({ db }, { keyId }) {
    const revoked = await revokeApiKey({ ctx: { db, rooms: await cliRooms(), defer: () => {} }, input: { keyId } }).catch(
      (error: unknown) => {
        throw error instanceof DomainError && error.code === "not_found" ? new CommandError(`no API key with id ${keyId}`) : error;
      },
    );
    return { id: keyId, revoked: true, socketsClosed: revoked.roomTold, webhooks: revoked.webhooks };
  },
  render: ({ id, socketsClosed, webhooks }) =>
    `Revoked API key ${id}\n` +
    (socketsClosed
      ? "Its realtime sockets were closed.\n"
      : "The realtime room could not be reached (set REALTIME_URL and REALTIME_SECRET): the Worker's sweep (every minute) closes the key's sockets.\n") +
    (webhooks.length
      ? `It registered ${webhooks.length} webhook(s), which belong to the organisation and keep delivering;\n` +
        "if the key leaked, review them (DELETE /v1/webhooks/:id removes one):\n" +
        webhooks.map((w) => `  ${w.id}  ${w.url}${w.enabled ? "" : "  (off)"}\n`).join("")
      : ""),
};

export default keyRevoke;
