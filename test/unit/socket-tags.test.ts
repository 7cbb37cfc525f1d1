import { describe, expect, it } from "vitest";
import { NO_FILTER } from "../../domain/event-filter.ts";
import { EVENT_SCOPES } from "../../domain/events.ts";
import type { Identity } from "../../realtime/identity.ts";
import { stateOf, tagsOf, TAGS_PER_SOCKET } from "../../realtime/room/audiences.ts";

// Issue 45 row 9: Cloudflare allows a hibernating socket 10 tags, and PartyKit takes one for the
// connection id (partykit refuses the socket past ten). With a tag per event read scope (6 today),
// an application's socket acting for a person (user, installation, grant tags) used all ten, and a
// seventh read scope would have refused it. The scopes are in the socket's state now; the tags name
// only the owners, so the most any socket has is 6 of 10, however many scopes there are. Sockets
// receiving by scope and being closed by owner are test/realtime/ (room, people-sockets, revocation).

const ID = (n: number) => `0190a5b2-0000-7000-8000-${String(n).padStart(12, "0")}`;
const ALL_READ_SCOPES = [...new Set(Object.values(EVENT_SCOPES))];
/** PartyKit's own tag: the connection id. */
const PARTYKIT_TAGS = 1;

/** Every owner an identity can name, and every read scope: more than any real socket has (a key and a token of a person are never both). */
const everything: Identity = {
  orgId: ID(1),
  keyId: ID(2),
  sessionId: ID(3),
  userId: ID(4),
  installationId: ID(5),
  grantId: ID(6),
  appId: ID(7),
  scopes: ALL_READ_SCOPES,
  filter: NO_FILTER,
};

describe("a socket's tags (issue 45 row 9)", () => {
  it("name its owners only: at most 6 of the 10, whatever its scopes", () => {
    const tags = tagsOf(everything);
    expect(tags).toEqual([`key:${ID(2)}`, `session:${ID(3)}`, `user:${ID(4)}`, `installation:${ID(5)}`, `grant:${ID(6)}`]);
    expect(tags.length + PARTYKIT_TAGS).toBeLessThanOrEqual(TAGS_PER_SOCKET - 4);
    expect(tagsOf({ ...everything, scopes: [...ALL_READ_SCOPES, "one.read", "two.read", "three.read"] })).toEqual(tags);
    for (const tag of tags) expect(tag.length).toBeLessThanOrEqual(256);
  });

  it("an application's socket acting for a person has 4 (it had all 10)", () => {
    const app = { ...everything, keyId: null, sessionId: undefined };
    expect(tagsOf(app).length + PARTYKIT_TAGS).toBe(4);
  });

  it("the scopes are kept in the socket's state, which survives hibernation", () => {
    expect(stateOf(everything)).toEqual({ scopes: ALL_READ_SCOPES, filter: NO_FILTER });
    expect(stateOf(null)).toEqual({ scopes: [], filter: NO_FILTER });
    expect(tagsOf(null)).toEqual([]);
  });
});
