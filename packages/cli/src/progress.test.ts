import assert from "node:assert/strict";
import { test } from "node:test";
import type { ParseResult } from "@svc/contract";
import { parseProgress } from "./progress.ts";

const state = (status: ParseResult["status"], parsed: number, total: number | null): ParseResult => ({
  parse_id: "parse_1",
  status,
  created_at: "2026-01-01T00:00:00Z",
  parsed_pages_count: parsed,
  total_pages: total,
});

test("on a terminal, progress redraws one line with status and pages, then prints a summary", () => {
  let out = "";
  const progress = parseProgress({ isTTY: true, write: (text: string) => (out += text) }, "parse_1");
  progress.update(state("pending", 0, null));
  progress.update(state("processing", 0, null));
  progress.update(state("successful", 3, 3));
  progress.done();
  const frames = out.split("\r\x1b[2K").filter(Boolean);
  assert.match(frames[0], /parse_1 starting/);
  assert.ok(frames.some((f) => /parse_1 queued \d+\.\ds$/.test(f)));
  assert.ok(frames.some((f) => /parse_1 parsing \d+\.\ds$/.test(f)));
  assert.match(frames.at(-1) ?? "", /^parse_1 done, 3\/3 pages in \d+\.\ds\n$/);
  assert.equal(out.split("\n").length, 2, "one line in all");
});

test("progress writes nothing when the stream is not a terminal", () => {
  let out = "";
  const progress = parseProgress({ isTTY: false, write: (text: string) => (out += text) }, "parse_1");
  progress.update(state("failure", 0, null));
  progress.done();
  assert.equal(out, "");
});
