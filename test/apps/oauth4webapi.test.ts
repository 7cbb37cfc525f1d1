import * as oauth from "oauth4webapi";
import { describe, expect, it } from "vitest";
import { api, expectError, expectSuccess, workerUrl } from "../helpers/api.ts";
import { signUp } from "../helpers/people.ts";
import { postConsent, registerApp } from "./helpers.ts";

// A client library nobody here wrote, oauth4webapi, completes the flow from the service's origin
// alone: discovery (RFC 8414), the authorization request with PKCE, the redirect's checks (state,
// iss: RFC 9207), the code exchange, a call, a refresh (rotation), revocation, and the discovery
// of the protected resource from a 401's WWW-Authenticate (RFC 9728). The person's part is played
// as the console's consent page plays it: POST /oauth/consent with the session cookie and this origin.

const insecure = { [oauth.allowInsecureRequests]: true };

describe("oauth4webapi against the authorization server", () => {
  for (const kind of ["confidential", "public"] as const) {
    it(`a ${kind} client: discovery, authorization code with PKCE, a call, a refresh, revocation`, async () => {
      const owner = await signUp();
      const redirectUri = kind === "public" ? "http://127.0.0.1/callback" : "https://client.example.com/callback";
      const app = await registerApp(owner, { redirectUris: [redirectUri], public: kind === "public" });

      // The protected resource names its authorization server; 401s point at the resource's metadata.
      const unauthorised = await api("/v1/tasks");
      const challenge = unauthorised.headers.get("www-authenticate")!;
      const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)![1]!;
      const resourceMetadata = await oauth.processResourceDiscoveryResponse(new URL(workerUrl()), await fetch(metadataUrl));
      const issuer = new URL(resourceMetadata.authorization_servers![0]!);

      const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure }));
      expect(as.code_challenge_methods_supported).toEqual(["S256"]);
      const client: oauth.Client = { client_id: app.clientId };
      const clientAuth = kind === "public" ? oauth.None() : oauth.ClientSecretBasic(app.clientSecret!);

      const codeVerifier = oauth.generateRandomCodeVerifier();
      const state = oauth.generateRandomState();
      const authorizationUrl = new URL(as.authorization_endpoint!);
      for (const [name, value] of Object.entries({
        client_id: client.client_id,
        redirect_uri: redirectUri,
        response_type: "code",
        scope: "tasks.read projects.read",
        state,
        code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: "S256",
      }))
        authorizationUrl.searchParams.set(name, value);

      // The browser: the authorization endpoint sends it to the consent page, whose decision sends it back.
      const toConsent = await fetch(authorizationUrl, { redirect: "manual" });
      expect(toConsent.status).toBe(302);
      const consentPage = new URL(toConsent.headers.get("location")!, workerUrl());
      const decision = await postConsent(owner, { ...Object.fromEntries(consentPage.searchParams), orgId: owner.orgId, decision: "allow" });
      const callback = new URL(((await decision.json()) as { redirectTo: string }).redirectTo);

      const params = oauth.validateAuthResponse(as, client, callback, state);
      const exchanged = await oauth.processAuthorizationCodeResponse(
        as,
        client,
        await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, redirectUri, codeVerifier, insecure),
      );
      expect(exchanged.token_type).toBe("bearer");
      expect(exchanged.expires_in).toBe(3600);
      expect(exchanged.scope).toBe("projects.read tasks.read");
      expectSuccess(await api("/v1/tasks", { key: exchanged.access_token }));

      const refreshed = await oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(as, client, clientAuth, exchanged.refresh_token!, insecure),
      );
      expect(refreshed.refresh_token).not.toBe(exchanged.refresh_token);
      expectSuccess(await api("/v1/tasks", { key: refreshed.access_token }));

      await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, clientAuth, refreshed.refresh_token!, insecure));
      // Revoking the refresh token revoked its grant: both access tokens stop.
      expectError(await api("/v1/tasks", { key: refreshed.access_token }), 401, "invalid_key");
      expectError(await api("/v1/tasks", { key: exchanged.access_token }), 401, "invalid_key");
    });
  }
});
