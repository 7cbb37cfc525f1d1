import { describe, expect, it } from "vitest";
import { settingsOf, type Bindings } from "../../functions/env.ts";

// functions/env.ts settingsOf: the Worker's bindings, checked once, read by the code as settings.
// Here the event retention (EVENT_RETENTION_DAYS): a malformed value must stop the Worker with a
// message naming it, never run with a retention that keeps nothing (test/sync/retention.test.ts
// runs a Worker with a retention of seconds).

const bindings = (extra: Record<string, string> = {}) =>
  ({ DATABASE_URL: "postgres://localhost/opsroom", PUBLIC_ORIGIN: "https://api.example.com", ...extra }) as unknown as Bindings;

describe("EVENT_RETENTION_DAYS", () => {
  it("defaults to 30 days; takes fractions, rounded to seconds", () => {
    expect(settingsOf(bindings()).events.retentionSeconds).toBe(30 * 86_400);
    expect(settingsOf(bindings({ EVENT_RETENTION_DAYS: "" })).events.retentionSeconds).toBe(30 * 86_400);
    expect(settingsOf(bindings({ EVENT_RETENTION_DAYS: "0.5" })).events.retentionSeconds).toBe(43_200);
    expect(settingsOf(bindings({ EVENT_RETENTION_DAYS: "0.0001" })).events.retentionSeconds).toBe(9);
  });

  it("refuses what is not a number of days of at least one second, naming the setting", () => {
    for (const value of ["0", "abc", "-1", "0.000001", "4000"]) {
      expect(() => settingsOf(bindings({ EVENT_RETENTION_DAYS: value })), value).toThrow(
        /the Worker is misconfigured: EVENT_RETENTION_DAYS/,
      );
    }
  });
});

describe("LOG_REQUESTS", () => {
  it("is off unless set to true; anything but true or false is refused, naming it", () => {
    expect(settingsOf(bindings()).logRequests).toBe(false);
    expect(settingsOf(bindings({ LOG_REQUESTS: "false" })).logRequests).toBe(false);
    expect(settingsOf(bindings({ LOG_REQUESTS: "true" })).logRequests).toBe(true);
    expect(() => settingsOf(bindings({ LOG_REQUESTS: "yes" }))).toThrow(/the Worker is misconfigured: LOG_REQUESTS/);
  });
});

describe("the other bindings", () => {
  it("are read as settings when well formed", () => {
    const settings = settingsOf(
      bindings({
        REALTIME_URL: "https://rooms.example.com/",
        REALTIME_SECRET: "s".repeat(16),
        AUTH_SECRET: "a".repeat(32),
        SIGNUP: "false",
      }),
    );
    expect(settings.realtime).toEqual({ url: "https://rooms.example.com", secret: "s".repeat(16) });
    expect(settings.auth).toEqual({ secret: "a".repeat(32), signup: false });
    expect(settings.audit.retentionSeconds).toBe(365 * 86_400);
    expect(settingsOf(bindings({ AUTH_SECRET: "" })).auth).toBeNull();
    // The public origin as URL writes an origin: lower case, no default port, no trailing slash.
    expect(settings.publicOrigin).toBe("https://api.example.com");
    expect(settingsOf(bindings({ PUBLIC_ORIGIN: "HTTPS://Ops.Example.COM:443/" })).publicOrigin).toBe("https://ops.example.com");
    expect(settingsOf(bindings({ PUBLIC_ORIGIN: "http://127.0.0.1:8787" })).publicOrigin).toBe("http://127.0.0.1:8787");
  });

  it("refuse a malformed value or a missing one, naming each at once", () => {
    const refusals: [Record<string, string>, RegExp][] = [
      [{ DATABASE_URL: "" }, /DATABASE_URL is required/],
      [{ DATABASE_URL: "mysql://localhost/opsroom" }, /DATABASE_URL must be a postgres:\/\/ connection string/],
      [{ LOCAL_SQL_ENDPOINT: "localhost" }, /LOCAL_SQL_ENDPOINT must be host:port/],
      [{ PUBLIC_ORIGIN: "" }, /PUBLIC_ORIGIN is required/],
      ...[
        "api.example.com",
        "ftp://api.example.com",
        "https://api.example.com/v1",
        "https://api.example.com/?x=1",
        "https://u:p@api.example.com",
      ].map((value): [Record<string, string>, RegExp] => [{ PUBLIC_ORIGIN: value }, /PUBLIC_ORIGIN must be an http\(s\) origin/]),
      [{ REALTIME_URL: "ftp://rooms.example.com", REALTIME_SECRET: "s".repeat(16) }, /REALTIME_URL must be an http\(s\) URL/],
      [{ REALTIME_URL: "https://rooms.example.com" }, /REALTIME_URL and REALTIME_SECRET go together/],
      [{ REALTIME_URL: "https://rooms.example.com", REALTIME_SECRET: "short" }, /REALTIME_SECRET must be at least 16 characters/],
      [{ AUTH_SECRET: "short" }, /AUTH_SECRET must be at least 32 characters/],
      [{ AUDIT_RETENTION_DAYS: "40000" }, /AUDIT_RETENTION_DAYS must be a number of days/],
      [{ SIGNUP: "no", CHECK_STATEMENTS: "1" }, /SIGNUP must be "true" or "false"; CHECK_STATEMENTS must be "true" or "false"/],
    ];
    for (const [extra, message] of refusals) expect(() => settingsOf(bindings(extra)), JSON.stringify(extra)).toThrow(message);
  });
});

describe("SUBREQUESTS_PER_INVOCATION and MODEL_WORKERS_LIMITS (issue 45 row 2)", () => {
  it("default to the Paid plan's 1000, counted but not enforced; take the Free plan's 50 and more", () => {
    expect(settingsOf(bindings()).limits).toEqual({ subrequests: 1000, model: false });
    expect(settingsOf(bindings({ SUBREQUESTS_PER_INVOCATION: "50", MODEL_WORKERS_LIMITS: "true" })).limits).toEqual({
      subrequests: 50,
      model: true,
    });
  });

  it("refuse fewer than 50, a fraction or anything but a number, naming the setting", () => {
    for (const value of ["49", "0", "1.5", "many", "-100"]) {
      expect(() => settingsOf(bindings({ SUBREQUESTS_PER_INVOCATION: value })), value).toThrow(
        /the Worker is misconfigured: SUBREQUESTS_PER_INVOCATION/,
      );
    }
    expect(() => settingsOf(bindings({ MODEL_WORKERS_LIMITS: "yes" }))).toThrow(/the Worker is misconfigured: MODEL_WORKERS_LIMITS/);
  });
});
