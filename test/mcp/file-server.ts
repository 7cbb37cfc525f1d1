import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

// A node:http server on 127.0.0.1 that the Worker fetches files from (the MCP attach*FromUrl
// tools): the harness's Worker allows loopback URLs (WEBHOOKS_ALLOW_LOOPBACK, as for webhook
// receivers). It serves what a test puts at a path, redirects where a test says, streams a body
// of any length without stating it, or never answers; and counts the requests it got.

type Answer =
  | { kind: "file"; bytes: Uint8Array; contentType: string }
  | { kind: "redirect"; to: string }
  | { kind: "stream"; length: number }
  | { kind: "hang" };

export interface FileServer {
  url(path: string): string;
  serve(path: string, bytes: Uint8Array, contentType?: string): string;
  redirect(path: string, to: string): string;
  /** `length` bytes, chunked, with no Content-Length. */
  stream(path: string, length: number): string;
  hang(path: string): string;
  /** The paths asked for, in order. */
  requests: string[];
  close(): Promise<void>;
}

export async function startFileServer(): Promise<FileServer> {
  const answers = new Map<string, Answer>();
  const requests: string[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const path = request.url ?? "/";
    requests.push(path);
    const answer = answers.get(path);
    if (!answer) return void response.writeHead(404).end();
    if (answer.kind === "file") {
      response.writeHead(200, { "content-type": answer.contentType, "content-length": answer.bytes.byteLength });
      return void response.end(answer.bytes);
    }
    if (answer.kind === "redirect") return void response.writeHead(302, { location: answer.to }).end();
    if (answer.kind === "hang") return void hanging.add(response);
    response.writeHead(200, { "content-type": "application/octet-stream" });
    const chunk = new Uint8Array(64 * 1024);
    let left = answer.length;
    const more = () => {
      while (left > 0) {
        const piece = chunk.subarray(0, Math.min(chunk.byteLength, left));
        left -= piece.byteLength;
        if (!response.write(piece)) return void response.once("drain", more);
      }
      response.end();
    };
    response.on("error", () => {});
    more();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const put = (path: string, answer: Answer) => {
    answers.set(path, answer);
    return `${base}${path}`;
  };
  return {
    url: (path) => `${base}${path}`,
    serve: (path, bytes, contentType = "application/octet-stream") => put(path, { kind: "file", bytes, contentType }),
    redirect: (path, to) => put(path, { kind: "redirect", to }),
    stream: (path, length) => put(path, { kind: "stream", length }),
    hang: (path) => put(path, { kind: "hang" }),
    requests,
    close: async () => {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
