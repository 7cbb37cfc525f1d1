import { parseTypes } from "../../domain/event-filter.ts";
import type { OpsEvent } from "../../domain/events.ts";
import { UUID_PATTERN } from "../../domain/ids.ts";
import type { StreamCommandSpec } from "../lib/command.ts";
import { UsageError } from "../lib/errors.ts";
import { createListenApi, type ListenFilter } from "../lib/listen/api.ts";
import { formatEventLine } from "../lib/listen/event-line.ts";
import { createForwarder, type ForwardOutcome } from "../lib/listen/forwarder.ts";
import { streamRoom, type RoomStatus } from "../lib/listen/room-stream.ts";
import { bold, dim, green, red, yellow } from "../lib/style.ts";

const DEFAULT_API = "http://127.0.0.1:8787";

interface ListenInput {
  key: string;
  api: string;
  forwardTo: string | undefined;
  filter: ListenFilter;
}

/** The feed's filter from the flags; the room and GET /v1/events apply it (docs/sync.md). */
function filterOf(args: { optional(name: string): string | undefined; flag(name: string): boolean }): ListenFilter {
  const filter: ListenFilter = {};
  const types = args.optional("events");
  if (types !== undefined) {
    const parsed = parseTypes(types);
    if (parsed.invalid !== null) throw new UsageError(`--events: "${parsed.invalid}" is not "*", "<resource>.*" or "<resource>.<action>"`);
    filter.types = parsed.types.join(",");
  }
  for (const [flag, field] of [
    ["project", "projectId"],
    ["record", "recordId"],
  ] as const) {
    const id = args.optional(flag);
    if (id === undefined) continue;
    if (!UUID_PATTERN.test(id)) throw new UsageError(`--${flag} must be a UUID`);
    filter[field] = id;
  }
  if (args.flag("exclude-own")) filter.excludeOwn = "true";
  return filter;
}

/** The filter in words, for the status line. */
const describeFilter = (filter: ListenFilter) =>
  [
    filter.types && `events ${filter.types}`,
    filter.projectId && `project ${filter.projectId}`,
    filter.recordId && `record ${filter.recordId}`,
    filter.excludeOwn && "not this key's own changes",
  ]
    .filter(Boolean)
    .join("; ");

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
    project: { type: "string", placeholder: "ID", description: "only this project's events and those of the records under it" },
    record: { type: "string", placeholder: "ID", description: "only the events of this record" },
    "exclude-own": { type: "boolean", description: "leave out the changes made with this key (a two-way sync's echo)" },
  },
  jsonOutput: "print each event as one line of raw JSON (status lines go to stderr)",
  source: "API: --api (the room's address comes from its GET /v1). Ctrl-C stops.",
  parse(args) {
    const forwardTo = args.optional("forward-to");
    return {
      key: args.required("key").trim(),
      api: httpUrl(args.optional("api") ?? DEFAULT_API, "--api", DEFAULT_API).replace(/\/+$/, ""),
      forwardTo: forwardTo === undefined ? undefined : httpUrl(forwardTo, "--forward-to", "http://localhost:3000/webhooks"),
      filter: filterOf(args),
    };
  },
  async stream({ key, api, forwardTo, filter }, { json, signal }) {
    const client = createListenApi(api, key, filter);
    const self = await client.describeKey();
    const forwarder = forwardTo ? createForwarder(forwardTo) : null;
    say(
      `${bold("Ready.")} Listening to organisation ${self.organisation} as "${self.application}", from changeVersion ${self.changeVersion}.`,
    );
    if (Object.keys(filter).length > 0) say(`Only ${describeFilter(filter)}.`);
    if (forwarder) {
      say(`Forwarding to ${forwarder.url}, signed like a webhook. Signing secret for this run:`);
      say(`  ${bold(forwarder.secret)}`);
    }
    say(dim("Ctrl-C to stop."));

    // Forwards go out one at a time, in changeVersion order, as a webhook receiver would get them.
    let forwarding: Promise<void> = Promise.resolve();
    let fail: (error: Error) => void = () => {};
    const failed = new Promise<never>((_, reject) => (fail = reject));
    const room = streamRoom({
      api: client,
      url: self.realtimeUrl,
      key,
      filter,
      after: self.changeVersion,
      onEvent(event) {
        process.stdout.write((json ? JSON.stringify(event) : formatEventLine(event)) + "\n");
        if (forwarder) forwarding = forwarding.then(async () => say(describeOutcome(event, await forwarder.forward(event))));
      },
      onStatus: (status) => say(describeStatus(status)),
      onFatal: (error) => fail(error),
    });

    try {
      await Promise.race([new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true })), failed]);
    } finally {
      room.close();
      await forwarding;
    }
    say(dim("Stopped."));
  },
};

export default listen;
