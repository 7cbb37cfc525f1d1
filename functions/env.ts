import type { Database } from "../db/client.ts";
import type { Actor } from "../domain/actor.ts";
import { AUDIT_RETENTION_DAYS } from "../domain/audit.ts";
import { EVENT_RETENTION_DAYS } from "../domain/limits.ts";
import type { Scope } from "../domain/scopes.ts";
import type { IdempotencyRequest } from "../services/context.ts";
import type { AnyRoute } from "./http/registry.ts";
import { parseMailUrl, type MailSettings } from "./mail/smtp.ts";
import type { AuthGuard } from "./rate-limit/auth-guard.ts";
import type { RateLimiter } from "./rate-limit/limiter.ts";
import type { SweepWatch } from "./sweep-watch.ts";

/** Worker bindings (wrangler.toml and secrets); read through `settingsOf`, which checks them. */
export interface Bindings {
  /** Postgres connection string; a Neon one in production (a secret). */
  DATABASE_URL: string;
  /**
   * The service's public origin (https://api.example.com): the OAuth issuer, every endpoint the
   * discovery documents name, and the resources (RFC 8707) tokens are issued for, whatever Host or
   * X-Forwarded-Host a request carries; /mcp answers only requests made to it (docs/apps.md).
   */
  PUBLIC_ORIGIN: string;
  /** host:port of a local Neon-compatible /sql endpoint (development and tests); unset against Neon. */
  LOCAL_SQL_ENDPOINT?: string;
  /** Base URL of the PartyKit realtime server. */
  REALTIME_URL?: string;
  /** Shared secret the Worker publishes to the realtime room with (a secret). */
  REALTIME_SECRET?: string;
  /**
   * Where mail goes (docs/mail.md): smtp://user:pass@host:587 (STARTTLS) or smtps://user:pass@host:465,
   * optionally ?from=name <address>. Unset: mail waits in the outbox, and the password reset and
   * email verification are off. `npm run dev` points it at its mail catcher.
   */
  MAIL_URL?: string;
  /** "true" lets webhooks point at this machine over plain http (development and tests only). */
  WEBHOOKS_ALLOW_LOOPBACK?: string;
  /**
   * Signs the session cookies of people signed in (better-auth's secret; a secret, at least 32
   * characters). Unset: no one can sign in, and the settings area and /auth answer 404.
   */
  AUTH_SECRET?: string;
  /** "false" turns self-service sign-up off (people then join by invitation or the CLI). */
  SIGNUP?: string;
  /** How many days events stay readable (GET /v1/events, history, replays); default 30, fractions allowed. */
  EVENT_RETENTION_DAYS?: string;
  AUDIT_RETENTION_DAYS?: string;
  /**
   * "true" writes one structured line per request (request id, method, path, status, ms, statements).
   * Off by default: the platform's own invocation logs record every request, and the line cost more
   * CPU than the rest of a 404 (bench/results/README.md "CPU per call").
   */
  LOG_REQUESTS?: string;
  /**
   * "true" compiles every SQL statement both ways, ours and drizzle's, and fails the call on any
   * difference (db/statements/engine/compile.ts). The tests' Workers set it; a deployment leaves it unset.
   */
  CHECK_STATEMENTS?: string;
  /**
   * Subrequests one invocation may make (functions/subrequests.ts): 1000, the Workers Paid plan's
   * figure, unless set; 50 on the Free plan.
   */
  SUBREQUESTS_PER_INVOCATION?: string;
  /**
   * "true" enforces in the Worker the per-invocation limits workerd does not (subrequests), as
   * Cloudflare does: development and the tests; never deployed.
   */
  MODEL_WORKERS_LIMITS?: string;
  /**
   * Signs attachments' download links (a secret, at least 32 characters; docs/attachments.md).
   * Unset: AUTH_SECRET signs them; neither set: files answer 503.
   */
  FILES_SECRET?: string;
  /** The R2 bucket attachments are kept in (wrangler.toml [[r2_buckets]]), each organisation under its own prefix. */
  FILES?: R2Bucket;
  /** One RateLimiter Durable Object per API key. */
  RATE_LIMITER: DurableObjectNamespace<RateLimiter>;
  /** One AuthGuard Durable Object per client address: counts the refused keys it presents. */
  AUTH_GUARD: DurableObjectNamespace<AuthGuard>;
  /** The one SweepWatch Durable Object: whether the cron's sweeps have anything to do, known without the database. */
  SWEEP_WATCH: DurableObjectNamespace<SweepWatch>;
}

/** The Worker's configuration, checked: what the code reads instead of the raw bindings. */
export interface Settings {
  /** PUBLIC_ORIGIN, as URL writes an origin (no trailing slash). */
  publicOrigin: string;
  database: { url: string; localSqlEndpoint?: string | undefined; checkStatements: boolean };
  /** Where the realtime rooms are; null when realtime is not configured (events wait for the sweep). */
  realtime: { url: string; secret: string } | null;
  webhooks: { allowLoopback: boolean };
  /** People and sessions; null when AUTH_SECRET is unset (keys only). */
  auth: { secret: string; signup: boolean } | null;
  /** How long events are kept readable, in seconds. */
  events: { retentionSeconds: number };
  /** How long audit entries are kept, in seconds (AUDIT_RETENTION_DAYS, default 365). */
  audit: { retentionSeconds: number };
  /** A structured line per request (LOG_REQUESTS=true). */
  logRequests: boolean;
  /** Subrequests per invocation, and whether they are enforced here (MODEL_WORKERS_LIMITS: not on Cloudflare, which does it). */
  limits: { subrequests: number; model: boolean };
  /** The SMTP server mail is sent through (MAIL_URL); null when it is unset. */
  mail: MailSettings | null;
  /** What signs attachments' download links (FILES_SECRET, else AUTH_SECRET); null: files are unavailable. */
  files: { signingSecret: string } | null;
}

/**
 * What a deployment must set: the settings the Worker refuses to start without, and those that go
 * together (one set without the others is refused too). `npm run check:deploy` holds wrangler.toml's
 * [vars] and the secrets docs/deployment.md names to them (cli/lib/deploy-settings.ts).
 */
export const REQUIRED_SETTINGS = ["DATABASE_URL", "PUBLIC_ORIGIN"] as const satisfies ReadonlyArray<keyof Bindings>;
export const SETTINGS_TOGETHER = [["REALTIME_URL", "REALTIME_SECRET"]] as const satisfies ReadonlyArray<ReadonlyArray<keyof Bindings>>;

/** Subrequests per invocation on the Workers Paid plan (the default of SUBREQUESTS_PER_INVOCATION). */
export const SUBREQUESTS_PAID = 1000;

const checked = new WeakMap<object, Settings>();

/** A binding's check: true, or what is wrong with the value as the error names it. */
type Check = (value: string) => true | string;

const trueOrFalse: Check = (v) => v === "true" || v === "false" || 'must be "true" or "false"';
const days =
  (most: number): Check =>
  (v) =>
    (v.trim() !== "" && Number(v) >= 1 / 86_400 && Number(v) <= most) ||
    `must be a number of days of at least one second (0.0000116) and at most ${most}`;

function protocolOf(url: string): string {
  try {
    return new URL(url).protocol;
  } catch {
    return "";
  }
}

/** An http(s) origin alone: no path (but "/"), query, fragment or credentials. */
const origin: Check = (v) => {
  try {
    const url = new URL(v);
    if (/^https?:$/.test(url.protocol) && url.pathname === "/" && !url.search && !url.hash && !v.includes("@") && !v.includes("#"))
      return true;
  } catch {
    // answered below
  }
  return "must be an http(s) origin, such as https://api.example.com (no path, query or credentials)";
};

/**
 * Reads the bindings one by one, each through its check (a handful of plain checks: the Worker's
 * start-up does not load a schema library for them); an empty value is unset. What fails is kept
 * in `problems`, each naming its binding.
 */
function reader(env: Bindings) {
  const problems: string[] = [];
  const read = (name: keyof Bindings, check: Check): string | undefined => {
    const required = (REQUIRED_SETTINGS as ReadonlyArray<keyof Bindings>).includes(name);
    const value = env[name];
    if (value === undefined || value === "") {
      if (required) problems.push(`${name} is required`);
      return undefined;
    }
    const verdict = typeof value === "string" ? check(value) : "must be text";
    if (verdict === true) return value as string;
    problems.push(`${name} ${verdict}`);
    return undefined;
  };
  return { read, problems };
}

/**
 * The bindings, checked once per isolate (the runtime hands every request the same object). A
 * deployment missing a setting, or with a malformed one, fails at its first request with a message
 * naming it, instead of somewhere later.
 */
export function settingsOf(env: Bindings): Settings {
  let settings = checked.get(env);
  if (!settings) {
    const { read, problems } = reader(env);
    // The default sender's domain: the public origin's (checked below).
    const mailHost = origin(env.PUBLIC_ORIGIN ?? "") === true ? env.PUBLIC_ORIGIN : "http://localhost";
    const s = {
      DATABASE_URL: read("DATABASE_URL", (v) => /^postgres(ql)?:\/\//.test(v) || "must be a postgres:// connection string"),
      PUBLIC_ORIGIN: read("PUBLIC_ORIGIN", origin),
      LOCAL_SQL_ENDPOINT: read("LOCAL_SQL_ENDPOINT", (v) => /^[\w.-]+:\d{1,5}$/.test(v) || "must be host:port"),
      REALTIME_URL: read("REALTIME_URL", (v) => /^https?:$/.test(protocolOf(v)) || "must be an http(s) URL"),
      REALTIME_SECRET: read("REALTIME_SECRET", (v) => v.length >= 16 || "must be at least 16 characters"),
      WEBHOOKS_ALLOW_LOOPBACK: read("WEBHOOKS_ALLOW_LOOPBACK", trueOrFalse),
      AUTH_SECRET: read("AUTH_SECRET", (v) => v.length >= 32 || "must be at least 32 characters"),
      FILES_SECRET: read("FILES_SECRET", (v) => v.length >= 32 || "must be at least 32 characters"),
      SIGNUP: read("SIGNUP", trueOrFalse),
      LOG_REQUESTS: read("LOG_REQUESTS", trueOrFalse),
      CHECK_STATEMENTS: read("CHECK_STATEMENTS", trueOrFalse),
      EVENT_RETENTION_DAYS: read("EVENT_RETENTION_DAYS", days(3650)),
      AUDIT_RETENTION_DAYS: read("AUDIT_RETENTION_DAYS", days(36500)),
      SUBREQUESTS_PER_INVOCATION: read(
        "SUBREQUESTS_PER_INVOCATION",
        (v) => (/^\d{1,8}$/.test(v) && Number(v) >= 50) || "must be a whole number of at least 50 (the Workers Free plan's)",
      ),
      MODEL_WORKERS_LIMITS: read("MODEL_WORKERS_LIMITS", trueOrFalse),
      MAIL_URL: read("MAIL_URL", (v) => {
        const parsed = parseMailUrl(v, mailHost);
        return typeof parsed === "string" ? parsed : true;
      }),
    };
    for (const names of SETTINGS_TOGETHER)
      if (new Set(names.map((name) => Boolean(s[name]))).size > 1) problems.push(`${names.join(" and ")} go together (both, or neither)`);
    if (problems.length) throw new Error(`the Worker is misconfigured: ${problems.join("; ")}`);
    settings = {
      publicOrigin: new URL(s.PUBLIC_ORIGIN!).origin,
      database: { url: s.DATABASE_URL!, localSqlEndpoint: s.LOCAL_SQL_ENDPOINT, checkStatements: s.CHECK_STATEMENTS === "true" },
      realtime: s.REALTIME_URL && s.REALTIME_SECRET ? { url: s.REALTIME_URL.replace(/\/$/, ""), secret: s.REALTIME_SECRET } : null,
      webhooks: { allowLoopback: s.WEBHOOKS_ALLOW_LOOPBACK === "true" },
      auth: s.AUTH_SECRET ? { secret: s.AUTH_SECRET, signup: s.SIGNUP !== "false" } : null,
      events: { retentionSeconds: Math.round(Number(s.EVENT_RETENTION_DAYS ?? EVENT_RETENTION_DAYS) * 86_400) },
      audit: { retentionSeconds: Math.round(Number(s.AUDIT_RETENTION_DAYS ?? AUDIT_RETENTION_DAYS) * 86_400) },
      logRequests: s.LOG_REQUESTS === "true",
      limits: { subrequests: Number(s.SUBREQUESTS_PER_INVOCATION ?? SUBREQUESTS_PAID), model: s.MODEL_WORKERS_LIMITS === "true" },
      mail: s.MAIL_URL ? (parseMailUrl(s.MAIL_URL, mailHost) as MailSettings) : null,
      files: s.FILES_SECRET || s.AUTH_SECRET ? { signingSecret: (s.FILES_SECRET ?? s.AUTH_SECRET)! } : null,
    };
    checked.set(env, settings);
  }
  return settings;
}

export interface Variables {
  requestId: string;
  db: Database;
  /** The caller: a key's hash or a session's token; set by the credentials middleware on every non-public route. */
  actor: Actor;
  /** The scope the matched route needs (null: any valid key). */
  scope: Scope | null;
  /** The parsed JSON body, kept so validation errors can tell a missing field from an invalid one. */
  body: unknown;
  /** A POST's Idempotency-Key with the fingerprint of its request; unset without the header. */
  idempotency?: IdempotencyRequest;
  /** The organisation's changeVersion the call's statements last observed (the envelope's changeVersion). */
  changeVersion?: number;
  /**
   * The registry, every route (functions/routes/index.ts), for the routes that describe or run
   * others (GET /v1, the OpenAPI document, a batch): given by the app that mounts them, so no route
   * module imports the registry that imports it.
   */
  registry: () => Promise<AnyRoute[]>;
}

export interface AppEnv {
  Bindings: Bindings;
  Variables: Variables;
}
