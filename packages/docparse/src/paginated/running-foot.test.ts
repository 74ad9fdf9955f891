import assert from "node:assert/strict";
import { test } from "node:test";
import { detectFurniture, type FurnitureCandidate } from "./furniture.ts";
import { runningFoot } from "./running-foot.ts";

const PAGE = { width: 396, height: 612 };

function candidate(text: string, y1: number, options: Partial<FurnitureCandidate> = {}): FurnitureCandidate {
  return {
    page: 1,
    pageSize: PAGE,
    box: { x1: 280, y1, x2: 351, y2: y1 + 10 },
    text,
    fontSize: 9,
    heading: false,
    pageNumber: false,
    edge: null,
    ...options,
  };
}

test("a bold title and its page number at a single page's foot are its footer", () => {
  // A manual's page: the body in 8.3 pt, the foot `Maintenance Log 39` in bold, labeled a heading by its look.
  const body = candidate(
    "Replace engine oil and oil filter and tighten the nuts and bolts on the chassis",
    300,
    {
      fontSize: 8.3,
    },
  );
  const foot = candidate("Maintenance Log 39", 575, { heading: true });
  const kinds = detectFurniture([body, foot], 8.3, 1);
  assert.equal(kinds.get(1), "page_footer");
  assert.equal(kinds.has(0), false);
  // The same heading higher up, out of the foot margin, is content.
  assert.equal(
    detectFurniture([body, candidate("Maintenance Log 39", 520, { heading: true })], 8.3, 1).size,
    0,
  );
});

test("runningFoot wants a short title beside a page number, at the foot, not set large", () => {
  assert.equal(runningFoot("Maintenance Log 39", true, 9, 8.3), true);
  assert.equal(runningFoot("39 | Annual Report", true, 9, 8.3), true);
  assert.equal(runningFoot("Maintenance Log 39", false, 9, 8.3), false);
  assert.equal(runningFoot("Maintenance Log 39", true, 18, 8.3), false);
  assert.equal(runningFoot("Maintenance Log", true, 9, 8.3), false);
  assert.equal(runningFoot("Chevron 2022 Corporate Sustainability Report", true, 9, 8.3), false);
});
