// Gives every operation of the OpenAPI document a concrete example of its request body and of its
// success response, assembled from the field-level examples the schemas carry
// (`.openapi({ example })`), so the reference shows a whole request and answer for each call and
// generated clients' docs get them too. test/api/openapi-examples.test.ts parses each example with
// the route's own zod schema, so an example the API would refuse (or never send) fails the suite.
// The request examples that name the demo's records, and so run as they are: request-examples.ts.

type JsonSchema = { [keyword: string]: unknown };
type Components = Record<string, JsonSchema>;

const MAX_DEPTH = 12;

/** Values for string formats that carry no example of their own. */
const FORMAT_EXAMPLES: Record<string, string> = {
  uuid: "019a8a0e-7c5e-7b52-9a43-2f6f1c3f4d10",
  date: "2026-12-15",
  "date-time": "2026-11-21T23:00:00.000Z",
  email: "ada@example.com",
  uri: "https://example.com/hooks/opsroom",
  url: "https://example.com/hooks/opsroom",
};

/**
 * Examples for string fields that carry none of their own, by field name: what a reader expects
 * there, rather than "string".
 */
const FIELD_EXAMPLES: Record<string, string> = {
  description: "Agreed with the client at the site meeting on Tuesday.",
  mitigation: "Order a stock cabinet now and swap it at second fix.",
  nextCursor: "eyJ2IjoxLCJpZCI6IjAxOWE4YTBlIn0",
  message: "done",
  disabledReason: "every delivery failed for 3 days",
  webhookId: FORMAT_EXAMPLES.uuid!,
  eventId: FORMAT_EXAMPLES.uuid!,
  eventType: "task.updated",
  error: "connection refused",
  responseExcerpt: "ok",
  name: "Ada Lovelace",
  email: FORMAT_EXAMPLES.email!,
  url: "https://opsroom.example.com/invitations#k3Jd9sQx",
  scopes: "tasks.read",
};

/**
 * The create schema whose field examples also serve `name`: a task's title reads the same in
 * Task, CreateTask and UpdateTask, so the example is written once, on the create schema.
 */
function createSchemaFor(name: string, components: Components): JsonSchema | undefined {
  const resource = name.replace(/^(Update|Created)/, "");
  return name === `Create${resource}` ? undefined : components[`Create${resource}`];
}

/**
 * A value that fits `schema`: its own example, else one built from its parts. `sibling` is a
 * schema with the same field names (the create schema) whose examples fill gaps.
 */
export function exampleOf(schema: JsonSchema, components: Components, depth = 0, sibling?: JsonSchema, field?: string): unknown {
  if (depth > MAX_DEPTH) return null;
  const next = (inner: unknown, innerSibling?: JsonSchema, innerField = field) =>
    exampleOf((inner ?? {}) as JsonSchema, components, depth + 1, innerSibling, innerField);
  if (typeof schema.$ref === "string") {
    const name = schema.$ref.split("/").pop()!;
    return next(components[name], createSchemaFor(name, components));
  }
  const siblingExample = sibling && exampleIfGiven(sibling);
  if (siblingExample && !hasOwnExample(schema)) return siblingExample.value;
  // Keywords are checked by value: zod-openapi leaves some present but undefined.
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const variants = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  // A nullable field shows its value, not null: that is the informative half.
  if (variants) return next(variants.find((variant) => variant.type !== "null") ?? variants[0], sibling);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  if (Array.isArray(schema.allOf)) {
    const own = type === "object" ? (next({ ...schema, allOf: undefined }, sibling) as object) : {};
    return Object.assign({}, ...schema.allOf.map((part) => next(part)), own);
  }
  switch (type) {
    case "object": {
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const siblingProperties = (sibling?.properties ?? {}) as Record<string, JsonSchema>;
      return Object.fromEntries(
        Object.entries(properties).map(([name, property]) => [name, next(property, siblingProperties[name], name)]),
      );
    }
    case "array":
      return [next(schema.items, sibling?.items as JsonSchema | undefined)];
    case "string":
      return FORMAT_EXAMPLES[String(schema.format)] ?? (field && FIELD_EXAMPLES[field]) ?? "string";
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? Math.max(schema.minimum, 1) : 1;
    case "boolean":
      return true;
    default:
      return null;
  }
}

function hasOwnExample(schema: JsonSchema): boolean {
  return ["example", "examples", "const", "enum", "default", "$ref"].some((keyword) => schema[keyword] !== undefined);
}

/** The sibling field's explicit example, if it has one (not one built from its type). */
function exampleIfGiven(schema: JsonSchema): { value: unknown } | undefined {
  if (schema.example !== undefined) return { value: schema.example };
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return { value: schema.examples[0] };
  return undefined;
}

interface MediaType {
  schema?: JsonSchema;
  example?: unknown;
}

export interface Operation {
  operationId?: string;
  requestBody?: { content?: Record<string, MediaType> };
  responses?: Record<string, { content?: Record<string, MediaType> }>;
}

/** The envelope message the API sends: "createTask" -> "task created", "getTask" -> "task", "listTasks" -> "3 tasks". */
function messageFor(operationId: string, example: { count?: unknown }): string | undefined {
  const match = /^(create|update|delete|get|list)([A-Z]\w*)$/.exec(operationId);
  if (!match) return undefined;
  const noun = match[2]!.replace(/[A-Z]/g, (letter, at: number) => `${at === 0 ? "" : " "}${letter.toLowerCase()}`);
  if (match[1] === "list") return typeof example.count === "number" ? `${example.count} ${noun}` : undefined;
  return match[1] === "get" ? noun : `${noun} ${match[1]}d`;
}

/** Sets `example` on each operation's JSON request body and 2xx responses (JSON, NDJSON lines or bytes) that lack one. */
export function addOperationExamples(document: {
  paths?: Record<string, Record<string, unknown>>;
  components?: { schemas?: Components };
}): void {
  const components = document.components?.schemas ?? {};
  const fill = (media: MediaType | undefined) => {
    if (media?.schema && media.example === undefined) media.example = exampleOf(media.schema, components);
  };
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item) as Operation[]) {
      fill(operation.requestBody?.content?.["application/json"]);
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        // A success answer is a JSON envelope, (the audit log's export) NDJSON lines of a schema, or a file's bytes.
        const content = response.content;
        const media = content?.["application/json"] ?? content?.["application/x-ndjson"] ?? content?.["application/octet-stream"];
        if (!status.startsWith("2") || !media) continue;
        fill(media);
        // The schemas' one example message ("3 tasks") is shared by every resource: reworded per operation.
        const example = media.example as { message?: unknown; count?: unknown } | undefined;
        const message = example && operation.operationId && messageFor(operation.operationId, example);
        if (example && typeof example.message === "string" && message) example.message = message;
      }
    }
  }
}
