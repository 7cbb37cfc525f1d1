import type { Progress } from "../lib/progress.ts";
import type { BenchStack } from "../lib/stack.ts";
import type { Row } from "../lib/table.ts";

/** How long and how much each section measures: a full run, or a quick pass. */
export interface Plan {
  quick: boolean;
  seconds: number;
  warmup: number;
  rtSamples: number;
  growthSamples: number;
  fanoutWrites: number;
  webhookEvents: number;
}

export const FULL: Plan = { quick: false, seconds: 8, warmup: 2, rtSamples: 15, growthSamples: 100, fanoutWrites: 20, webhookEvents: 1000 };
export const QUICK: Plan = { quick: true, seconds: 1, warmup: 0.3, rtSamples: 5, growthSamples: 10, fanoutWrites: 3, webhookEvents: 100 };

/** What every section runs with: the stack, the plan, the progress display, and the table it adds rows to. */
export interface BenchRun {
  stack: BenchStack;
  plan: Plan;
  progress: Progress;
  rows: Row[];
}
