import assert from "node:assert/strict";
import { test } from "node:test";
import { loadDocument } from "../index.ts";
import { groundCitations } from "./grounding.ts";
import { partitionDocument } from "./partition.ts";

test("a model's values are cited where the text shows them, preferring the item that names the field", async () => {
  const text = [
    "Page 1 of 1",
    "",
    "Quantity: 1",
    "",
    "Total Due: 1,180.00",
    "",
    "Customer: Contoso Ltd",
  ].join("\n");
  const model = await loadDocument({ text, mimeType: "text/plain" });
  const [partition] = partitionDocument(model, "none", null);
  const citations = groundCitations(partition, {
    quantity: 1,
    total_due: 1180,
    customer: "contoso  LTD",
    vendor: "Fabrikam",
    notes: null,
  });
  const byField = new Map(citations.map((citation) => [citation.field, citation.text]));
  assert.equal(byField.get("/quantity"), "Quantity: 1", "not the page-number line that also shows a 1");
  assert.equal(byField.get("/total_due"), "Total Due: 1,180.00");
  assert.equal(byField.get("/customer"), "Customer: Contoso Ltd");
  assert.equal(byField.has("/vendor"), false, "a value the text does not show gets no citation");
  assert.equal(byField.has("/notes"), false);
  for (const citation of citations) assert.equal(citation.page_number, 1);
});
