const WIDTH = 30;
const REDRAW_EVERY_MS = 100;

export interface ProgressBar {
  update(done: number, total: number): void;
  /** Clears the bar so the next output starts on a clean line. */
  finish(): void;
}

/** A one-line progress bar on stderr; silent when stderr is not a terminal (pipes, CI logs). */
export function createProgressBar(label: string): ProgressBar {
  const stream = process.stderr;
  if (!stream.isTTY) return { update() {}, finish() {} };
  const startedAt = Date.now();
  let drawnAt = 0;
  return {
    update(done, total) {
      const now = Date.now();
      if (done < total && now - drawnAt < REDRAW_EVERY_MS) return;
      drawnAt = now;
      const share = total === 0 ? 1 : done / total;
      const filled = Math.round(share * WIDTH);
      const seconds = ((now - startedAt) / 1000).toFixed(1);
      stream.write(
        `\r${label} [${"#".repeat(filled)}${"-".repeat(WIDTH - filled)}] ${done}/${total} ${Math.floor(share * 100)}% ${seconds}s`,
      );
    },
    finish() {
      if (drawnAt > 0) stream.write("\r\x1b[2K");
    },
  };
}
