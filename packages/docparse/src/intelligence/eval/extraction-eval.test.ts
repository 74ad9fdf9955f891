import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { runExtractionEval } from "./extraction-eval.ts";
import { precision, recall, scoreFields } from "./extraction-score.ts";

const office = ["/usr/bin/soffice", "/usr/lib/libreoffice/program/soffice"].some(existsSync);

test("scoring: a wrong value costs precision and recall, a missing one recall, an invented one precision", () => {
  const expected = { a: 1, b: "x", c: null, rows: [{ v: 2 }, { v: 3 }] };
  const counts = scoreFields(expected, { a: 1, b: "y", c: 5, rows: [{ v: 2 }] });
  assert.deepEqual({ tp: counts.tp, fp: counts.fp, fn: counts.fn }, { tp: 2, fp: 2, fn: 2 });
  assert.equal(precision(counts), 0.5);
  assert.equal(recall(counts), 0.5);
  assert.deepEqual(scoreFields(expected, expected).misses, []);
});

test("the offline extractor on a subset of the eval set keeps precision ≥ 0.95 and recall ≥ 0.8", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "svc-extract-eval-test-"));
  try {
    const report = await runExtractionEval({
      dir,
      perLayout: 1,
      formats: office ? ["html", "pdf"] : ["html", "markdown"],
      mixed: office ? 2 : 0,
      heldOut: 0,
      fresh: 0,
      unseen: 0,
      only: (id) => /-(0|10|20|30)$/.test(id),
    });
    assert.equal(report.documents.length, 24);
    assert.ok(precision(report.overall) >= 0.95, `precision ${precision(report.overall)}`);
    assert.ok(recall(report.overall) >= 0.8, `recall ${recall(report.overall)}`);
    for (const kind of ["invoice", "form", "report"]) {
      assert.ok(
        precision(report.byKind[kind]) >= 0.95,
        `${kind} precision ${precision(report.byKind[kind])}`,
      );
    }
    assert.deepEqual(
      report.documents.filter((doc) => doc.schemaErrors.length > 0).map((doc) => doc.id),
      [],
    );
    if (office) {
      assert.deepEqual(report.pageCountMismatches, []);
      const correct = report.pages.filter((page) => page.expected === page.predicted).length;
      assert.ok(
        report.pages.length >= 8 && correct / report.pages.length >= 0.9,
        `${correct}/${report.pages.length}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("on the unseen label wordings (never tuned on) precision stays ≥ 0.95 and recall ≥ 0.8", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "svc-extract-eval-unseen-"));
  try {
    // HTML and markdown: what the extractor reads there does not depend on a layout engine or fonts.
    const report = await runExtractionEval({
      dir,
      perLayout: 0,
      formats: ["html", "markdown"],
      mixed: 0,
      heldOut: 0,
      fresh: 0,
      unseen: 2,
    });
    assert.equal(report.documents.length, 48);
    assert.ok(precision(report.unseen) >= 0.95, `precision ${precision(report.unseen)}`);
    assert.ok(recall(report.unseen) >= 0.8, `recall ${recall(report.unseen)}`);
    for (const kind of ["invoice", "form", "report"]) {
      const counts = report.unseenByKind[kind];
      assert.ok(precision(counts) >= 0.95, `${kind} precision ${precision(counts)}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
