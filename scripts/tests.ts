// Runs every test file one at a time (node --test), then runs once more each file that had a failing test.
// Machines here are shared and their load varies: a file that fails and then passes is named as flaky in the
// output (a defect to fix) and the run passes; a file that fails twice fails the run.
// Usage: node scripts/tests.ts [file-or-glob ...]   (default: every packages/*/src/**/*.test.ts and scripts/*.test.ts)
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

interface Counts {
  passed: number;
  failed: number;
  skipped: number;
  ms?: number;
}
interface Outcome {
  files: Record<string, Counts>;
  run: Counts;
}

const RETRY_AT_MOST = 6; // more failing files than this is no noise: no retry
const targets =
  process.argv.length > 2 ? process.argv.slice(2) : ["packages/*/src/**/*.test.ts", "scripts/*.test.ts"];
const scratch = mkdtempSync(join(tmpdir(), "svc-tests-"));
// Each test file is a Node process of its own that compiles much the same TypeScript modules: Node's compile
// cache (V8 code cache, checked against each module's source) lets every file after the first skip that work.
const compileCache = process.env.NODE_COMPILE_CACHE ?? join(scratch, "compile-cache");

function run(files: string[], round: number): Outcome | undefined {
  const out = join(scratch, `outcome-${round}.json`);
  const reporter = join(import.meta.dirname, "test-outcome.ts");
  spawnSync(
    process.execPath,
    ["--test", "--test-concurrency=1", "--test-reporter=spec", "--test-reporter-destination=stdout"].concat([
      `--test-reporter=${reporter}`,
      `--test-reporter-destination=${out}`,
      ...files,
    ]),
    { stdio: "inherit", env: { ...process.env, NODE_COMPILE_CACHE: compileCache } },
  );
  try {
    return JSON.parse(readFileSync(out, "utf8")) as Outcome;
  } catch {
    return undefined; // the runner itself died
  }
}

const name = (file: string) => relative(process.cwd(), file);
const failing = (o: Outcome) => Object.keys(o.files).filter((f) => o.files[f].failed > 0);
const sum = (o: Outcome) =>
  Object.values(o.files).reduce(
    (t, c) => ({ passed: t.passed + c.passed, failed: t.failed + c.failed, skipped: t.skipped + c.skipped }),
    { passed: 0, failed: 0, skipped: 0 },
  );

const first = run(targets, 1);
if (first) {
  // CI has a time limit: the slowest files are where to look when the run grows.
  const slowest = Object.entries(first.files)
    .sort(([, a], [, b]) => (b.ms ?? 0) - (a.ms ?? 0))
    .slice(0, 15);
  const total = Object.values(first.files).reduce((t, c) => t + (c.ms ?? 0), 0);
  console.log(`\nslowest test files (of ${Math.round(total / 1000)} s in all):`);
  for (const [file, c] of slowest) console.log(`  ${Math.round((c.ms ?? 0) / 1000)} s  ${name(file)}`);
}
let ok = first !== undefined && first.run.failed === 0;
let totals = first?.run ?? { passed: 0, failed: 1, skipped: 0 };
if (first && !ok) {
  const retry = failing(first);
  // Failures outside any file's summary, or too many files, are not retried.
  const unexplained = first.run.failed !== sum(first).failed;
  if (retry.length > 0 && retry.length <= RETRY_AT_MOST && !unexplained) {
    console.log(
      `\nretrying once the ${retry.length} file(s) with a failing test: ${retry.map(name).join(", ")}\n`,
    );
    const again = run(retry, 2);
    if (again) {
      const files = { ...first.files, ...again.files };
      totals = sum({ files, run: again.run });
      const still = failing(again);
      const flaky = retry.filter((f) => !still.includes(f) && again.files[f] !== undefined);
      if (flaky.length > 0)
        console.log(`\nflaky (failed, then passed on a second run): ${flaky.map(name).join(", ")}`);
      ok = again.run.failed === 0 && retry.every((f) => again.files[f] !== undefined);
      if (still.length > 0) console.log(`\nfailing twice: ${still.map(name).join(", ")}`);
    }
  }
}
rmSync(scratch, { recursive: true, force: true });
console.log(
  `\ntests: ${totals.passed} passed, ${ok ? 0 : Math.max(totals.failed, 1)} failed, ${totals.skipped} skipped`,
);
process.exitCode = ok ? 0 : 1;
