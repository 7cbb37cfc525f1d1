import { mkdirSync, openSync, readFileSync, rmSync, writeSync, closeSync } from "node:fs";
import { CommandError } from "./errors.ts";
import { PGLITE_LOCK_FILE, DATA_DIR } from "./paths.ts";
import { isProcessAlive } from "./processes.ts";

interface LockOwner {
  pid: number;
  /** What holds the lock, for the message another process shows. */
  holder: string;
}

/**
 * PGlite is a single-process database: two processes opening .data/pglite would corrupt it. The
 * lock file names its owner; a lock whose owner died (crash, kill -9) is taken over.
 * Returns the release function.
 */
export function lockPgliteDir(holder: string): () => void {
  mkdirSync(DATA_DIR, { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(PGLITE_LOCK_FILE, "wx");
      writeSync(fd, JSON.stringify({ pid: process.pid, holder } satisfies LockOwner));
      closeSync(fd);
      return releasePgliteLock;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const owner = readLockOwner();
    if (owner && isProcessAlive(owner.pid)) {
      throw new CommandError(
        `the embedded database (.data/pglite) is in use by ${owner.holder} (pid ${owner.pid}); wait for it to finish or stop it`,
      );
    }
    rmSync(PGLITE_LOCK_FILE, { force: true });
  }
  throw new CommandError("could not lock the embedded database (.data/pglite); another process keeps taking it");
}

function releasePgliteLock(): void {
  if (readLockOwner()?.pid === process.pid) rmSync(PGLITE_LOCK_FILE, { force: true });
}

function readLockOwner(): LockOwner | undefined {
  try {
    return JSON.parse(readFileSync(PGLITE_LOCK_FILE, "utf8")) as LockOwner;
  } catch {
    // Missing, or half-written by a process that died while creating it: treated as no owner.
    return undefined;
  }
}
