import { checkedPerson } from "../../domain/personnel.ts";
import { personnel, type NewPerson, type PersonRecord } from "../../services/personnel.ts";
import { asCliError } from "../lib/api-errors.ts";
import type { CommandSpec } from "../lib/command.ts";
import { cliContext } from "../lib/context.ts";
import { requireOrganisation } from "../lib/organisations.ts";
import { parseUuid } from "../lib/validate.ts";

const personnelAdd: CommandSpec<{ orgId: string; person: NewPerson }, PersonRecord> = {
  name: "personnel add",
  description:
    "Adds a person to an organisation, someone tasks can be assigned to. Emails are unique within\n" +
    "an organisation. Like POST /v1/personnel, this moves changeVersion and emits personnel.created.",
  options: {
    org: { type: "string", placeholder: "ID", description: "the organisation's id", required: true },
    name: { type: "string", placeholder: "NAME", description: "the person's name", required: true },
    email: { type: "string", placeholder: "EMAIL", description: "the person's email address", required: true },
    role: { type: "string", placeholder: "R", description: 'what the person does, e.g. "Site supervisor"' },
  },
  parse(args) {
    // The kernel's check of a new person's fields, refused as the API refuses them (invalid_field).
    const fields = { name: args.required("name"), email: args.required("email"), role: args.optional("role") };
    let person: NewPerson;
    try {
      person = checkedPerson(fields);
    } catch (error) {
      throw asCliError(error);
    }
    return { orgId: parseUuid(args.required("org"), "--org"), person };
  },
  async run({ db }, { orgId, person }) {
    await requireOrganisation(db, orgId);
    const ctx = await cliContext(db, { orgId });
    try {
      return (await personnel.create({ ctx, input: person })).record;
    } catch (error) {
      throw asCliError(error);
    } finally {
      // Its personnel.created event reaches the room before the command ends.
      await ctx.settle();
    }
  },
  render: (person) => `Added ${person.name} <${person.email}>${person.role ? ` (${person.role})` : ""}: ${person.id}\n`,
};

export default personnelAdd;
