import type * as Party from "partykit/server";
import { bearerToken, secretsEqual } from "../domain/crypto/secrets.ts";
import { heldConnections, queuedLikeWorkers, type HeldConnections } from "./connections.ts";
import { authenticate, internalUrl, type Identity, type RoomEnv } from "./identity.ts";
import { RoomMessageSchema } from "./protocol.ts";
import { Alarm, RETRY_MS } from "./room/alarm.ts";
import { Audiences, stateOf, tagsOf, type SocketState } from "./room/audiences.ts";
import { fanOut, hasFanOut } from "./room/fan-out.ts";
import { EventOrder } from "./room/ordering.ts";
import { countedFetch, Invocation, subrequestLimitOf } from "./subrequests.ts";
import { backlogLimitOf } from "./webhooks/backlog.ts";
import { WebhookDispatcher } from "./webhooks/dispatcher.ts";
import { targetsMaxAgeOf } from "./webhooks/targets.ts";

// The realtime room of one organisation (party "v1", room id = organisation id): PartyKit's hooks,
// each handing its work to the part that does it.
//
// The Worker publishes each committed event here (POST, shared secret), and tells the room when
// webhooks change, deliveries are asked for, or keys, sessions and memberships end. The room
// delivers events in changeVersion order, each once (room/ordering.ts), to the sockets that may see
// and want them (room/audiences.ts); its alarm (room/alarm.ts) turns delivered events into webhook
// jobs (room/fan-out.ts), delivers those (webhooks/), and tries again what could not be done.

const IDENTITY_HEADER = "x-opsroom-identity";
const ORG_KEY = "orgId";

/** What a socket is sent on open, and again if events it was promised are gone: every visible event after `changeVersion` follows. */
const readyMessage = (changeVersion: number) => JSON.stringify({ type: "ready", changeVersion });

/** The identity onBeforeConnect passed on with the socket's request. */
const identityOf = (context: Party.ConnectionContext) =>
  JSON.parse(context.request.headers.get(IDENTITY_HEADER) ?? "null") as Identity | null;

export default class OrganisationRoom implements Party.Server {
  // Idle rooms with many sockets cost nothing: the room sleeps between messages.
  readonly options: Party.ServerOptions = { hibernate: true };

  /**
   * The organisation (the room id). PartyKit does not expose the room id to alarms, so it is kept
   * in storage the first time a request or socket arrives.
   */
  private orgId: string | null = null;
  private readonly alarm: Alarm;
  private readonly audiences: Audiences;
  private readonly order: EventOrder;
  private readonly webhooks: WebhookDispatcher;
  /** Every request the room makes holds one (connections.ts); in development and the tests, behind Workers' queue. */
  private readonly connections: HeldConnections;
  /** The subrequests of the alarm run in progress (subrequests.ts); null between runs. */
  private invocation: Invocation | null = null;

  constructor(readonly room: Party.Room) {
    const model = this.env.MODEL_WORKERS_LIMITS === "true";
    // Counted when fetch() is called, as Cloudflare counts, in front of the platform's queue.
    this.connections = heldConnections(countedFetch(model ? queuedLikeWorkers(fetch) : fetch, () => this.invocation));
    const api = (path: string, init?: RequestInit) => this.internalApi(path, init);
    this.alarm = new Alarm(room.storage);
    this.audiences = new Audiences(room);
    this.order = new EventOrder(
      room.storage,
      api,
      this.alarm,
      (event) => this.audiences.broadcast(event),
      (changeVersion) => room.broadcast(readyMessage(changeVersion)),
    );
    this.webhooks = new WebhookDispatcher(
      room.storage,
      api,
      backlogLimitOf(this.env.WEBHOOK_BACKLOG_LIMIT),
      this.connections,
      targetsMaxAgeOf(this.env.WEBHOOK_TARGETS_MAX_AGE_MS),
    );
  }

  private get env(): RoomEnv {
    return this.room.env as RoomEnv;
  }

  static async onBeforeConnect(request: Party.Request, lobby: Party.Lobby): Promise<Party.Request | Response> {
    const identity = await authenticate(request as unknown as Request, lobby.id, lobby.env as RoomEnv);
    if (identity instanceof Response) return identity;
    // Set, not appended: a client cannot smuggle its own identity header through.
    request.headers.set(IDENTITY_HEADER, JSON.stringify(identity));
    return request;
  }

  async onStart(): Promise<void> {
    this.orgId = (await this.room.storage.get<string>(ORG_KEY)) ?? null;
    await this.order.load();
    if (this.orgId) await this.order.findStartingPoint();
    // A room that wakes with work still queued (webhook retries, events held behind a gap, a
    // fan-out) arms itself again rather than leaving it until the next event.
    const queued = (await this.webhooks.nextDue()) !== null || (await hasFanOut(this.room.storage));
    if (queued || this.order.hasGap()) await this.alarm.ensureSet();
  }

  /** Called where the room id is readable (requests, sockets): keeps it for the alarm. */
  private async rememberOrg(): Promise<void> {
    if (this.orgId) return;
    this.orgId = this.room.id;
    await this.room.storage.put(ORG_KEY, this.orgId);
  }

  getConnectionTags(_connection: Party.Connection, context: Party.ConnectionContext): string[] {
    return tagsOf(identityOf(context));
  }

  async onConnect(connection: Party.Connection<SocketState>, context: Party.ConnectionContext): Promise<void> {
    connection.setState(stateOf(identityOf(context)));
    // PartyKit accepts the socket and calls this with no await between, so no event is broadcast
    // from an audience that lacks it.
    this.audiences.forget();
    await this.rememberOrg();
    await this.order.announce((changeVersion) => connection.send(readyMessage(changeVersion)));
  }

  onMessage(message: string | ArrayBuffer | ArrayBufferView, sender: Party.Connection): void {
    // Sockets only listen; a ping is answered so clients can measure liveness.
    if (message === "ping") sender.send("pong");
  }

  onClose(): void {
    this.audiences.forget();
  }

  onError(): void {
    this.audiences.forget();
  }

  /** The Worker's messages (realtime/protocol.ts, RoomMessage). */
  async onRequest(request: Party.Request): Promise<Response> {
    if (request.method !== "POST") return Response.json({ error: "method not allowed" }, { status: 405 });
    const secret = this.env.REALTIME_SECRET;
    if (!secret || !secretsEqual(bearerToken(request.headers.get("authorization")), secret)) {
      return Response.json({ error: "unauthorized" }, { status: 401 });
    }
    await this.rememberOrg();
    const parsed = RoomMessageSchema.safeParse(await request.json().catch(() => null));
    if (!parsed.success) {
      return Response.json(
        {
          error:
            "body must be { events }, { webhooksChanged }, { deliver }, { replay }, { keysRevoked }, { sessionsEnded }, { membersChanged }, { installationsEnded }, { grantsRevoked } or { notifications }",
        },
        { status: 400 },
      );
    }
    const message = parsed.data;
    if ("keysRevoked" in message) return Response.json({ closed: this.audiences.close("keysRevoked", message.keysRevoked) });
    if ("sessionsEnded" in message) return Response.json({ closed: this.audiences.close("sessionsEnded", message.sessionsEnded) });
    if ("membersChanged" in message) return Response.json({ closed: this.audiences.close("membersChanged", message.membersChanged) });
    if ("installationsEnded" in message)
      return Response.json({ closed: this.audiences.close("installationsEnded", message.installationsEnded) });
    if ("grantsRevoked" in message) return Response.json({ closed: this.audiences.close("grantsRevoked", message.grantsRevoked) });
    if ("notifications" in message) return Response.json({ sent: this.audiences.notify(message.notifications) });
    if ("webhooksChanged" in message) {
      await this.webhooks.reload();
      return Response.json({ reloaded: true });
    }
    if ("deliver" in message || "replay" in message) {
      const { webhookId, events } =
        "deliver" in message ? { webhookId: message.deliver.webhookId, events: [message.deliver.event] } : message.replay;
      const answer = await this.webhooks.enqueueFor(webhookId, events);
      if (answer.queued) await this.alarm.wakeAt(Date.now());
      return Response.json(answer);
    }
    // Acknowledged (and so never published again by the sweep) only once the room has it durably.
    const watermark = await this.order.publish(message.events);
    return Response.json({ acknowledged: message.events.map((event) => event.changeVersion), watermark });
  }

  async onAlarm(): Promise<void> {
    const invocation = new Invocation(subrequestLimitOf(this.env.SUBREQUESTS_PER_INVOCATION), this.env.MODEL_WORKERS_LIMITS === "true");
    this.invocation = invocation;
    try {
      await this.runAlarm(invocation);
    } finally {
      this.invocation = null;
    }
  }

  private async runAlarm(invocation: Invocation): Promise<void> {
    this.alarm.fired();
    // In line with publishes, so the watermark never moves under one.
    await this.order.retry();
    // Beside publishes, not in line with them (room/fan-out.ts).
    const fannedOut = await fanOut(this.room.storage, this.webhooks);
    // A drain that fails (the webhooks cannot be loaded) is tried again in a while.
    const nextJob = await this.webhooks.drain(() => invocation.left()).catch(() => Date.now() + RETRY_MS);
    // Events delivered while the webhooks were being called are fanned out right away (the alarm a
    // publish set meanwhile must not be pushed back); a gap, or webhooks that could not be loaded,
    // are tried again in a while.
    const fanoutLeft = await hasFanOut(this.room.storage);
    const now = Date.now();
    const next = [
      nextJob,
      fanoutLeft && fannedOut ? now : null,
      this.order.hasGap() || (fanoutLeft && !fannedOut) ? now + RETRY_MS : null,
    ].filter((at): at is number => at !== null);
    if (next.length) await this.alarm.wakeAt(Math.min(...next));
  }

  /** The API's internal endpoints for this room, with the shared secret. */
  private async internalApi(path: string, init: RequestInit = {}): Promise<Response> {
    const url = internalUrl(this.env, this.orgId!, path);
    if (!url) throw new Error("API_URL is not set: the room cannot reach the API");
    return this.connections.fetch(url, {
      ...init,
      headers: { authorization: `Bearer ${this.env.REALTIME_SECRET ?? ""}`, "content-type": "application/json" },
    });
  }
}
