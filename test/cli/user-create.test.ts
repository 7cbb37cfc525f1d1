import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, inject, it } from "vitest";
import { query } from "../helpers/database.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { asPerson, cookieOf, newEmail, signIn } from "../helpers/people.ts";

// `opsroom user create`: a person who signs in, made by an operator. The CLI talks to the test
// database directly; the person then signs in through the Worker like anyone else.

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

function opsroom(args: string[], stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ["cli/bin.js", ...args],
      { cwd: ROOT, env: { ...process.env, DATABASE_URL: inject("databaseUrl") }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin!.end(stdin ?? "");
  });
}

describe("opsroom user create", () => {
  it("generates a password, printed once, with which the person signs in with their role", async () => {
    const tenant = await createTenant();
    const email = newEmail("admin");
    const run = await opsroom([
      "user",
      "create",
      "--org",
      tenant.org.id,
      "--email",
      email,
      "--name",
      "Grace Hopper",
      "--role",
      "admin",
      "--json",
    ]);
    expect(run.code, run.stderr).toBe(0);
    const created = JSON.parse(run.stdout) as { userId: string; password: string; role: string; email: string };
    expect(created).toMatchObject({ role: "admin", email });
    expect(created.password).toMatch(/^[A-Za-z0-9]{20}$/);
    const signedIn = await signIn(email, created.password);
    expect(signedIn.status).toBe(200);
    const me = await asPerson(cookieOf(signedIn), "/v1/settings/session");
    expect(me.body.data).toMatchObject({
      user: { id: created.userId, name: "Grace Hopper" },
      organisation: { id: tenant.org.id },
      role: "admin",
    });
  }, 120_000);

  it("--password-stdin takes the password given and prints none", async () => {
    const tenant = await createTenant();
    const email = newEmail("member");
    const run = await opsroom(
      ["user", "create", "--org", tenant.org.id, "--email", email, "--name", "M", "--role", "member", "--password-stdin", "--json"],
      "correct horse battery\n",
    );
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).password).toBeNull();
    expect((await signIn(email, "correct horse battery")).status).toBe(200);
  }, 120_000);

  it("refuses a taken address, an unknown organisation, an unknown role and a short password, creating nothing", async () => {
    const tenant = await createTenant();
    const email = newEmail();
    expect((await opsroom(["user", "create", "--org", tenant.org.id, "--email", email, "--name", "A", "--role", "owner"])).code).toBe(0);
    const again = await opsroom([
      "user",
      "create",
      "--org",
      tenant.org.id,
      "--email",
      email.toUpperCase(),
      "--name",
      "B",
      "--role",
      "owner",
    ]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain(email);
    const refused = [newEmail("c"), newEmail("d"), newEmail("e")];
    const unknownOrg = await opsroom([
      "user",
      "create",
      "--org",
      "01a00000-0000-7000-8000-000000000000",
      "--email",
      refused[0]!,
      "--name",
      "C",
      "--role",
      "owner",
    ]);
    expect(unknownOrg.code).not.toBe(0);
    expect((await opsroom(["user", "create", "--org", tenant.org.id, "--email", refused[1]!, "--name", "D", "--role", "boss"])).code).toBe(
      2,
    );
    const short = await opsroom(
      ["user", "create", "--org", tenant.org.id, "--email", refused[2]!, "--name", "E", "--role", "member", "--password-stdin"],
      "short\n",
    );
    expect(short.code).not.toBe(0);
    const users = await query<{ email: string; name: string }>("select email, name from users where email = any($1) order by email", [
      [email, ...refused],
    ]);
    expect(users).toEqual([{ email, name: "A" }]);
    expect(await query("select role from memberships m join users u on u.id = m.user_id where u.email = $1", [email])).toEqual([
      { role: "owner" },
    ]);
  }, 180_000);
});
