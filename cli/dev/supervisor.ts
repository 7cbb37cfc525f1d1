import { red } from "../lib/style.ts";
import type { ServiceProcess } from "./child-process.ts";

type Cleanup = () => Promise<void> | void;

// tsx may relay the terminal's Ctrl-C to this process once more, milliseconds after the first;
// only a repeat later than this is a person insisting.
const REPEATED_SIGNAL_MS = 1000;

/**
 * Owns everything `npm run dev` started. Shutting down stops the services first (they use the
 * database), then runs the cleanups in reverse order of registration, then exits.
 */
export class Supervisor {
  private readonly services: ServiceProcess[] = [];
  private readonly cleanups: Cleanup[] = [];
  private shuttingDown: Promise<never> | undefined;
  private firstSignalAt = 0;

  get stopping(): boolean {
    return this.shuttingDown !== undefined;
  }

  onShutdown(cleanup: Cleanup): void {
    this.cleanups.push(cleanup);
  }

  /** A service that exits on its own ends the session: the rest is stopped and dev exits 1. */
  watch(service: ServiceProcess): void {
    this.services.push(service);
    void service.exited.then((exit) => {
      if (this.stopping) return;
      const how = exit.error ? exit.error.message : exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
      process.stderr.write(red(`\n${service.name} exited (${how}); stopping the rest.\n`, process.stderr));
      const kept = service.keptOutput();
      if (kept) process.stderr.write(kept + "\n");
      void this.shutdown(1);
    });
  }

  /** From now on the services' logs are printed as they come (until now they were kept for errors). */
  streamServiceOutput(): void {
    for (const service of this.services) service.streamOutput();
  }

  /** Later calls join the first. */
  shutdown(exitCode: number): Promise<never> {
    this.shuttingDown ??= (async () => {
      await Promise.all(this.services.map((service) => service.stop()));
      for (const cleanup of this.cleanups.reverse()) {
        await Promise.resolve()
          .then(cleanup)
          .catch((error: unknown) => process.stderr.write(`cleanup failed: ${(error as Error).message}\n`));
      }
      process.exit(exitCode);
    })();
    return this.shuttingDown;
  }

  /** Ctrl-C and SIGTERM stop everything; and whatever happens, no child outlives this process. */
  handleSignals(): void {
    const onStopSignal = () => {
      if (!this.stopping) {
        this.firstSignalAt = performance.now();
        process.stdout.write("\nStopping opsroom dev…\n");
        void this.shutdown(0);
      } else if (performance.now() - this.firstSignalAt >= REPEATED_SIGNAL_MS) {
        this.killAll();
        process.exit(130);
      }
    };
    process.on("SIGINT", onStopSignal);
    process.on("SIGTERM", onStopSignal);
    process.on("exit", () => this.killAll());
  }

  private killAll(): void {
    for (const service of this.services) service.killNow();
  }
}
