import { describe, expect, it } from "vitest";
import { DISABLED_PATHS } from "../../functions/auth/auth.ts";
import { testClientAddress, workerUrl } from "../helpers/api.ts";
import { query } from "../helpers/database.ts";
import { asPerson, authPost, newEmail, signIn, signUp } from "../helpers/people.ts";

// The edges of /auth found by probing it as an attacker would: bodies better-auth would accept
// but opsroom's limits would not see, values Postgres refuses, endpoints opsroom does not offer,
// and a session cookie of the wrong name for the scheme.

const usersWith = async (email: string) => (await query("select id from users where email = $1", [email])).length;

async function rawPost(path: string, body: string, contentType: string): Promise<Response> {
  return fetch(new URL(path, workerUrl()), {
    method: "POST",
    headers: { "content-type": contentType, origin: workerUrl(), "cf-connecting-ip": testClientAddress() },
    body,
  });
}

describe("/auth bodies", () => {
  it("a sign-in that is not JSON is refused (415) before a password is checked: the account limit cannot be sidestepped", async () => {
    const person = await signUp();
    const form = `email=${encodeURIComponent(person.email)}&password=${encodeURIComponent(person.password)}`;
    const refused = await rawPost("/auth/sign-in/email", form, "application/x-www-form-urlencoded");
    expect(refused.status).toBe(415);
    expect(((await refused.json()) as any).error.code).toBe("unsupported_media_type");
    expect(refused.headers.getSetCookie()).toEqual([]);
    expect((await rawPost("/auth/sign-in/email", JSON.stringify({ password: "x" }), "application/json")).status).toBe(400);
    expect((await signIn(person.email, person.password)).status).toBe(200);
  });

  it("NUL in a sign-up field, a name over 200 characters, a body over 16 KB: refused, and no user is created", async () => {
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ organisationName: "x\u0000y" }, 400, "invalid_field"],
      [{ name: "n".repeat(201) }, 400, "invalid_field"],
      [{ organisationName: "o".repeat(201) }, 400, "invalid_field"],
      [{ name: "\u0000" }, 400, "invalid_field"],
      [{ padding: "p".repeat(17 * 1024) }, 413, "payload_too_large"],
    ];
    for (const [fields, status, code] of cases) {
      const email = newEmail("edge");
      const response = await authPost("/auth/sign-up/email", { email, password: "correct horse battery", name: "Edge", ...fields });
      expect(response.status, JSON.stringify(Object.keys(fields))).toBe(status);
      expect(((await response.json()) as any).error.code).toBe(code);
      expect(await usersWith(email)).toBe(0);
    }
  });
});

describe("/auth endpoints opsroom does not offer", () => {
  it("answer 404 even with a session, before better-auth is asked, and change nothing", async () => {
    const person = await signUp();
    for (const path of DISABLED_PATHS) {
      const response = await authPost(
        `/auth${path}`,
        { password: person.password, newPassword: "another password 1", name: "Mallory", token: "x" },
        { cookie: person.cookie },
      );
      expect(response.status, path).toBe(404);
      expect(((await response.json()) as any).error.code, path).toBe("not_found");
    }
    const me = await asPerson(person.cookie, "/v1/settings/session");
    expect(me.body.data.user.name).toBe(person.name);
    expect((await signIn(person.email, person.password)).status).toBe(200);
  });
});

describe("the session cookie's name", () => {
  it("over http only opsroom.session_token counts: the same signed value as __Secure-opsroom.session_token is refused", async () => {
    const person = await signUp();
    const secureName = person.cookie.replace(/(^|; )opsroom\.session_token=/, "$1__Secure-opsroom.session_token=");
    expect((await asPerson(secureName, "/v1/settings/session")).status).toBe(401);
    expect((await asPerson(person.cookie, "/v1/settings/session")).status).toBe(200);
  });
});
