import { REQUIRED_SETTINGS, SETTINGS_TOGETHER } from "../../functions/env.ts";

// What `wrangler deploy` as docs/deployment.md writes it leaves the Worker: the vars of
// wrangler.toml's top level (a deploy replaces the Worker's vars with them: keep_vars is false) and
// the secrets the documentation has the deployer put (`wrangler secret put`, kept across deploys).
// A setting the Worker refuses to start without (functions/env.ts) that is neither would make the
// deployed Worker refuse its first request; `npm run check:deploy` fails on it.

/** The secrets docs/deployment.md names: the backquoted names of its "Worker secrets" table row. */
export function documentedSecrets(deploymentDoc: string): string[] {
  const row = deploymentDoc.split("\n").find((line) => /^\|\s*Worker secrets\s*\|/.test(line));
  if (!row) return [];
  const cell = row.split("|")[2] ?? "";
  return [...cell.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((match) => match[1]!);
}

/** What a deployment of these vars and secrets lacks, each naming the setting; none when complete. */
export function missingSettings(
  vars: Record<string, unknown>,
  secrets: readonly string[],
  required: readonly string[] = REQUIRED_SETTINGS,
  together: ReadonlyArray<readonly string[]> = SETTINGS_TOGETHER,
): string[] {
  const set = (name: string) => (name in vars && vars[name] !== "") || secrets.includes(name);
  const where = "neither a var of wrangler.toml nor a secret docs/deployment.md names";
  const problems = required.filter((name) => !set(name)).map((name) => `${name} is required by the Worker and is ${where}`);
  for (const names of together) {
    const given = names.filter(set);
    if (given.length === 0 || given.length === names.length) continue;
    for (const name of names.filter((name) => !set(name)))
      problems.push(`${name} goes with ${given.join(" and ")}, which a deployment sets, and is ${where}`);
  }
  return problems;
}
