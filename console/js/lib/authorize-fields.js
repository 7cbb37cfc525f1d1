// @ts-check
// The authorization request's parameters, which the consent page sends back as they came with the
// decision: domain/oauth.ts AUTHORIZATION_PARAMETERS, which test/unit/authorize-fields.test.ts
// holds this list equal to (the page loads no TypeScript).

/** @type {readonly import("../../../domain/oauth.ts").AuthorizationParameter[]} */
export const AUTHORIZE_FIELDS = [
  "response_type",
  "client_id",
  "redirect_uri",
  "scope",
  "state",
  "code_challenge",
  "code_challenge_method",
  "resource",
];
