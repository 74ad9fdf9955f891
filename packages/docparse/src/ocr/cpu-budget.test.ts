import assert from "node:assert/strict";
import { test } from "node:test";
import { CpuBudget, pageBudget } from "./cpu-budget.ts";
import { tesseractAvailable, tesseractCli } from "./tesseract.ts";
import { renderTextPage } from "./test-support.ts";

test("a budget aborts its signal with a TimeoutError once charged its limit", () => {
  const budget = new CpuBudget(100);
  budget.charge(60);
  assert.deepEqual([budget.leftMs, budget.signal.aborted], [40, false]);
  budget.charge(60);
  assert.deepEqual([budget.leftMs, budget.signal.aborted], [0, true]);
  assert.equal((budget.signal.reason as Error).name, "TimeoutError");
  // The page's signal follows the budget, and the caller's abort.
  const spent = pageBudget(100);
  spent.budget.charge(100);
  assert.ok(spent.signal.aborted);
  const caller = new AbortController();
  const page = pageBudget(60_000, caller.signal);
  caller.abort();
  assert.ok(page.signal.aborted);
});

const cliMissing = !(await tesseractAvailable()) && "the tesseract program is not installed";

test("a tesseract pass charges the CPU time its process used to the page's budget", {
  skip: cliMissing,
}, async () => {
  const { png } = await renderTextPage();
  const { budget, signal } = pageBudget(60_000);
  const started = performance.now();
  const page = await tesseractCli.readWords(png, 300, { language: "eng", signal, budget });
  const wallMs = performance.now() - started;
  assert.ok(page.words.length > 50);
  const charged = 60_000 - budget.leftMs;
  // Reading a page takes tesseract a few hundred milliseconds of CPU; never more than the run's wall time.
  assert.ok(charged > 50 && charged <= wallMs + 50, `charged ${charged} ms of ${wallMs} ms`);
});
