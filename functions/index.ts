import { createApp } from "./app.ts";

// The Worker: everything under /v1 is the Hono app.
const app = createApp();

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<import("./env.ts").Bindings>;
