import { RESOURCES, scopesOf, type ResourceType } from "./resources.ts";

// Files on records (docs/attachments.md): which records hold them, how large one may be, how
// much an organisation may keep, how long a download link lives, and what a file is, read from
// its first bytes (never from what the client says it is).

/** The records files are attached to; an attachment's scopes are its parent's. */
export const ATTACHMENT_PARENTS = ["task", "comment", "risk", "issue", "financialEntry"] as const satisfies readonly ResourceType[];
export type AttachmentParent = (typeof ATTACHMENT_PARENTS)[number];

export const MiB = 1024 * 1024;
export const GiB = 1024 * MiB;

/** The largest file one request uploads (the body is streamed into R2, never held whole). */
export const MAX_ATTACHMENT_BYTES = 100 * MiB;
/** What an organisation may keep in files unless its own quota says otherwise. */
export const DEFAULT_ATTACHMENT_QUOTA_BYTES = 10 * GiB;
/** A signed download link works this long after it was made. */
export const DOWNLOAD_URL_SECONDS = 15 * 60;
/** The largest file an MCP tool reads as content, or fetches from a URL to attach (docs/mcp.md "Files"). */
export const MCP_FILE_BYTES = 20 * MiB;
/** How long the Worker waits for a URL an agent gave to answer, whole, redirects included. */
export const REMOTE_FILE_MS = 10_000;
/** The longest file name kept. */
export const ATTACHMENT_NAME_MAX_LENGTH = 255;

/** The read and manage scopes of a parent's files: the parent's own. */
export const attachmentScopes = (parent: AttachmentParent) => scopesOf(RESOURCES[parent]);

/** The parent an attachment's JSON names: the one of its <parent>Id fields that is set. */
export function parentOfAttachment(data: Record<string, unknown>): AttachmentParent | undefined {
  return ATTACHMENT_PARENTS.find((parent) => typeof data[`${parent}Id`] === "string");
}

/** Where a file of the organisation lives in the bucket: under the organisation's own prefix. */
export const objectKeyOf = (orgId: string, attachmentId: string) => `org/${orgId}/${attachmentId}`;

/** Content types opened inline when asked for (?inline=true): images that cannot run script, and PDF. */
export const INLINE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf"]);

const startsWith = (bytes: Uint8Array, magic: readonly number[], at = 0) => magic.every((b, i) => bytes[at + i] === b);
const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

/** Magic numbers, first match wins. */
const SIGNATURES: { type: string; test: (b: Uint8Array) => boolean }[] = [
  { type: "image/png", test: (b) => startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  { type: "image/jpeg", test: (b) => startsWith(b, [0xff, 0xd8, 0xff]) },
  { type: "image/gif", test: (b) => startsWith(b, ascii("GIF87a")) || startsWith(b, ascii("GIF89a")) },
  { type: "image/webp", test: (b) => startsWith(b, ascii("RIFF")) && startsWith(b, ascii("WEBP"), 8) },
  { type: "application/pdf", test: (b) => startsWith(b, ascii("%PDF-")) },
  { type: "application/zip", test: (b) => startsWith(b, [0x50, 0x4b, 0x03, 0x04]) || startsWith(b, [0x50, 0x4b, 0x05, 0x06]) },
  { type: "application/gzip", test: (b) => startsWith(b, [0x1f, 0x8b]) },
  { type: "video/mp4", test: (b) => startsWith(b, ascii("ftyp"), 4) },
];

/**
 * What the file is, from its first bytes: a known signature; else text (valid UTF-8 with no NUL),
 * as text/html or image/svg+xml when it looks like markup (served as a download and sandboxed, so
 * it can never run), or text/plain; else application/octet-stream.
 */
export function detectContentType(head: Uint8Array): string {
  for (const signature of SIGNATURES) if (signature.test(head)) return signature.type;
  if (head.length === 0) return "application/octet-stream";
  if (head.includes(0)) return "application/octet-stream";
  let text: string;
  try {
    // The head may end inside a character: decoding in stream mode leaves that tail out.
    text = new TextDecoder("utf-8", { fatal: true }).decode(head, { stream: true });
  } catch {
    return "application/octet-stream";
  }
  const start = text
    .replace(/^\uFEFF/, "")
    .trimStart()
    .slice(0, 512)
    .toLowerCase();
  if (/^(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<svg[\s>]/.test(start) || /^<!doctype svg/.test(start)) return "image/svg+xml";
  if (/^(<!doctype html|<html|<head|<body|<script|<iframe)/.test(start)) return "text/html";
  if (start.startsWith("<?xml")) return "application/xml";
  return "text/plain";
}

/** How many first bytes detectContentType reads. */
export const SNIFF_BYTES = 4096;

// Multipart uploads (docs/attachments.md "Large files"): a file sent in parts, each its own
// request, for files past what one request takes, up to R2's own limits.

/** The largest file a multipart upload takes. */
export const MAX_MULTIPART_BYTES = 5 * GiB;
/** R2's smallest part, but for the last. */
export const MIN_PART_BYTES = 5 * MiB;
/** The largest part: one request's body, as a single upload's. */
export const MAX_PART_BYTES = MAX_ATTACHMENT_BYTES;
/** R2's most parts in one upload. */
export const MAX_PARTS = 10_000;
/** An upload nobody touched this long is aborted by the sweep. */
export const UPLOAD_ABANDONED_SECONDS = 24 * 60 * 60;

/** How many parts a file of `size` takes in parts of `partSize`. */
export const partCountOf = (size: number, partSize: number) => Math.max(1, Math.ceil(size / partSize));

/** The length part `partNumber` (from 1) must have: partSize, but for the last, which has what is left. */
export function partLengthOf(size: number, partSize: number, partNumber: number): number {
  const count = partCountOf(size, partSize);
  return partNumber < count ? partSize : size - (count - 1) * partSize;
}
