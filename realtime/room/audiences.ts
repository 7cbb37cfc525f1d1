import type * as Party from "partykit/server";
import { matchesFilter, NO_FILTER, type EventFilter } from "../../domain/event-filter.ts";
import { scopeOfEvent, type OpsEvent } from "../../domain/events.ts";
import type { Identity } from "../identity.ts";
import { CLOSE_CODES } from "../protocol.ts";

// Who in the room receives what. Each socket keeps the read scopes it holds and the filter it
// connected with (types, projectId, recordId, excludeOwn) in its state, which survives the room
// hibernating; a broadcast reaches exactly the sockets allowed to see the event whose filter
// selects it. Each socket is tagged with its key, session, person, installation and grant, so the
// sockets to close are found when one of them ends.
//
// The scopes are not tags (issue 45 row 9): Cloudflare allows a hibernating socket 10 tags, and
// PartyKit takes one for the connection id. With a tag per read scope (6) an application's socket
// acting for a person (user, installation, grant) used all ten, and a seventh read scope would have
// refused every such socket. Tags now hold the owners only: at most 6 of the 10 (the id and five
// owner kinds, of which a socket has at most four), whatever the number of scopes.
//
// An event is serialised once and sent to the sockets grouped by what they may see and want
// (audiences, kept in memory between events: bench/results/README.md, "Fan-out").

/** What the room keeps on each socket: the event read scopes it holds and the filter it connected with. */
export interface SocketState {
  scopes: string[];
  filter: EventFilter;
}
/** Cloudflare's tags per hibernating socket, PartyKit's connection id among them. */
export const TAGS_PER_SOCKET = 10;
/** Sockets holding one read scope that connected with the same filter: one check of the filter per event serves them all. */
interface Audience {
  filter: EventFilter;
  sockets: Party.Connection<SocketState>[];
}
const OPEN = 1; // WebSocket.READY_STATE_OPEN

/** The connection tag of the sockets opened with one API key (or with tokens minted from it). */
const keyTag = (keyId: string) => `key:${keyId}`;
const sessionTag = (sessionId: string) => `session:${sessionId}`;
const userTag = (userId: string) => `user:${userId}`;
const installationTag = (installationId: string) => `installation:${installationId}`;
const grantTag = (grantId: string) => `grant:${grantId}`;

/** The Worker's messages that close sockets: the tag of the sockets each names, and what they are told. */
const CLOSINGS = {
  keysRevoked: { tag: keyTag, reason: "the API key this socket was opened with has been revoked" },
  sessionsEnded: { tag: sessionTag, reason: "the session this socket was opened with has ended" },
  membersChanged: { tag: userTag, reason: "your membership changed: reconnect to see what your role may read" },
  installationsEnded: { tag: installationTag, reason: "the application was uninstalled from this organisation" },
  grantsRevoked: { tag: grantTag, reason: "the application's authorization this socket was opened with has been revoked" },
} as const;
type Closing = keyof typeof CLOSINGS;

/** The tags of a socket opened by `identity` (null: none was passed on). */
export function tagsOf(identity: Identity | null): string[] {
  if (!identity) return [];
  // The key, session, person, installation and grant tags find the sockets to close when a key is
  // revoked, a session ends, a member leaves, an application is uninstalled or its grant revoked.
  const owners = [
    identity.keyId && keyTag(identity.keyId),
    identity.sessionId && sessionTag(identity.sessionId),
    identity.userId && userTag(identity.userId),
    identity.installationId && installationTag(identity.installationId),
    identity.grantId && grantTag(identity.grantId),
  ];
  return owners.filter((tag): tag is string => Boolean(tag));
}

/** What a socket opened by `identity` keeps: on the connection, so it survives the room hibernating. */
export function stateOf(identity: Identity | null): SocketState {
  return { scopes: identity?.scopes ?? [], filter: identity?.filter ?? NO_FILTER };
}

export class Audiences {
  /**
   * Each read scope's sockets, grouped by filter; built on the first event of the scope and
   * dropped whenever a socket connects, closes or is closed. In memory only: a room woken from
   * hibernation builds it again.
   */
  private byScope = new Map<string, Audience[]>();

  constructor(private readonly room: Party.Room) {}

  /** The sockets changed: the audiences are built again on the next event. */
  forget(): void {
    this.byScope.clear();
  }

  /** Sends the event, serialised once, to every open socket that holds its read scope and whose filter selects it. */
  broadcast(event: OpsEvent): void {
    const scope = scopeOfEvent(event);
    if (!scope) return;
    let message: string | undefined;
    for (const audience of this.of(scope)) {
      if (!matchesFilter(audience.filter, event)) continue;
      message ??= JSON.stringify(event);
      for (const socket of audience.sockets) if (socket.readyState === OPEN) socket.send(message);
    }
  }

  /** Sends each notification to the open sockets of its person; answers how many sockets were sent one. */
  notify(items: ReadonlyArray<{ userId: string; notification: Record<string, unknown> }>): number {
    let sent = 0;
    for (const { userId, notification } of items) {
      const message = JSON.stringify({ type: "notification", notification });
      for (const socket of this.room.getConnections(userTag(userId))) {
        if (socket.readyState !== OPEN) continue;
        socket.send(message);
        sent++;
      }
    }
    return sent;
  }

  /** Closes every socket of the keys, sessions or people the Worker's message names; answers how many. */
  close(kind: Closing, ids: string[]): number {
    this.forget();
    const { tag, reason } = CLOSINGS[kind];
    let closed = 0;
    for (const id of ids) {
      for (const connection of this.room.getConnections(tag(id))) {
        connection.close(CLOSE_CODES.revoked, reason);
        closed++;
      }
    }
    return closed;
  }

  /** The sockets holding `scope`, grouped by the filter they connected with. */
  private of(scope: string): Audience[] {
    let audiences = this.byScope.get(scope);
    if (audiences) return audiences;
    const byFilter = new Map<string, Audience>();
    for (const socket of this.room.getConnections<SocketState>()) {
      // A socket whose state says nothing (none was passed on) holds no scope.
      if (!socket.state?.scopes?.includes(scope)) continue;
      const filter = socket.state?.filter ?? NO_FILTER;
      const key = JSON.stringify(filter);
      const audience = byFilter.get(key);
      if (audience) audience.sockets.push(socket);
      else byFilter.set(key, { filter, sockets: [socket] });
    }
    audiences = [...byFilter.values()];
    this.byScope.set(scope, audiences);
    return audiences;
  }
}
