// The bench's progress display: one line per finished step, and on a terminal a live line for the
// step in flight (its own bar for timed steps, the step count and the time since the start).

const REDRAW_MS = 200;
const BAR = 20;

export interface Progress {
  /** Starts a step; `seconds` (when known) draws a bar that fills as the step's time passes. */
  step(label: string, seconds?: number): void;
  /** Ends the current step with a one-line summary. */
  done(summary: string): void;
  /** A line that stays (a section heading, a warning). */
  note(text: string): void;
  finish(): void;
}

export function createProgress(totalSteps: number): Progress {
  const out = process.stderr;
  const live = out.isTTY === true;
  const started = performance.now();
  let count = 0;
  let label = "";
  let stepStarted = 0;
  let stepSeconds: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  const clock = (ms: number) => {
    const s = Math.floor(ms / 1000);
    return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  };
  const prefix = () => `[${String(count).padStart(String(totalSteps).length)}/${totalSteps}]`;
  const draw = () => {
    if (!live || !label) return;
    const inStep = (performance.now() - stepStarted) / 1000;
    const bar = stepSeconds
      ? ` [${"#".repeat(Math.min(BAR, Math.round((inStep / stepSeconds) * BAR))).padEnd(BAR, "-")}] ${inStep.toFixed(1)}/${stepSeconds}s`
      : ` ${inStep.toFixed(1)}s`;
    out.write(`\r\x1b[2K${prefix()} ${label}${bar}  (total ${clock(performance.now() - started)})`);
  };
  const clear = () => live && out.write("\r\x1b[2K");
  return {
    step(text, seconds) {
      count++;
      label = text;
      stepStarted = performance.now();
      stepSeconds = seconds;
      if (!live) out.write(`${prefix()} ${text}\n`);
      timer ??= live ? setInterval(draw, REDRAW_MS) : undefined;
      timer?.unref();
      draw();
    },
    done(summary) {
      clear();
      const ms = performance.now() - stepStarted;
      out.write(`${prefix()} ${label}: ${summary} (${(ms / 1000).toFixed(1)}s)\n`);
      label = "";
    },
    note(text) {
      clear();
      out.write(`${text}\n`);
      draw();
    },
    finish() {
      if (timer) clearInterval(timer);
      clear();
      out.write(`done in ${clock(performance.now() - started)}\n`);
    },
  };
}
