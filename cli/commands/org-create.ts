import { createOrganisation, type Organisation } from "../../services/organisation.ts";
import type { CommandSpec } from "../lib/command.ts";
import { UsageError } from "../lib/errors.ts";

const orgCreate: CommandSpec<{ name: string }, Organisation> = {
  name: "org create",
  description: "Creates an organisation: the tenant that owns keys, people, projects and tasks.",
  options: {
    name: { type: "string", placeholder: "NAME", description: "what the organisation is called (1 to 200 characters)", required: true },
  },
  parse(args) {
    const name = args.required("name").trim();
    if (name.length > 200) throw new UsageError("--name must be at most 200 characters");
    return { name };
  },
  run: ({ db }, input) => createOrganisation({ ctx: { db }, input }),
  render: (org) =>
    `Created organisation "${org.name}": ${org.id}\n` + `Next: npx opsroom key create --org ${org.id} --name APP --scopes tasks.manage\n`,
};

export default orgCreate;
