import { z } from "@hono/zod-openapi";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { ATTACHMENT_PARENTS, MCP_FILE_BYTES, type AttachmentParent } from "../../domain/attachments.ts";
import { DomainError } from "../../domain/errors.ts";
import { RESOURCES } from "../../domain/resources.ts";
import { settingsOf } from "../env.ts";
import { REQUEST_HEADERS } from "../http/headers.ts";
import type { AnyRoute } from "../http/registry.ts";
import { validationError } from "../http/validation.ts";
import { attachmentOperationIds } from "../routes/attachments.ts";
import { UploadQuery } from "../schemas/attachments.ts";
import { callRoute, headerValue, toolResult, type McpCaller } from "./dispatch.ts";
import { jsonSchemaOf } from "./json-schema.ts";
import { fetchRemoteFile } from "./remote-file.ts";
import type { McpTool, ToolContext } from "./tools.ts";

// The MCP server's file tools (docs/mcp.md "Files"), two per kind of record that holds files,
// each made from one of its file routes and holding that route's scope: read<Record>Attachment
// (from get<Record>Attachment) answers a file's bytes as MCP content, and attach<Record>FromUrl
// (from upload<Record>Attachment, whose body no tool argument can carry) attaches what a URL
// answers. Both run their routes in process, as every tool does, so the credentials, scopes,
// quota, content type, events and Idempotency-Key are the routes' own.

/** Types answered as text content: what detectContentType calls text, markup included (read, never rendered). */
const TEXT_TYPES = new Set(["text/plain", "text/html", "image/svg+xml", "application/xml"]);
/** Types answered as image content: raster images (SVG is markup, answered as text). */
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

interface Attachment {
  name: string;
  size: number;
  contentType: string;
  downloadUrl: string;
}

/** The arguments, checked as the route checks its input: a missing, unknown or malformed one is refused by name. */
function argumentsOf<T extends z.ZodObject>(schema: T, args: Record<string, unknown>): z.output<T> {
  const parsed = schema.strict().safeParse(args);
  if (!parsed.success) throw validationError(parsed.error, args);
  return parsed.data as z.output<T>;
}

const base64 = (bytes: Uint8Array) => {
  let binary = "";
  for (let at = 0; at < bytes.byteLength; at += 0x8000) binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  return btoa(binary);
};

/** The file as MCP content: text, an image, or (another type, or over MCP_FILE_BYTES) a link to its bytes. */
async function contentOf(caller: McpCaller, file: Attachment): Promise<CallToolResult["content"]> {
  const readable = file.size <= MCP_FILE_BYTES && (TEXT_TYPES.has(file.contentType) || IMAGE_TYPES.has(file.contentType));
  if (!readable) return [{ type: "resource_link", uri: file.downloadUrl, name: file.name, mimeType: file.contentType, size: file.size }];
  // The download route, in process: the link's signature is its authority, as for any client.
  const response = await caller.app.fetch(new Request(file.downloadUrl), caller.env, caller.executionCtx);
  if (!response.ok) throw new DomainError("not_found", "the attachment's file is gone");
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (IMAGE_TYPES.has(file.contentType)) return [{ type: "image", data: base64(bytes), mimeType: file.contentType }];
  return [{ type: "text", text: new TextDecoder().decode(bytes) }];
}

interface FileToolSpec {
  name: string;
  title: string;
  /** What the tool does, after its title. */
  about: string[];
  route: AnyRoute;
  /** The arguments: the route's path parameters and the tool's own. */
  args: z.ZodObject;
  annotations: Omit<McpTool["annotations"], "title">;
  run: McpTool["run"] & {};
}

/** A file tool, described as a route's tool is (its HTTP call and scope), in the group `attachments`. */
function fileTool({ name, title, about, route, args, annotations: hints, run }: FileToolSpec): McpTool {
  const annotations = { title, ...hints };
  const description = [`${title}.`, ...about].join("\n");
  const inputSchema = jsonSchemaOf(args.strict()) as McpTool["definition"]["inputSchema"];
  const path = Object.keys((route.params as z.ZodObject).shape);
  return {
    name,
    definition: { name, title, description, inputSchema, annotations },
    annotations,
    group: "attachments",
    route,
    placement: { path, query: [], body: null, headers: { idempotencyKey: "idempotencyKey" in args.shape, ifMatch: false } },
    run,
  };
}

const Kind = (parent: AttachmentParent) => `${parent[0]!.toUpperCase()}${parent.slice(1)}`;

function readTool(parent: AttachmentParent, route: AnyRoute): McpTool {
  const args = route.params as z.ZodObject;
  return fileTool({
    name: `read${Kind(parent)}Attachment`,
    title: `Read one of a ${RESOURCES[parent].nouns[0]}'s attachments: its bytes as content`,
    about: [
      `Text files come as text, PNG, JPEG, GIF and WebP images as image content, each up to ${MCP_FILE_BYTES} bytes (20 MiB); any other file, or a larger one, as a link to its bytes (valid 15 minutes).`,
      `HTTP: GET ${route.path} (scope ${route.scope}), then the download link.`,
    ],
    route,
    args,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async run({ caller }, raw) {
      const path = argumentsOf(args, raw) as Record<string, string>;
      const answer = await callRoute(caller, route, { path, query: {} });
      if (answer.status >= 400) return toolResult(answer);
      return toolResult(answer, await contentOf(caller, answer.body.data as Attachment));
    },
  });
}

function attachTool(parent: AttachmentParent, route: AnyRoute): McpTool {
  const params = route.params as z.ZodObject;
  const args = params.extend({
    url: z.string().max(2048).describe("Where the file is: https, on the public internet. Its redirects are followed, each checked."),
    name: UploadQuery.shape.name.optional().describe("The file's name; by default the last segment of the URL's path."),
    idempotencyKey: z.string().max(255).optional().describe(REQUEST_HEADERS.idempotencyKey.description),
  });
  return fileTool({
    name: `attach${Kind(parent)}FromUrl`,
    title: `Attach to a ${RESOURCES[parent].nouns[0]} the file a URL answers`,
    about: [
      `The server fetches the URL (https to a public address only: no private, loopback, link-local or metadata address, redirects included), at most ${MCP_FILE_BYTES} bytes (20 MiB) within 10 seconds, and attaches it as POST ${route.path} would. ` +
        "Its content type is read from its bytes. Pass idempotencyKey so that a retry attaches once.",
      `HTTP: POST ${route.path} (scope ${route.scope}).`,
      "Refusals particular to it: invalid_field (url), payload_too_large, idempotency_mismatch.",
    ],
    route,
    args,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    async run(context, raw) {
      const input = argumentsOf(args, raw) as { url: string; name?: string; idempotencyKey?: string } & Record<string, unknown>;
      await holdsScope(context, route.scope!);
      const headers: Record<string, string> = {};
      if (input.idempotencyKey !== undefined) headers["idempotency-key"] = headerValue("idempotencyKey", input.idempotencyKey);
      const remote = await fetchRemoteFile(input.url, settingsOf(context.caller.env).webhooks.allowLoopback);
      const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", remote.bytes));
      const sha256 = [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
      const query = { name: input.name ?? remote.name ?? "download", size: remote.bytes.byteLength, sha256 };
      const path = Object.fromEntries(Object.keys(params.shape).map((key) => [key, String(input[key])]));
      return toolResult(await callRoute(context.caller, route, { path, query, headers, file: remote.bytes }));
    },
  });
}

/** The route's scope, checked before the URL is fetched: a caller who may not attach makes the server fetch nothing. */
async function holdsScope(context: ToolContext, scope: string) {
  if (!(await context.heldScopes()).has(scope))
    throw new DomainError("insufficient_scope", `this call needs the scope ${scope}`, { scope });
}

/** The file tools of a registry's file routes. */
export function fileToolsOf(routes: AnyRoute[]): McpTool[] {
  return ATTACHMENT_PARENTS.flatMap((parent) => {
    const ids = attachmentOperationIds(parent);
    const [get, upload] = [ids.get, ids.upload].map((id) => routes.find((route) => route.operationId === id));
    if (!get || !upload) throw new Error(`the MCP file tools find no route ${get ? ids.upload : ids.get}`);
    return [readTool(parent, get), attachTool(parent, upload)];
  });
}
