// A node:test reporter that writes, as JSON to its destination, each test file's counts and time and the whole run's.
// scripts/tests.ts reads it to retry the files that failed once, to name the slowest files and to print one
// closing line.
import type { TestEvent } from "node:test/reporters";

interface Counts {
  passed: number;
  failed: number;
  skipped: number;
  ms?: number;
}

export default async function* outcome(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const files: Record<string, Counts> = {};
  let run: Counts = { passed: 0, failed: 0, skipped: 0 };
  for await (const event of source) {
    if (event.type !== "test:summary") continue;
    const c = event.data.counts;
    const counts = { passed: c.passed, failed: c.failed + c.cancelled, skipped: c.skipped + c.todo };
    if (event.data.file === undefined) run = counts;
    else files[event.data.file] = { ...counts, ms: Math.round(event.data.duration_ms) };
  }
  yield `${JSON.stringify({ files, run })}\n`;
}
