// How a file is served (docs/attachments.md): never as a page of this origin.

/** No script, no plugin, no request of its own, in a sandbox with an opaque origin. */
export const DOWNLOAD_CSP = "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'";

/** attachment (or inline, asked for an image or PDF), with the name as RFC 6266 and RFC 8187 write it. */
export function contentDispositionOf(name: string, inline: boolean): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, "_");
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${inline ? "inline" : "attachment"}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
