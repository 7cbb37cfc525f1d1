// `npx tsx bench/cold-start.ts [--rounds=5] [--against=<dir>]`: what an isolate's first request
// costs beside its second, after start-up (which `npm run check:deploy` measures): the Worker's
// isolate CPU while each request runs, from a DevTools profile (bench/lib/inspected-worker.ts),
// for GET /v1/tasks/:id then PATCH /v1/tasks/:id, each on a Worker started fresh. With
// --against, another checkout's Worker takes its turn in the same rounds (before and after in one
// run). The inspector slows the Worker: compare the trees and the calls, not the times with
// bench/README.md's other figures. Medians of the rounds.

import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { profiledMs, profilingStack, startInspectedWorker } from "./lib/inspected-worker.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const option = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const ROUNDS = Number(option("rounds") ?? 5);
const trees = [{ label: "this tree", root: ROOT }, ...(option("against") ? [{ label: "against", root: resolve(option("against")!) }] : [])];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const { key, taskId, settings, close } = await profilingStack("cold", 50);
try {
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const calls = {
    "GET /v1/tasks/:id": (base: string) => fetch(`${base}/v1/tasks/${taskId}`, { headers }),
    "PATCH /v1/tasks/:id": (base: string) =>
      fetch(`${base}/v1/tasks/${taskId}`, { method: "PATCH", headers, body: JSON.stringify({ title: `Cold ${Math.random()}` }) }),
  };
  const figures = new Map<string, number[]>();
  const keep = (key: string, ms: number) => figures.set(key, [...(figures.get(key) ?? []), ms]);
  for (let round = 1; round <= ROUNDS; round++) {
    for (const tree of round % 2 ? trees : [...trees].reverse()) {
      for (const [call, send] of Object.entries(calls)) {
        // An unknown path answers 404 without loading any route: the Worker is up, nothing more.
        const worker = await startInspectedWorker(tree.root, settings, "/v1/nope");
        try {
          for (const turn of ["first", "second"]) {
            const ms = await profiledMs(worker, async () => {
              const answer = await send(worker.base);
              if (!answer.ok) throw new Error(`${call} answered ${answer.status}: ${await answer.text()}`);
              await answer.text();
            });
            keep(`${tree.label}|${call}|${turn}`, ms);
          }
        } finally {
          await worker.stop();
        }
        process.stdout.write(`round ${round}/${ROUNDS}, ${tree.label}, ${call}\n`);
      }
    }
  }
  console.log(`\n| tree | call | first request ms | second ms | first / second |\n|---|---|--:|--:|--:|`);
  for (const tree of trees)
    for (const call of Object.keys(calls)) {
      const [first, second] = ["first", "second"].map((turn) => median(figures.get(`${tree.label}|${call}|${turn}`)!));
      console.log(`| ${tree.label} | ${call} | ${first!.toFixed(1)} | ${second!.toFixed(1)} | ${(first! / second!).toFixed(1)}x |`);
    }
} finally {
  await close();
}
