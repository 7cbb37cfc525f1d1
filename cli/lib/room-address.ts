import { readFileSync } from "node:fs";
import type { RoomAddress } from "../../services/room-client.ts";
import { findRunningDevServer } from "./dev-state.ts";
import { DEV_SECRET_FILE } from "./paths.ts";

/**
 * Where the CLI tells the realtime rooms of what it changed (a write's event, a revoked key):
 * REALTIME_URL and REALTIME_SECRET from the environment, as the Worker has them; else the rooms
 * of a running `npm run dev`. Null when neither is there: the Worker's sweep, every minute, then
 * tells the room.
 */
export async function roomAddress(): Promise<RoomAddress | null> {
  const { REALTIME_URL, REALTIME_SECRET } = process.env;
  if (REALTIME_URL && REALTIME_SECRET) return { url: REALTIME_URL, secret: REALTIME_SECRET };
  const dev = await findRunningDevServer();
  if (!dev) return null;
  try {
    return { url: dev.realtimeUrl, secret: readFileSync(DEV_SECRET_FILE, "utf8").trim() };
  } catch {
    return null;
  }
}
