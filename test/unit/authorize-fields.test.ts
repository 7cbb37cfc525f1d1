import { describe, expect, it } from "vitest";
import { AUTHORIZATION_PARAMETERS } from "../../domain/oauth.ts";

// The consent page (console/js/lib/authorize-fields.js, plain JavaScript the page loads as it is)
// sends back exactly the authorization request's parameters the Worker reads, in its order: one
// missing there would be dropped from the decision, and the code bound to a request the client
// did not make.
const CONSOLE_MODULE: string = "../../console/js/lib/authorize-fields.js";

describe("the consent page's authorization fields", () => {
  it("are the Worker's", async () => {
    const { AUTHORIZE_FIELDS: listed } = (await import(CONSOLE_MODULE)) as { AUTHORIZE_FIELDS: string[] };
    expect(listed).toEqual(AUTHORIZATION_PARAMETERS);
  });
});
