import { readdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { ErrorCode } from "../../domain/errors.ts";
import { ENTRY_POINTS, type EntryPart, type EntryPoint } from "../entry-points.ts";
import { ERROR_STATUS } from "../http/errors.ts";
import { errorCodesOf, type AnyRoute, type ServiceVerb } from "../http/registry.ts";
import { ROOT, statementsOf, type Declared, type StatementRun } from "./verb-statements.ts";

// docs/routes.md: every route of the registry by its method and path, with the file declaring it,
// the service verb it runs, the statements that verb runs, its scope and its refusals, so the
// text `PATCH /v1/tasks/{id}` leads from the path to the SQL. Node only: `npm run generate`
// writes it (client/generated.ts), test/unit/generated.test.ts fails while it is stale.

export const ROUTES_TABLE = "docs/routes.md";

/** A service verb as the table names it: the export of services/ it is, or the member of one (tasks.update). */
export interface VerbName extends Declared {
  member?: string;
}

/** Every export of the TypeScript files directly in `folder` (from the root), with its file and name. */
async function exportsOf(folder: string): Promise<(Declared & { value: unknown })[]> {
  const found: (Declared & { value: unknown })[] = [];
  for (const name of readdirSync(join(ROOT, folder))
    .filter((f) => f.endsWith(".ts"))
    .sort()) {
    const file = `${folder}/${name}`;
    const module = (await import(pathToFileURL(join(ROOT, file)).href)) as Record<string, unknown>;
    for (const [exported, value] of Object.entries(module)) found.push({ file, name: exported, value });
  }
  return found;
}

/** Each verb of services/ by its function: an exported function, or a function member of an exported object. */
export async function verbNames(): Promise<Map<ServiceVerb, VerbName>> {
  const names = new Map<ServiceVerb, VerbName>();
  for (const { file, name, value } of await exportsOf("services")) {
    if (typeof value === "function") names.set(value as ServiceVerb, { file, name });
    else if (value && typeof value === "object") {
      for (const [member, verb] of Object.entries(value))
        if (typeof verb === "function") names.set(verb as ServiceVerb, { file, name, member });
    }
  }
  return names;
}

/** The file of functions/routes/ exporting each route (the registry, routes/index.ts, gathers them). */
async function declaringFiles(): Promise<Map<AnyRoute, string>> {
  const files = new Map<AnyRoute, string>();
  for (const { file, value } of await exportsOf("functions/routes")) {
    if (file.endsWith("/index.ts")) continue;
    for (const item of Array.isArray(value) ? value : [value])
      if (item && typeof item === "object" && "handler" in item && "path" in item) files.set(item as AnyRoute, file);
  }
  return files;
}

// What every route may answer whatever it declares (errorCodesOf): validation, a body's size and
// type, the caller's key, session, scope and rate limit, and the server's own trouble.
const IMPLIED: ErrorCode[] = [
  "missing_field",
  "invalid_field",
  "unknown_field",
  "invalid_json",
  "payload_too_large",
  "unsupported_media_type",
  "unauthorized",
  "invalid_key",
  "insufficient_scope",
  "email_unverified",
  "cross_site_request",
  "rate_limited",
  "internal_error",
  "unavailable",
];

const link = (file: string) => `[${file}](../${file})`;
const code = (text: string) => `\`${text}\``;

function scopeOf(route: AnyRoute): string {
  const scope = route.scope === "public" ? "none (public)" : route.scope === null ? "any key" : code(route.scope);
  if (route.auth !== "session") return scope;
  return route.scope === null ? "a session" : `a session with ${scope}`;
}

/** The statements, those run after the answer last: `updateTask`; after the answer: `markPublished`. */
function statementsCell(statements: StatementRun[]): string {
  const list = (runs: StatementRun[]) => runs.map((s) => `${code(s.name)} ${link(s.file)}`).join(", ");
  const [now, after] = [statements.filter((s) => !s.after), statements.filter((s) => s.after)];
  return [...(now.length ? [list(now)] : []), ...(after.length ? [`after the answer: ${list(after)}`] : [])].join("; ") || "none";
}

/** The refusals particular to the route, by status: `409 conflict, invalid_transition`. */
function refusalsOf(route: AnyRoute): string {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const error of errorCodesOf(route).filter((c) => !IMPLIED.includes(c)))
    byStatus.set(ERROR_STATUS[error], [...(byStatus.get(ERROR_STATUS[error]) ?? []), error]);
  return [...byStatus.entries()]
    .sort(([a], [b]) => a - b)
    .map(([status, codes]) => `${status} ${codes.map(code).join(", ")}`)
    .join("; ");
}

function rowOf(route: AnyRoute, file: string, verb: VerbName | null): string {
  const statements = verb ? statementsOf(verb, verb.member) : [];
  const cells = [
    code(`${route.method.toUpperCase()} ${route.path}`),
    code(route.operationId),
    link(file) + (verb?.member ? " (resourceRoutes)" : ""),
    verb ? `${code(verb.member ? `${verb.name}.${verb.member}` : verb.name)} ${link(verb.file)}` : "none",
    statementsCell(statements),
    scopeOf(route),
    refusalsOf(route) || "none",
  ];
  return `| ${cells.join(" | ")} |`;
}

const HEADER = `<!-- Generated by \`npm run generate\` (functions/openapi/routes-table.ts) from the route registry. Do not edit. -->

# Routes

Every route of the API, by its method and path, in the registry's order (functions/routes/index.ts),
each with the file that declares it, the service verb its handler runs and the statements that
verb runs (found in the services' source: functions/openapi/verb-statements.ts), the scope it
needs, and the refusals particular to it. A route marked \`resourceRoutes\` is built from its
resource's declaration in that file by functions/routes/resource-reads.ts (list, get, history) or
resource-writes.ts (create, change, PUT by external id, delete), and its verb is the resource
service's (services/resource-service.ts), which runs the statement named. \`POST /v1/batch\` also
runs each operation's own statements, in one transaction. How every route runs:
functions/http/handler.ts, behind the middleware functions/app.ts orders.

Besides its refusals, a route answers what its shape implies (functions/http/registry.ts
\`errorCodesOf\`; the OpenAPI document lists them all): 400 \`missing_field\`, \`invalid_field\`,
\`unknown_field\`, \`invalid_json\`, 413 and 415 for its input; 401, 403 \`insufficient_scope\` and
\`cross_site_request\`, and 429 for its caller; 500 and 503. docs/api.md says what each code means.
`;

/** docs/routes.md as it should be: a table per tag, a row per route. */
export async function renderRoutesTable(routes: AnyRoute[]): Promise<string> {
  const [verbs, files] = [await verbNames(), await declaringFiles()];
  const tags = [...new Set(routes.map((r) => r.tag))];
  const sections = tags.map((tag) => {
    const rows = routes
      .filter((r) => r.tag === tag)
      .map((route) => {
        const file = files.get(route);
        const verb = route.verb && verbs.get(route.verb);
        if (!file) throw new Error(`${route.operationId}: no file of functions/routes/ exports it`);
        if (verb === undefined) throw new Error(`${route.operationId}: its verb is not an export of services/ (nor a member of one)`);
        return rowOf(route, file, verb);
      });
    return [
      `## ${tag}`,
      "",
      "| route | operationId | declared in | service verb | statements | scope | refusals |",
      "|---|---|---|---|---|---|---|",
      ...rows,
    ].join("\n");
  });
  return `${HEADER}\n${sections.join("\n\n")}\n\n${protocolEndpoints()}\n`;
}

/** The module that declares each part's handlers (functions/app.ts mounts the part). */
const PART_FILES: Record<EntryPart, string> = {
  mcp: "functions/mcp/endpoint.ts",
  oauth: "functions/oauth/routes.ts",
  auth: "functions/auth/routes.ts",
  internal: "functions/internal.ts",
  mail: "functions/mail/unsubscribe.ts",
  docs: "functions/openapi/docs-page.ts",
};

/** Every entry point outside /v1 (functions/entry-points.ts), each with the part that answers it. */
function protocolEndpoints(): string {
  const rows = Object.entries(ENTRY_POINTS as Record<string, EntryPoint>).map(
    ([name, entry]) =>
      `| ${[code(`${entry.methods.join(", ")} ${entry.path}`), code(name), `${entry.part} ${link(PART_FILES[entry.part])}`, entry.caller, entry.purpose].join(" | ")} |`,
  );
  return [
    "## Protocol endpoints",
    "",
    "Outside `/v1` and its registry: the MCP server, OAuth's discovery and authorization server, sign-in,",
    "the realtime room's own endpoints and the reference page. They speak their own protocols (JSON-RPC,",
    "RFC 6749 forms and errors, better-auth), not the API's envelope. Declared once in",
    "functions/entry-points.ts, which functions/app.ts mounts from and test/unit/entry-points.test.ts holds",
    "each part's router to. Any other path is 404 `not_found`; the console at `/` is a static asset.",
    "",
    "| path | name | part | caller | what |",
    "|---|---|---|---|---|",
    ...rows,
  ].join("\n");
}
