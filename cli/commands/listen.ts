import type { OpsEvent } from "../../domain/events.ts";
import type { StreamCommandSpec } from "../lib/command.ts";
import { UsageError } from "../lib/errors.ts";
import { createListenApi } from "../lib/listen/api.ts";
import { formatEventLine } from "../lib/listen/event-line.ts";
import { matchesEvent, parseEventPatterns } from "../lib/listen/events-filter.ts";
import { createForwarder, type ForwardOutcome } from "../lib/listen/forwarder.ts";
import { streamRoom, type RoomStatus } from "../lib/listen/room-stream.ts";
import { bold, dim, green, red, yellow } from "../lib/style.ts";

const DEFAULT_API = "http://127.0.0.1:8787";

interface ListenInput {
  key: string;
  api: string;
  forwardTo: string | undefined;
  patterns: string[];
}

/** The value itself when it is an http(s) URL; a UsageError naming the flag otherwise. */
function httpUrl(value: string, flag: string, example: string): string {
  const protocol = URL.canParse(value) ? new URL(value).protocol : "";
  if (protocol !== "http:" && protocol !== "https:") throw new UsageError(`${flag} must be an http(s) URL, e.g. ${example}`);
  return value;
}

/** Status for people goes to stderr, so stdout carries only events (and pipes cleanly with --json). */
const say = (line: string): void => void process.stderr.write(line + "\n");

function describeOutcome(event: OpsEvent, outcome: ForwardOutcome): string {
  const what = dim(`  ↳ #${event.changeVersion} ${event.type}`);
  if ("error" in outcome) return `${what} ${red(`failed: ${outcome.error}`)} ${dim(`${outcome.ms} ms`)}`;
  const ok = outcome.status >= 200 && outcome.status < 300;
  return `${what} ${(ok ? green : red)(`${outcome.status} ${outcome.statusText}`.trim())} ${dim(`${outcome.ms} ms`)}`;
}

function describeStatus(status: RoomStatus): string {
  if (status.kind === "disconnected") return yellow("Disconnected from the room; reconnecting…");
  const caughtUp = status.caughtUp > 0 ? `, caught up on ${status.caughtUp} missed ${status.caughtUp === 1 ? "event" : "events"}` : "";
  return status.reconnected ? green(`Reconnected${caughtUp}.`) : dim(`Connected${caughtUp}.`);
}

const listen: StreamCommandSpec<ListenInput> = {
  name: "listen",
  description:
    "Prints every event of the key's organisation as it happens, one line each (type, changeVersion,\n" +
    "record id, changed fields); --json prints the raw event JSON, one per line. After a disconnect it\n" +
    "reconnects and first prints what it missed (GET /v1/events). With --forward-to, each event is also\n" +
    "POSTed to that URL signed like a real webhook (Standard Webhooks), with a secret printed at start.",
  options: {
    key: { type: "string", placeholder: "KEY", description: "the API key (ops_...) whose events to follow", required: true },
    api: { type: "string", placeholder: "URL", description: `the opsroom API (default ${DEFAULT_API}, npm run dev)` },
    "forward-to": { type: "string", placeholder: "URL", description: "POST each event here, signed like a webhook, and print the answer" },
    events: { type: "string", placeholder: "PATTERNS", description: 'only these events, e.g. "task.*,project.created" (default: all)' },
  },
  jsonOutput: "print each event as one line of raw JSON (status lines go to stderr)",
  source: "API: --api (the room's address comes from its GET /v1). Ctrl-C stops.",
  parse(args) {
    const forwardTo = args.optional("forward-to");
    return {
      key: args.required("key").trim(),
      api: httpUrl(args.optional("api") ?? DEFAULT_API, "--api", DEFAULT_API).replace(/\/+$/, ""),
      forwardTo: forwardTo === undefined ? undefined : httpUrl(forwardTo, "--forward-to", "http://localhost:3000/webhooks"),
      patterns: parseEventPatterns(args.optional("events")),
    };
  },
  async stream({ key, api, forwardTo, patterns }, { json, signal }) {
    const client = createListenApi(api, key);
    const self = await client.describeKey();
    const forwarder = forwardTo ? createForwarder(forwardTo) : null;
    say(`${bold("Ready.")} Listening to organisation ${self.organisation} as "${self.application}", from changeVersion ${self.changeVersion}.`);
    if (patterns.length > 0) say(`Only events matching ${patterns.join(", ")}.`);
    if (forwarder) {
      say(`Forwarding to ${forwarder.url}, signed like a webhook. Signing secret for this run:`);
      say(`  ${bold(forwarder.secret)}`);
    }
    say(dim("Ctrl-C to stop."));

    // Forwards go out one at a time, in changeVersion order, as a webhook receiver would get them.
    let forwarding: Promise<void> = Promise.resolve();
    const room = streamRoom({
      api: client,
      url: self.realtimeUrl,
      key,
      after: self.changeVersion,
      onEvent(event) {
        if (!matchesEvent(patterns, event.type)) return;
        process.stdout.write((json ? JSON.stringify(event) : formatEventLine(event)) + "\n");
        if (forwarder) forwarding = forwarding.then(async () => say(describeOutcome(event, await forwarder.forward(event))));
      },
      onStatus: (status) => say(describeStatus(status)),
    });

    await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
    room.close();
    await forwarding;
    say(dim("Stopped."));
  },
};

export default listen;
