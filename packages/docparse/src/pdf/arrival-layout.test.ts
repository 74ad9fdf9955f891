import assert from "node:assert/strict";
import { test } from "node:test";
import { pageGeometry, textRun } from "../paginated/test-geometry.ts";
import { type LayoutRequest, layoutOnArrival } from "./arrival-layout.ts";
import { unreadText, withOcrWords } from "./unread-text.ts";

const request: LayoutRequest = { tables: true, dropStruck: false, signatures: false };

const ocrWord = { ...textRun("Tides", { x1: 100, y1: 401, x2: 140, y2: 412 }), confidence: 0.9 };

test("a page with unread text is not laid out on arrival and carries the unread text found, its garbled runs the page's own, also after a thread's structured clone", () => {
  const kept = textRun("Ferry timetable", { x1: 100, y1: 300, x2: 200, y2: 312 });
  const garbled = textRun("\uE001\uE002\uE003", { x1: 100, y1: 400, x2: 140, y2: 412 });
  const page = pageGeometry({ runs: [kept, garbled] });
  const arrival = layoutOnArrival(page, request);
  assert.equal(arrival.layout, null);
  assert.ok(arrival.unread);
  assert.deepEqual(arrival.unread, unreadText(page));
  assert.ok([...arrival.unread.garbled].every((run) => page.runs.includes(run)));
  // The helper thread posts the page and its unread text in one message: the clone keeps them linked, so OCR's
  // words replace the garbled run as with the unread text found afresh in the parse thread.
  const posted = structuredClone({ page, unread: arrival.unread });
  assert.ok([...posted.unread.garbled].every((run) => posted.page.runs.includes(run)));
  const merged = withOcrWords(posted.page, posted.unread, [ocrWord]);
  assert.deepEqual(merged, withOcrWords(page, unreadText(page), [ocrWord]));
  assert.deepEqual(
    merged.runs.map((run) => run.text),
    ["Ferry timetable", "Tides"],
  );
});

test("a page that needs nothing more is laid out on arrival; no request, or no text layer, looks for nothing", () => {
  const page = pageGeometry({ runs: [textRun("Ferry timetable", { x1: 100, y1: 300, x2: 200, y2: 312 })] });
  const arrival = layoutOnArrival(page, request);
  assert.ok(arrival.layout);
  assert.equal(arrival.unread, null);
  assert.deepEqual(layoutOnArrival(page, null), { layout: null, unread: null });
  assert.deepEqual(layoutOnArrival({ ...page, textSource: "none" }, request), { layout: null, unread: null });
});
