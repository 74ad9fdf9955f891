import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { parseDocument } from "../index.ts";
import type { Box } from "../model.ts";
import { detectFurniture, type FurnitureCandidate } from "./furniture.ts";

const PAGE = { width: 612, height: 792 };
const REAL_WORLD = fileURLToPath(new URL("../../test/real-world/", import.meta.url));

function candidate(text: string, box: Box, options: Partial<FurnitureCandidate> = {}): FurnitureCandidate {
  return {
    page: 1,
    pageSize: PAGE,
    box,
    text,
    fontSize: 10,
    heading: false,
    pageNumber: false,
    edge: null,
    ...options,
  };
}

const BODY =
  "The paragraph goes on for several lines of body text in the usual size, and nothing about it says that it " +
  "is anything but part of the document's content.";

/** A small line at the top of a one-page document, then `next` and a paragraph of body text. */
function page(next: string): FurnitureCandidate[] {
  return [
    candidate(
      "HARBOUR FERRY COMPANY, INC.",
      { x1: 200, y1: 40, x2: 400, y2: 48 },
      { fontSize: 8, edge: "top" },
    ),
    candidate(next, { x1: 72, y1: 90, x2: 400, y2: 100 }),
    candidate(BODY, { x1: 72, y1: 130, x2: 540, y2: 200 }),
  ];
}

test("a small line over a memo's fields is its letterhead; over body text it is a running head", () => {
  assert.equal(detectFurniture(page("FROM: The harbour master").slice(), 10, 1).has(0), false);
  assert.equal(detectFurniture(page("To: All captains of the fleet").slice(), 10, 1).has(0), false);
  assert.equal(detectFurniture(page(BODY), 10, 1).get(0), "page_header");
});

test("public: the sugar letter's typed memo head is content, so ignore_sections keeps it", async () => {
  const bytes = readFileSync(`${REAL_WORLD}scan-sugar-foundation-letter.pdf`);
  const { result } = await parseDocument({
    bytes,
    mimeType: "application/pdf",
    options: { parsing: { ignore_sections: ["page_header", "page_footer", "page_number"] } },
  });
  assert.match(result.markdown, /SUGAR RESEARCH FOUNDATION/);
});

test("a sender's address block of three short lines at the top is content; a one-line head is not", () => {
  const head = (lines: string[]) => [
    candidate(
      lines.join(" "),
      { x1: 440, y1: 22, x2: 540, y2: 22 + lines.length * 13 },
      { fontSize: 8, edge: "top", lines },
    ),
    candidate(BODY, { x1: 72, y1: 130, x2: 540, y2: 200 }),
  ];
  assert.equal(
    detectFurniture(head(["Harbour Street 15", "4021 Lakeside", "The Netherlands"]), 10, 1).has(0),
    false,
  );
  assert.equal(
    detectFurniture(head(["Harbour Ferry Company Annual Report 2024"]), 10, 1).get(0),
    "page_header",
  );
  // A title stacked a word a line is no address, nor are sentences.
  assert.equal(detectFurniture(head(["SUSTAINABILITY", "REPORT", "2020"]), 10, 1).get(0), "page_header");
  assert.equal(
    detectFurniture(head(["Draft 2.", "Not for circulation.", "Do not cite."]), 10, 1).get(0),
    "page_header",
  );
});
