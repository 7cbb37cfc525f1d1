// `wrangler dev` does not fire cron triggers by itself, so the dev command stands in for
// Cloudflare's scheduler: it runs the Worker's scheduled handler (the outbox sweep) once at start,
// which publishes what the seed or the CLI wrote, and then every minute as wrangler.toml says.

const EVERY_MS = 60_000;

export function startDevCron(workerUrl: string): () => void {
  // wrangler dev --test-scheduled serves /__scheduled (/cdn-cgi/handler/scheduled fails beside [assets]).
  const fire = () => void fetch(`${workerUrl}/__scheduled?cron=*+*+*+*+*`).catch(() => {});
  fire();
  const timer = setInterval(fire, EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
