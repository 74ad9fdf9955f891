import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { parseDocument } from "../index.ts";
import { leaves } from "./eval/extraction-score.ts";
import {
  buildExtractionSet,
  type EvalDocument,
  FORMATS,
  type Format,
  INVOICE_SCHEMA,
  MIME_TYPES,
  renderDocuments,
} from "./eval/extraction-set.ts";
import { extractStructured } from "./extract.ts";
import { partitionDocument } from "./partition.ts";
import { validateAgainstSchema } from "./schema.ts";

const office = ["/usr/bin/soffice", "/usr/lib/libreoffice/program/soffice"].some(existsSync);
const formats: Format[] = office ? FORMATS : ["html", "markdown"];
const dir = mkdtempSync(path.join(tmpdir(), "svc-extract-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));

// Two documents of each kind and layout: values differ between copies, and the second copy of an invoice has no
// PO number, the first of a form no address, the first of a report no department.
const set = buildExtractionSet(2);
const chosen = [
  "invoice-0",
  "invoice-11",
  "invoice-30",
  "form-0",
  "form-21",
  "form-30",
  "report-1",
  "report-10",
  "report-20",
];
const documents = set.filter((doc) => chosen.includes(doc.id));
// DOCX and PDF are laid out in a font install.sh guarantees, and the PDFs once more in a second family with other
// metrics: the values read must not depend on the machine's fonts.
const files = renderDocuments(documents, formats, dir, { font: "DejaVu Sans" });
const SECOND_FONT = "Liberation Serif";
const secondFont = office
  ? renderDocuments(documents, ["pdf"], path.join(dir, "second-font"), { font: SECOND_FONT })
  : new Map<string, Uint8Array>();

async function extract(doc: EvalDocument, format: Format, provideCitations = false, rendered = files) {
  const bytes = rendered.get(`${doc.id}.${format}`);
  assert.ok(bytes, `${doc.id}.${format} rendered`);
  const { document } = await parseDocument({ bytes, mimeType: MIME_TYPES[format] });
  const [partition] = partitionDocument(document, "none", null);
  return extractStructured(partition, doc.schema, { provideCitations });
}

const byId = (id: string) => documents.find((doc) => doc.id === id) as EvalDocument;

/** Fields the test insists on for every format (the eval measures the rest). */
const KEY_FIELDS: Record<string, string[]> = {
  invoice: [
    "/invoice_number",
    "/invoice_date",
    "/total",
    "/subtotal",
    "/line_items/0/amount",
    "/line_items/1/quantity",
  ],
  form: [
    "/applicant/last_name",
    "/marital_status",
    "/employment_status",
    "/annual_income",
    "/number_of_dependents",
  ],
  report: [
    "/author",
    "/revenue",
    "/net_income",
    "/regions/0/region",
    "/regions/1/revenue",
    "/regions/2/growth",
  ],
};

for (const doc of documents) {
  test(`${doc.id} (${doc.kind}, ${doc.layout}): key values in every format, absent fields null, data valid`, async () => {
    const variants: [Format, string, Map<string, Uint8Array>][] = formats.map((format) => [
      format,
      format,
      files,
    ]);
    if (office) variants.push(["pdf", `pdf in ${SECOND_FONT}`, secondFont]);
    for (const [format, what, rendered] of variants) {
      const { data } = await extract(doc, format, false, rendered);
      assert.deepEqual(validateAgainstSchema(doc.schema, data), [], `${what}: data validates`);
      const got = leaves(data);
      const want = leaves(doc.expected);
      for (const field of KEY_FIELDS[doc.kind]) {
        assert.deepEqual(got.get(field), want.get(field), `${doc.id} ${what} ${field}`);
      }
      // Never invented: every field the document does not state is null.
      for (const [field, expected] of want) {
        if (expected === null)
          assert.equal(got.get(field) ?? null, null, `${doc.id} ${what} ${field} is absent`);
      }
      // Array lengths are the document's: no totals row read as an item, no row lost.
      const arrayField = doc.kind === "invoice" ? "line_items" : doc.kind === "report" ? "regions" : null;
      if (arrayField) {
        const rows = (data as Record<string, unknown[] | null>)[arrayField];
        assert.equal(
          rows?.length,
          (doc.expected[arrayField] as unknown[]).length,
          `${doc.id} ${what} ${arrayField}`,
        );
      }
    }
  });
}

test(`a PDF gives the same values laid out in DejaVu Sans and in ${SECOND_FONT}`, {
  skip: !office && "no LibreOffice",
}, async () => {
  for (const doc of documents) {
    const first = await extract(doc, "pdf");
    const second = await extract(doc, "pdf", false, secondFont);
    assert.deepEqual(second.data, first.data, doc.id);
  }
});

test("the documents that leave a field out give null for it, in every format", async () => {
  const absent: [string, string][] = [
    ["invoice-11", "po_number"],
    ["form-0", "address"],
    ["form-30", "address"],
    ["report-10", "department"],
  ];
  for (const [id, field] of absent) {
    assert.equal(byId(id).expected[field], null, `${id} leaves ${field} out`);
    for (const format of formats) {
      const { data } = await extract(byId(id), format);
      assert.equal((data as Record<string, unknown>)[field], null, `${id}.${format} ${field}`);
    }
  }
  // ...and the copies that state it give it.
  const { data } = await extract(byId("invoice-0"), "html");
  assert.equal((data as Record<string, unknown>).po_number, byId("invoice-0").expected.po_number);
});

test("checkbox groups give the checked enum option and yes/no", async () => {
  const doc = byId("form-30"); // mixed layout, index 30: checkboxes
  for (const format of formats) {
    const { data } = await extract(doc, format);
    const record = data as Record<string, unknown>;
    assert.equal(record.marital_status, doc.expected.marital_status, format);
    assert.equal(record.employment_status, doc.expected.employment_status, format);
  }
});

test("citations point at the page, box and text each value came from", {
  skip: !office && "no LibreOffice",
}, async () => {
  const doc = byId("invoice-0");
  const { data, citations } = await extract(doc, "pdf", true);
  const record = data as Record<string, unknown>;
  const total = citations.find((citation) => citation.field === "/total");
  assert.ok(total, "a citation for /total");
  assert.equal(total.page_number, 1);
  assert.ok(
    total.bbox && total.bbox.x2 > total.bbox.x1 && total.bbox.y2 > total.bbox.y1,
    "a box on the page",
  );
  assert.match(total.text, /Total/);
  const cell = citations.find((citation) => citation.field === "/line_items/0/amount");
  assert.ok(cell?.bbox, "a table cell's own box");
  assert.ok(
    cell.text
      .replace(/[^\d]/g, "")
      .includes(String(Math.round((record.line_items as { amount: number }[])[0].amount * 100))),
  );
  // One citation per extracted leaf, none for nulls.
  const extracted = [...leaves(data)].filter(([, value]) => value !== null).map(([field]) => field);
  assert.deepEqual(citations.map((citation) => citation.field).sort(), extracted.sort());
  const none = await extract(doc, "pdf", false);
  assert.deepEqual(none.citations, []);
});

test("lines run together by the layout still give each label its value", async () => {
  // A font with a shorter line height lets the PDF layout join the totals lines into one paragraph.
  const text = "Totals for this invoice: Subtotal: £45,548.46 Tax: £9,109.69 Total Due: £54,658.15 Paid: Yes";
  const { document } = await parseDocument({ text, mimeType: "text/plain" });
  const [partition] = partitionDocument(document, "none", null);
  const { data } = extractStructured(partition, INVOICE_SCHEMA, { provideCitations: false });
  const record = data as Record<string, unknown>;
  assert.deepEqual([record.subtotal, record.tax, record.total], [45548.46, 9109.69, 54658.15]);
});

test("line-item columns are told by their arithmetic when the headers mislead", async () => {
  // "Unit Amount" and "Amount Ordered" both name an amount; quantity × price = amount says which is which.
  const text = [
    "# Invoice",
    "",
    "| Item | Amount Ordered | Unit Amount | Value |",
    "| --- | --- | --- | --- |",
    "| Cable ties | 20 | 199.23 | 3,984.60 |",
    "| Copper wire | 17 | 285.63 | 4,855.71 |",
    "| Subtotal | | | 8,840.31 |",
  ].join("\n");
  const { document } = await parseDocument({ text, mimeType: "text/markdown" });
  const [partition] = partitionDocument(document, "none", null);
  const { data } = extractStructured(partition, INVOICE_SCHEMA, { provideCitations: false });
  const items = (data as { line_items: { quantity: number; unit_price: number; amount: number }[] })
    .line_items;
  assert.deepEqual(
    items.map((item) => [item.quantity, item.unit_price, item.amount]),
    [
      [20, 199.23, 3984.6],
      [17, 285.63, 4855.71],
    ],
  );
});

test("a label at the end of a sentence the layout ran it into still gives its value", async () => {
  const text = "I declare that the information given is true and complete. Signature Date: 19 Sep 2022";
  const { document } = await parseDocument({ text, mimeType: "text/plain" });
  const [partition] = partitionDocument(document, "none", null);
  const schema = {
    type: "object",
    properties: { signature_date: { type: "string", description: "date the form was signed" } },
    required: ["signature_date"],
  };
  const { data } = extractStructured(partition, schema, { provideCitations: false });
  assert.deepEqual(data, { signature_date: "2022-09-19" });
});

test("a label whose value is not of the field's type, or no label at all, gives null", async () => {
  const text = [
    "# Invoice",
    "Invoice No: A-17",
    "Total: to be confirmed",
    "Paid: perhaps",
    "Due Date: next week",
    "Notes: deliver to the back door",
  ].join("\n\n");
  const { document } = await parseDocument({ text, mimeType: "text/markdown" });
  const schema = {
    type: "object",
    properties: {
      invoice_number: { type: "string" },
      total: { type: "number" },
      paid: { type: "boolean" },
      due_date: { type: "string", format: "date" },
      notes: { type: "string" },
      customer: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
      items: {
        type: "array",
        items: { type: "object", properties: { sku: { type: "string" } }, required: ["sku"] },
      },
    },
    required: ["invoice_number", "total", "paid", "due_date", "notes", "customer", "items"],
  };
  const { data } = extractStructured(partitionDocument(document, "none", null)[0], schema, {
    provideCitations: false,
  });
  assert.deepEqual(data, {
    invoice_number: "A-17",
    total: null,
    paid: null,
    due_date: null,
    notes: "deliver to the back door",
    customer: null,
    items: null,
  });
});

test("camelCase names, description aliases, labels ending in digits and $ref'd nested objects", async () => {
  const text = [
    "# Shipment",
    "Tracking Ref: ZX-99",
    "Shipped On: 2023-11-14",
    "Ship To:",
    "Ada Lovelace",
    "Weight (kg): 12.5",
    "Address Line 2: Flat 4   Meeting Time: 10:30",
  ].join("\n\n");
  const { document } = await parseDocument({ text, mimeType: "text/markdown" });
  const schema = {
    type: "object",
    properties: {
      trackingReference: { type: "string" },
      shipDate: { type: "string", description: "The date it was shipped, labelled 'Shipped On'" },
      recipient: { $ref: "#/$defs/party" },
      weight: { type: "number" },
      address_line_2: { type: "string" },
      meeting_time: { type: "string" },
    },
    required: ["trackingReference", "shipDate", "recipient", "weight", "address_line_2", "meeting_time"],
    $defs: {
      party: {
        type: "object",
        properties: { name: { type: "string", description: "labelled 'Ship To'" } },
        required: ["name"],
      },
    },
  };
  const { data } = extractStructured(partitionDocument(document, "none", null)[0], schema, {
    provideCitations: false,
  });
  assert.deepEqual(data, {
    trackingReference: "ZX-99",
    shipDate: "2023-11-14",
    recipient: { name: "Ada Lovelace" },
    weight: 12.5,
    address_line_2: "Flat 4",
    meeting_time: "10:30",
  });
});

test("near-miss labels stay out: other nouns, changed amounts, ambiguous partial names, implausible values", async () => {
  const text = [
    "# Statement",
    "Bill Number: B-77",
    "Net Total: $90.00",
    "Date: 2024-05-06",
    "Invoice To: Acme Corp",
    "Email Address: pat@example.org",
    "Street Address: 1 Main Street",
    "Phone: call the office",
    "Department of Sales: We sell widgets to customers in twelve countries across Europe and Asia.",
  ].join("\n\n");
  const { document } = await parseDocument({ text, mimeType: "text/markdown" });
  const schema = {
    type: "object",
    properties: {
      invoice_number: { type: "string" },
      customer_name: { type: "string", description: "labelled 'Bill To'" },
      total: { type: "number" },
      start_date: { type: "string" },
      end_date: { type: "string" },
      email: { type: "string" },
      address: { type: "string" },
      phone: { type: "string" },
      department: { type: "string" },
    },
    required: [
      "invoice_number",
      "customer_name",
      "total",
      "start_date",
      "end_date",
      "email",
      "address",
      "phone",
      "department",
    ],
  };
  const { data } = extractStructured(partitionDocument(document, "none", null)[0], schema, {
    provideCitations: false,
  });
  assert.deepEqual(data, {
    invoice_number: null, // "Invoice To" names no number
    // "Invoice To" is the bill-to party (a role label kept apart by its "to"); "Bill Number" is a number, not it.
    customer_name: "Acme Corp",
    total: null, // a net total is not the total
    start_date: null, // "Date" could be either date
    end_date: null,
    email: "pat@example.org",
    address: "1 Main Street",
    phone: null, // not a phone number
    department: null, // a sentence, not a department
  });
});

test("two tables that touch (read as one in some PDF layouts) give both their pairs and their rows", async () => {
  const blocks = [
    { type: "heading" as const, level: 1, text: "INVOICE" },
    {
      type: "pairs" as const,
      pairs: [
        ["Customer", "Acme Corp"],
        ["PO Number", "PO-77"],
      ] as [string, string][],
      layout: "kv-table" as const,
    },
    {
      type: "table" as const,
      headers: ["Description", "Qty", "Unit Price", "Amount"],
      rows: [
        ["Widget", "2", "$10.00", "$20.00"],
        ["Gadget", "1", "$1,200.50", "$1,200.50"],
        ["Total", "", "", "$1,220.50"],
      ],
    },
  ];
  const touching = renderDocuments([{ id: "touching", blocks }], formats, path.join(dir, "touching"));
  const schema = {
    type: "object",
    properties: {
      customer: { type: "string" },
      po_number: { type: "string" },
      total: { type: "number" },
      line_items: (INVOICE_SCHEMA.properties as Record<string, unknown>).line_items,
    },
    required: ["customer", "po_number", "total", "line_items"],
  };
  for (const format of formats) {
    const { document } = await parseDocument({
      bytes: touching.get(`touching.${format}`) as Uint8Array,
      mimeType: MIME_TYPES[format],
    });
    const { data } = extractStructured(partitionDocument(document, "none", null)[0], schema, {
      provideCitations: false,
    });
    assert.deepEqual(
      data,
      {
        customer: "Acme Corp",
        po_number: "PO-77",
        total: 1220.5,
        line_items: [
          { description: "Widget", quantity: 2, unit_price: 10, amount: 20 },
          { description: "Gadget", quantity: 1, unit_price: 1200.5, amount: 1200.5 },
        ],
      },
      format,
    );
  }
});

test("a schema that refers to itself ends in nulls, not a loop; apostrophes are not quotes", async () => {
  const { document } = await parseDocument({
    text: "# Note\n\nName: Ada\n\nInvoice Ref: R-9\n\ns number, labelled: wrong",
    mimeType: "text/markdown",
  });
  const [partition] = partitionDocument(document, "none", null);
  const wide: Record<string, unknown> = { name: { type: "string" } };
  for (let i = 0; i < 20; i++) wide[`child_${i}`] = { $ref: "#" };
  const recursive = { type: "object", properties: wide, required: Object.keys(wide) };
  const { data } = extractStructured(partition, recursive, { provideCitations: false });
  assert.equal((data as Record<string, unknown>).name, "Ada");
  assert.deepEqual(validateAgainstSchema(recursive, data), []);

  const aliased = {
    type: "object",
    properties: { ref: { type: "string", description: "The invoice's reference, labelled 'Invoice Ref'" } },
    required: ["ref"],
  };
  assert.deepEqual(extractStructured(partition, aliased, { provideCitations: false }).data, { ref: "R-9" });
});

test("unseen wordings: lexicon synonyms, role labels, split compounds and abbreviations; no invention", async () => {
  const text = [
    "# Invoice",
    "Sold By: Wayne Works",
    "Sold To: Globex Ltd",
    "Balance Due: $120.00",
    "Sub Total: $100.00",
    "Work Force: 42",
    "Acct.: AC-778",
    "Adress: 1 Main Street",
    "Dept.: Finance",
    "Net Profit: $7.00",
    "Previous Balance: $55.00",
  ].join("\n\n");
  const { document } = await parseDocument({ text, mimeType: "text/markdown" });
  const schema = {
    type: "object",
    properties: {
      vendor_name: { type: "string" },
      customer_name: { type: "string" },
      total: { type: "number" },
      subtotal: { type: "number" },
      workforce: { type: "integer" },
      account: { type: "string" },
      address: { type: "string" },
      department: { type: "string" },
      revenue: { type: "number" },
      tax: { type: "number" },
    },
    required: [
      "vendor_name",
      "customer_name",
      "total",
      "subtotal",
      "headcount",
      "department",
      "revenue",
      "tax",
    ],
  };
  const { data } = extractStructured(partitionDocument(document, "none", null)[0], schema, {
    provideCitations: false,
  });
  assert.deepEqual(data, {
    vendor_name: "Wayne Works", // "Sold By": the seller
    customer_name: "Globex Ltd", // "Sold To": the buyer
    total: 120,
    subtotal: 100, // "Sub Total" is one word of the schema
    workforce: 42, // "Work Force" is one word of the schema
    account: "AC-778", // "Acct." abbreviates it
    address: "1 Main Street", // a typo one letter from the schema's word
    department: "Finance",
    revenue: null, // a profit is not the revenue
    tax: null, // nothing names the tax
  });
});

test("table headers are read against the item's words: an abbreviated header names its column", async () => {
  const text = "# Stock\n\n| Prod. Code | Qty |\n| --- | --- |\n| A-100 | 4 |\n| B-200 | 7 |\n";
  const { document } = await parseDocument({ text, mimeType: "text/markdown" });
  const schema = {
    type: "object",
    properties: {
      lines: {
        type: "array",
        items: {
          type: "object",
          properties: { product_code: { type: "string" }, quantity: { type: "integer" } },
          required: ["product_code", "quantity"],
        },
      },
    },
    required: ["lines"],
  };
  const { data } = extractStructured(partitionDocument(document, "none", null)[0], schema, {
    provideCitations: false,
  });
  assert.deepEqual(data, {
    lines: [
      { product_code: "A-100", quantity: 4 },
      { product_code: "B-200", quantity: 7 },
    ],
  });
});

test("a one-column table is its header's label over its value", async () => {
  const text =
    "# Invoice\n\n| Customer |\n| --- |\n| Globex Ltd |\n\n| Notes |\n| --- |\n| Leave at the door |\n";
  const { document } = await parseDocument({ text, mimeType: "text/markdown" });
  const schema = {
    type: "object",
    properties: { customer_name: { type: "string" }, due_date: { type: "string", format: "date" } },
    required: ["customer_name", "due_date"],
  };
  const { data } = extractStructured(partitionDocument(document, "none", null)[0], schema, {
    provideCitations: false,
  });
  assert.deepEqual(data, { customer_name: "Globex Ltd", due_date: null });
});
