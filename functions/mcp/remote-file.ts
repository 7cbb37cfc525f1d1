import { MCP_FILE_BYTES, REMOTE_FILE_MS } from "../../domain/attachments.ts";
import { DomainError } from "../../domain/errors.ts";
import { checkWebhookUrl } from "../../domain/webhook-urls.ts";
import { readBytesCapped } from "../middleware/json-body.ts";

// A file the Worker fetches from a URL an agent gave (the MCP tools attach*FromUrl, docs/mcp.md
// "Files"). An agent's URL is as untrusted as a webhook's, so it is held to the webhook URL rules
// (domain/webhook-urls.ts: https to a public address; loopback and http only where the deployment
// allows local receivers), and so is every redirect, hop by hop, since a public URL may redirect to
// 169.254.169.254 or a private address. No credentials or cookies of ours go with it. It must
// answer, whole, within REMOTE_FILE_MS and MCP_FILE_BYTES: the bytes are held in memory, since
// the upload route wants the SHA-256 before the first byte, and these caps keep that small.

/** At most this many redirects are followed. */
const MAX_REDIRECTS = 5;

export interface RemoteFile {
  bytes: Uint8Array<ArrayBuffer>;
  /** The last segment of the URL the bytes came from (after redirects), decoded, if it has one. */
  name: string | null;
}

const refuse = (why: string) => new DomainError("invalid_field", `url ${why}`, { field: "url" });
const tooLarge = () =>
  new DomainError("payload_too_large", `url answered a file over ${MCP_FILE_BYTES} bytes, the most a tool attaches`, { field: "url" });

/** The URL's last path segment, as a file name. */
function nameOf(url: string): string | null {
  const segment = new URL(url).pathname.split("/").pop() ?? "";
  try {
    return decodeURIComponent(segment).trim() || null;
  } catch {
    return segment || null;
  }
}

/** Fetches `raw` under the webhook URL rules, following at most MAX_REDIRECTS redirects, each checked. */
export async function fetchRemoteFile(raw: string, allowLoopback: boolean): Promise<RemoteFile> {
  const signal = AbortSignal.timeout(REMOTE_FILE_MS);
  let url = checkWebhookUrl(raw, allowLoopback);
  try {
    for (let hop = 0; ; hop++) {
      const response = await fetch(url, { redirect: "manual", signal, headers: { accept: "*/*" } });
      if (response.status >= 300 && response.status < 400) {
        await response.body?.cancel();
        const location = response.headers.get("location");
        if (!location) throw refuse(`answered ${response.status} with no Location`);
        if (hop >= MAX_REDIRECTS) throw refuse(`redirected more than ${MAX_REDIRECTS} times`);
        const next = new URL(location, url).toString();
        try {
          url = checkWebhookUrl(next, allowLoopback);
        } catch (error) {
          if (error instanceof DomainError) throw refuse(`redirected to ${next}, which ${error.message.replace(/^url /, "")}`);
          throw error;
        }
        continue;
      }
      if (!response.ok) {
        await response.body?.cancel();
        throw refuse(`answered ${response.status}`);
      }
      if (Number(response.headers.get("content-length") ?? 0) > MCP_FILE_BYTES) {
        await response.body?.cancel();
        throw tooLarge();
      }
      const bytes = await readBytesCapped(response.body, MCP_FILE_BYTES);
      if (!bytes) throw tooLarge();
      return { bytes, name: nameOf(url) };
    }
  } catch (error) {
    if (error instanceof DomainError) throw error;
    if (signal.aborted) throw refuse(`did not answer whole within ${REMOTE_FILE_MS / 1000} s`);
    throw refuse(`could not be fetched (${error instanceof Error ? error.message : String(error)})`);
  }
}
