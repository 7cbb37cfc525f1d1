import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { api, expectError, workerUrl, type ApiResponse, type Method } from "../helpers/api.ts";
import { peopleTrace, signUp, type Person } from "../helpers/people.ts";
import { notificationTrace } from "./helpers.ts";

// The notification routes (docs/notifications.md) refuse what a signed-in person sends them that
// is not right: 400 for the input, naming the field, 404 for an id of nothing; either leaves no
// trace (the organisation's rows, its people's sessions, notifications, follows and preferences).
// Keys, forged and ended sessions, other organisations' ids: test/people/refusals.test.ts.

type Case = [label: string, method: Method, path: string, body: unknown, expectation: (response: ApiResponse) => void];

const invalid = (field: string) => (res: ApiResponse) => expectError(res, 400, "invalid_field", { field });
const notFound = (res: ApiResponse) => expectError(res, 404, "not_found");

const CASES: Case[] = [
  ["a limit of 0", "GET", "/v1/notifications?limit=0", undefined, invalid("limit")],
  ["a cursor no list gave", "GET", "/v1/notifications?cursor=bm90LWEtY3Vyc29y", undefined, invalid("cursor")],
  ["unread=maybe", "GET", "/v1/notifications?unread=maybe", undefined, invalid("unread")],
  ["an id that is no uuid", "POST", "/v1/notifications/not-an-id/read", undefined, invalid("id")],
  ["an unknown notification", "POST", `/v1/notifications/${randomUUID()}/read`, undefined, notFound],
  ["an unknown time zone", "PATCH", "/v1/settings/notifications", { timeZone: "Mars/Olympus" }, invalid("timeZone")],
  [
    "a mail mode there is not",
    "PATCH",
    "/v1/settings/notifications",
    { preferences: { assigned: { email: "weekly", inApp: true } } },
    (res) => expectError(res, 400, "invalid_field"),
  ],
  [
    "a kind there is not",
    "PATCH",
    "/v1/settings/notifications",
    { preferences: { poked: { email: "none", inApp: false } } },
    (res) => expectError(res, 400, ["invalid_field", "unknown_field"]),
  ],
  ...(["GET", "PUT", "DELETE"] as const).flatMap((method): Case[] => [
    [`a subscription of an id that is no uuid`, method, "/v1/tasks/not-an-id/subscription", undefined, invalid("id")],
    [`a subscription of an unknown risk`, method, `/v1/risks/${randomUUID()}/subscription`, undefined, notFound],
  ]),
];

let owner: Person;

beforeAll(async () => {
  owner = await signUp();
});

describe("the notification routes refuse bad input and unknown ids, and leave no trace", () => {
  for (const [label, method, path, body, expectation] of CASES) {
    it(`${method} ${path.split("?")[0]}: ${label}`, async () => {
      const before = [await peopleTrace(owner.orgId), await notificationTrace([owner.orgId])];
      const headers = { cookie: owner.cookie, origin: workerUrl() };
      expectation(await api(path, { method, headers, ...(body === undefined ? {} : { body }) }));
      expect([await peopleTrace(owner.orgId), await notificationTrace([owner.orgId])], "a refused call leaves no trace").toEqual(before);
    });
  }
});
