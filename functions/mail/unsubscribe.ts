import { Hono, type Context } from "hono";
import { escapeHtml } from "../../domain/mail.ts";
import { applyUnsubscribe, unsubscribeTarget } from "../../services/notification-inbox.ts";
import { pathOf } from "../entry-points.ts";
import type { AppEnv } from "../env.ts";
import { settingsOf } from "../env.ts";

// The unsubscribe link of every notification mail (docs/notifications.md "Unsubscribe"):
// GET /unsubscribe?token= shows what the link turns off and a button; POST (the button, or a mail
// client's RFC 8058 one-click POST of List-Unsubscribe=One-Click) turns it off. The token is signed
// for the person and the kind, so no session is needed, and a GET alone (a mail scanner following
// links) changes nothing.

const WHAT: Record<string, string> = {
  assigned: "mail when a task is assigned to you",
  mentioned: "mail when someone mentions you",
  commented: "mail when someone comments on what you follow",
  changed: "mail when what you follow changes",
  digest: "the daily digest",
};

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>` +
  `<meta name="viewport" content="width=device-width"></head><body style="font-family:sans-serif;max-width:36em;margin:3em auto">` +
  `<h1>${escapeHtml(title)}</h1>${body}</body></html>`;

async function targetOf(c: Context<AppEnv>) {
  const auth = settingsOf(c.env).auth;
  const token = c.req.query("token") ?? "";
  return auth ? unsubscribeTarget(auth.secret, token) : null;
}

const invalid = (c: Context<AppEnv>) =>
  c.html(
    page("This link does not work", "<p>The unsubscribe link is incomplete or was changed. Open the settings of the console instead.</p>"),
    400,
  );

export async function unsubscribePage(c: Context<AppEnv>) {
  const target = await targetOf(c);
  if (!target) return invalid(c);
  const action = `/unsubscribe?token=${encodeURIComponent(c.req.query("token")!)}`;
  return c.html(
    page(
      "Unsubscribe",
      `<p>Stop ${escapeHtml(WHAT[target.target]!)}?</p>` +
        `<form method="post" action="${escapeHtml(action)}"><input type="hidden" name="List-Unsubscribe" value="One-Click">` +
        `<button type="submit">Unsubscribe</button></form>`,
    ),
  );
}

export async function unsubscribeNow(c: Context<AppEnv>) {
  const target = await targetOf(c);
  if (!target) return invalid(c);
  await applyUnsubscribe({ db: c.get("db") }, target);
  return c.html(
    page("Unsubscribed", `<p>You will no longer get ${escapeHtml(WHAT[target.target]!)}. The console's settings turn it on again.</p>`),
  );
}

/** The part of the app (functions/entry-points.ts "mail") that answers the unsubscribe links, loaded when one is first followed. */
export const unsubscribeRoutes = new Hono<AppEnv>()
  .get(pathOf("unsubscribePage"), unsubscribePage)
  .post(pathOf("unsubscribe"), unsubscribeNow);
