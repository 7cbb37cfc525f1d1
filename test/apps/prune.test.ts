import { describe, expect, it } from "vitest";
import { hashCredential } from "../../domain/crypto/oauth.ts";
import { PRUNE_CRON } from "../../functions/sweep-plan.ts";
import { query } from "../helpers/database.ts";
import { memberOf, signUp } from "../helpers/people.ts";
import { runSweep } from "../helpers/realtime.ts";
import { pollUntil } from "../helpers/wait.ts";
import { clientForm, consentCode, registerApp, tokenRequest, tokensFor } from "./helpers.ts";

// The sweep prunes what an application can no longer use (db/statements/app-access.ts): expired
// tokens, grants revoked a day ago, and grants with nothing left whose code cannot be exchanged,
// a day after they were made. A used refresh token is kept until its own expiry, so presenting it
// again still revokes its grant.

const tokenRow = (token: string) => query("select id from oauth_tokens where token_hash = $1", [hashCredential(token)]);
const grantRow = (id: string) => query("select id, revoked_at from oauth_grants where id = $1", [id]);
const grantOf = async (token: string) =>
  (await query<{ grant_id: string }>("select grant_id from oauth_tokens where token_hash = $1", [hashCredential(token)]))[0]!.grant_id;

describe("the sweep prunes applications' tokens and grants", () => {
  it("expired tokens and dead grants go; live ones and used refresh tokens stay, and a reused one still revokes its grant", async () => {
    const owner = await signUp();
    const admin = await memberOf(owner, "admin");
    const app = await registerApp(owner);
    const first = await tokensFor(app, owner);
    const grant = await grantOf(first.access_token);
    const refresh = { grant_type: "refresh_token", refresh_token: first.refresh_token, ...clientForm(app) };
    const rotated = await tokenRequest(refresh);
    expect(rotated.status).toBe(200);
    const ownCredentials = await tokenRequest({ grant_type: "client_credentials", organisation_id: owner.orgId, ...clientForm(app) });
    const ccGrant = await grantOf(ownCredentials.body.access_token);
    const revokedLongAgo = await grantOf((await tokensFor(app, admin)).access_token);
    const revokedNow = await grantOf((await tokensFor(app, admin)).access_token);
    const { code } = await consentCode(app, owner);
    const [{ id: neverExchanged }] = (await query<{ id: string }>("select id from oauth_grants where code_hash = $1", [
      hashCredential(code),
    ])) as [{ id: string }];

    // A day and more later, for some of them.
    await query("update oauth_tokens set expires_at = now() - interval '1 second' where token_hash = any($1)", [
      [hashCredential(first.access_token), hashCredential(ownCredentials.body.access_token)],
    ]);
    await query("update oauth_grants set created_at = now() - interval '2 days' where id = $1", [ccGrant]);
    await query("update oauth_grants set revoked_at = now() - interval '25 hours' where id = $1", [revokedLongAgo]);
    await query("update oauth_grants set revoked_at = now() where id = $1", [revokedNow]);
    await query(
      "update oauth_grants set created_at = now() - interval '2 days', code_expires_at = now() - interval '2 days' where id = $1",
      [neverExchanged],
    );

    await runSweep(PRUNE_CRON);
    await pollUntil(
      () => grantRow(ccGrant),
      (rows) => rows.length === 0,
      15_000,
    );
    expect(await tokenRow(first.access_token)).toEqual([]);
    expect(await tokenRow(ownCredentials.body.access_token)).toEqual([]);
    expect(await grantRow(revokedLongAgo)).toEqual([]);
    expect(await grantRow(neverExchanged)).toEqual([]);
    expect(await grantRow(revokedNow)).toHaveLength(1);
    // The live grant, its new tokens and its used refresh token stay.
    expect(await grantRow(grant)).toEqual([{ id: grant, revoked_at: null }]);
    for (const token of [first.refresh_token, rotated.body.access_token, rotated.body.refresh_token])
      expect(await tokenRow(token)).toHaveLength(1);

    const reused = await tokenRequest(refresh);
    expect(reused.body).toMatchObject({ error: "invalid_grant", error_description: expect.stringMatching(/used before/) });
    expect((await grantRow(grant))[0]!.revoked_at).not.toBeNull();
  });
});
