import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { documentedSecrets, missingSettings } from "../../cli/lib/deploy-settings.ts";

// cli/lib/deploy-settings.ts, the part of `npm run check:deploy` that holds a deployment's settings
// to what the Worker requires (functions/env.ts): a plain `wrangler deploy` sends wrangler.toml's
// [vars] and nothing else (keep_vars is false), and the secrets are those docs/deployment.md has the
// deployer put. Issue 45 row 4: REALTIME_URL was given only as --var, so a deploy as documented
// left a Worker that refused its first request (REALTIME_SECRET without REALTIME_URL).

const root = new URL("../../", import.meta.url);
const doc = readFileSync(new URL("docs/deployment.md", root), "utf8");

/** wrangler.toml's top-level [vars] as wrangler reads them. */
async function productionVars(): Promise<Record<string, unknown>> {
  process.env.WRANGLER_SEND_METRICS = "false";
  const { unstable_readConfig } = await import("wrangler");
  return unstable_readConfig({ config: new URL("wrangler.toml", root).pathname }, { hideWarnings: true }).vars;
}

describe("the settings a deployment carries", () => {
  it("docs/deployment.md names the three secrets", () => {
    expect(documentedSecrets(doc).sort()).toEqual(["AUTH_SECRET", "DATABASE_URL", "REALTIME_SECRET"]);
  });

  it("wrangler.toml's vars and the documented secrets carry every setting the Worker requires", async () => {
    const vars = await productionVars();
    expect(Object.keys(vars).sort()).toEqual(["PUBLIC_ORIGIN", "REALTIME_URL"]);
    expect(missingSettings(vars, documentedSecrets(doc))).toEqual([]);
  });

  it("refuses REALTIME_URL given only on the command line (the documented deploy of before)", async () => {
    const { REALTIME_URL: _, ...vars } = await productionVars();
    expect(missingSettings(vars, documentedSecrets(doc))).toEqual([
      "REALTIME_URL goes with REALTIME_SECRET, which a deployment sets, and is neither a var of wrangler.toml nor a secret docs/deployment.md names",
    ]);
  });

  it("refuses a required setting that is neither a var nor a documented secret, naming each", () => {
    const problems = missingSettings({ REALTIME_URL: "https://room.example" }, ["REALTIME_SECRET"]);
    expect(problems).toEqual([
      "DATABASE_URL is required by the Worker and is neither a var of wrangler.toml nor a secret docs/deployment.md names",
      "PUBLIC_ORIGIN is required by the Worker and is neither a var of wrangler.toml nor a secret docs/deployment.md names",
    ]);
    // An empty var is unset, as the Worker reads it.
    expect(missingSettings({ PUBLIC_ORIGIN: "" }, ["DATABASE_URL"])).toEqual([
      "PUBLIC_ORIGIN is required by the Worker and is neither a var of wrangler.toml nor a secret docs/deployment.md names",
    ]);
  });

  it("takes a deployment without the room (neither of the pair), and refuses the secret alone", () => {
    expect(missingSettings({ PUBLIC_ORIGIN: "https://api.example" }, ["DATABASE_URL"])).toEqual([]);
    expect(missingSettings({ PUBLIC_ORIGIN: "https://api.example", REALTIME_URL: "https://room.example" }, ["DATABASE_URL"])).toEqual([
      "REALTIME_SECRET goes with REALTIME_URL, which a deployment sets, and is neither a var of wrangler.toml nor a secret docs/deployment.md names",
    ]);
  });
});
