import { MIN_PASSWORD_LENGTH } from "../../domain/crypto/passwords.ts";
import { isRole, ROLES, type Role } from "../../domain/roles.ts";
import { createUser } from "../../services/users.ts";
import type { CommandSpec } from "../lib/command.ts";
import { UsageError } from "../lib/errors.ts";
import { parseUuid } from "../lib/validate.ts";

interface UserCreateInput {
  orgId: string;
  email: string;
  name: string;
  role: Role;
  passwordFromStdin: boolean;
}

interface UserCreateResult {
  userId: string;
  orgId: string;
  email: string;
  name: string;
  role: Role;
  /** Only when it was generated: shown this once. */
  password: string | null;
}

const userCreate: CommandSpec<UserCreateInput, UserCreateResult> = {
  name: "user create",
  description:
    "Adds a person who signs in to the console with an email and a password, as a member of an\n" +
    "organisation with a role (owner, admin or member). Without --password-stdin a password is\n" +
    "generated and printed once; only its hash is stored.",
  options: {
    org: { type: "string", placeholder: "ID", description: "the organisation's id", required: true },
    email: { type: "string", placeholder: "E", description: "the address they sign in with", required: true },
    name: { type: "string", placeholder: "N", description: "their name (1 to 200 characters)", required: true },
    role: { type: "string", placeholder: "ROLE", description: `${ROLES.join(" | ")}`, required: true },
    "password-stdin": {
      type: "boolean",
      description: `read the password from standard input (at least ${MIN_PASSWORD_LENGTH} characters)`,
    },
  },
  parse(args) {
    const email = args.required("email").trim().toLowerCase();
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || email.length > 320) throw new UsageError("--email must be an email address");
    const name = args.required("name").trim();
    if (name.length > 200) throw new UsageError("--name must be at most 200 characters");
    const role = args.required("role");
    if (!isRole(role)) throw new UsageError(`--role must be one of ${ROLES.join(", ")}`);
    return { orgId: parseUuid(args.required("org"), "--org"), email, name, role, passwordFromStdin: args.flag("password-stdin") };
  },
  async run({ db }, input) {
    const password = input.passwordFromStdin ? await readPassword() : undefined;
    const created = await createUser({
      ctx: { db },
      input: { orgId: input.orgId, email: input.email, name: input.name, role: input.role, password },
    });
    return {
      userId: created.userId,
      orgId: created.orgId,
      email: created.email,
      name: created.name,
      role: created.role,
      password: created.generated ? created.password : null,
    };
  },
  render: (created) =>
    [
      `Created ${created.role} ${created.name} <${created.email}> (${created.userId}) in organisation ${created.orgId}`,
      ...(created.password
        ? ["", `  password: ${created.password}`, "", "This is the only time the password is shown. They sign in at /sign-in."]
        : ["They sign in at /sign-in with the password given."]),
      "",
    ].join("\n"),
};

/** The password on standard input: everything up to the end, without the final line break. */
async function readPassword(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const password = Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
  if (password.length < MIN_PASSWORD_LENGTH) throw new UsageError(`the password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  if (password.length > 128) throw new UsageError("the password must be at most 128 characters");
  return password;
}

export default userCreate;
