import type { Database } from "../../db/client.ts";
import type { Actor } from "../../domain/actor.ts";
import type { ServiceContext } from "../../services/context.ts";
import { roomsAt, type Rooms } from "../../services/room-client.ts";
import { roomAddress } from "./room-address.ts";

/** A command's service context: the system acting for one organisation, its work after the commit awaited before it ends. */
export interface CliContext extends ServiceContext {
  /** Waits for the work deferred so far (publishing to the room); failures are reported, not thrown. */
  settle(): Promise<void>;
}

export async function cliRooms(): Promise<Rooms> {
  return roomsAt(await roomAddress());
}

export async function cliContext(db: Database, actor: Actor): Promise<CliContext> {
  const deferred: Promise<unknown>[] = [];
  return {
    db,
    actor,
    rooms: await cliRooms(),
    defer: (work) =>
      void deferred.push(work().catch((error: unknown) => process.stderr.write(`warning: ${String(error)} (the sweep will publish it)\n`))),
    settle: async () => void (await Promise.all(deferred.splice(0))),
  };
}
