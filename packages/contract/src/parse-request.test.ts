import assert from "node:assert/strict";
import { test } from "node:test";
import {
  type CheckFailure,
  checkDatasetName,
  checkExtractionSchema,
  checkFileSource,
  checkPageClassifications,
  checkParseRequest,
  checkStructuredExtraction,
  MAX_PAGE_NUMBER,
  parsePageRange,
} from "./parse-request.ts";

function failure(result: unknown): CheckFailure {
  assert.ok(result && !Array.isArray(result), `expected a failure, got ${JSON.stringify(result)}`);
  return result as CheckFailure;
}

/** An object schema nested `levels` deep, the root being level 1. */
function nested(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = {
    type: "object",
    properties: { leaf: { type: "string" } },
    required: ["leaf"],
  };
  for (let level = levels - 1; level >= 1; level--) {
    schema = {
      type: "object",
      properties: { [`level${level + 1}`]: schema },
      required: [`level${level + 1}`],
    };
  }
  return schema;
}

test("parsePageRange expands pages and ranges, sorted and unique", () => {
  assert.deepEqual(parsePageRange("1-5,8,10"), [1, 2, 3, 4, 5, 8, 10]);
  assert.deepEqual(parsePageRange("10, 3-4 ,3,1"), [1, 3, 4, 10]);
  assert.deepEqual(parsePageRange("7"), [7]);
  assert.deepEqual(parsePageRange("2-2"), [2]);
  assert.deepEqual(parsePageRange("1-3", 3), [1, 2, 3]);
});

test("parsePageRange rejects bad syntax, zero, reversed ranges and pages out of bounds", () => {
  for (const bad of [
    "",
    " ",
    "0",
    "0-3",
    "5-1",
    "1,,2",
    "1,",
    "a",
    "1-",
    "-3",
    "1-2-3",
    "1.5",
    "-1",
    "1;2",
  ]) {
    const result = failure(parsePageRange(bad));
    assert.equal(result.code, "INVALID_PAGE_RANGE", bad);
    assert.match(result.message, /page_range/);
  }
  assert.equal(failure(parsePageRange(`1-${MAX_PAGE_NUMBER + 1}`)).code, "INVALID_PAGE_RANGE");
  assert.equal(failure(parsePageRange("99999999999")).code, "INVALID_PAGE_RANGE");
  const beyond = failure(parsePageRange("2-4", 3));
  assert.match(beyond.message, /4.*3 pages/);
});

test("checkFileSource wants exactly one source and file_name only with file_id", () => {
  assert.equal(checkFileSource({ file_id: "file_abc" }), null);
  assert.equal(checkFileSource({ file_id: "file_abc", file_name: "a.pdf" }), null);
  assert.equal(checkFileSource({ file_url: "https://example.com/a.pdf", file_id: null }), null);
  assert.equal(checkFileSource({ raw_text: "hello" }), null);

  const none = failure(checkFileSource({}));
  assert.equal(none.code, "INVALID_CONFIGURATION");
  assert.match(none.message, /file_id.*file_url.*raw_text/);
  const two = failure(checkFileSource({ file_id: "file_abc", raw_text: "x" }));
  assert.match(two.message, /file_id and raw_text/);
  assert.match(
    failure(checkFileSource({ file_url: "https://e.com/a", file_name: "a" })).message,
    /file_name/,
  );
  assert.equal(failure(checkFileSource({ file_url: "ftp://e.com/a" })).code, "INVALID_FILE");
  assert.equal(failure(checkFileSource({ file_url: "https://" })).code, "INVALID_FILE");
  assert.match(failure(checkFileSource({ raw_text: "  " })).message, /raw_text/);
});

test("checkExtractionSchema accepts 5 levels of objects and rejects 6", () => {
  assert.equal(checkExtractionSchema(nested(5)), null);
  const tooDeep = failure(checkExtractionSchema(nested(6)));
  assert.equal(tooDeep.code, "INVALID_JSON_SCHEMA");
  assert.match(tooDeep.message, /5 levels/);
  assert.match(tooDeep.message, /json_schema\.properties\.level2/);
});

test("checkExtractionSchema counts objects inside arrays and through $ref", () => {
  const arrayOfObjects = {
    type: "object",
    properties: { rows: { type: "array", items: nested(4) } },
    required: ["rows"],
  };
  assert.equal(checkExtractionSchema(arrayOfObjects), null);
  assert.ok(
    checkExtractionSchema({ ...arrayOfObjects, properties: { rows: { type: "array", items: nested(5) } } }),
  );

  const viaRef = {
    type: "object",
    properties: { address: { $ref: "#/$defs/Address" } },
    required: ["address"],
    $defs: { Address: { type: "object", properties: { city: { type: "string" } }, required: [] } },
  };
  assert.match(failure(checkExtractionSchema(viaRef)).message, /city.*required/);
  viaRef.$defs.Address.required = ["city"] as never;
  assert.equal(checkExtractionSchema(viaRef), null);

  const recursive = {
    type: "object",
    properties: { node: { $ref: "#/$defs/Node" } },
    required: ["node"],
    $defs: { Node: { type: "object", properties: { next: { $ref: "#/$defs/Node" } }, required: ["next"] } },
  };
  assert.equal(failure(checkExtractionSchema(recursive)).code, "INVALID_JSON_SCHEMA");
  assert.match(
    failure(
      checkExtractionSchema({ ...viaRef, properties: { a: { $ref: "#/$defs/Nope" } }, required: ["a"] }),
    ).message,
    /does not resolve/,
  );
});

test("checkExtractionSchema wants every field required", () => {
  const schema = {
    type: "object",
    properties: { name: { type: "string" }, age: { type: "integer" } },
    required: ["name"],
  };
  const result = failure(checkExtractionSchema(schema));
  assert.equal(result.code, "INVALID_JSON_SCHEMA");
  assert.match(result.message, /json_schema\.properties\.age/);

  const noRequired = { type: "object", properties: { name: { type: "string" } } };
  assert.ok(checkExtractionSchema(noRequired));

  const nestedMissing = {
    type: "object",
    properties: { who: { type: "object", properties: { first: { type: "string" } }, required: [] } },
    required: ["who"],
  };
  assert.match(failure(checkExtractionSchema(nestedMissing)).message, /properties\.who\.properties\.first/);
});

test("checkExtractionSchema wants an object root whose fields are schema objects", () => {
  for (const bad of [null, [], "string", { type: "string" }, { type: "array", items: { type: "object" } }]) {
    assert.equal(failure(checkExtractionSchema(bad)).code, "INVALID_JSON_SCHEMA");
  }
  assert.ok(checkExtractionSchema({ type: "object", properties: {} }));
  for (const field of [true, "string", 1, ["string"], null]) {
    const result = failure(
      checkExtractionSchema({ type: "object", properties: { f: field }, required: ["f"] }),
    );
    assert.match(result.message, /json_schema\.properties\.f must be a schema object/);
  }
  assert.match(
    failure(
      checkExtractionSchema(
        { type: "object", properties: {} },
        "structured_extraction_options[2].json_schema",
      ),
    ).message,
    /^structured_extraction_options\[2\]\.json_schema/,
  );
});

test("checkExtractionSchema stops on schemas nested without objects", () => {
  let deep: Record<string, unknown> = { type: "string" };
  for (let i = 0; i < 10_000; i++) deep = { type: "array", items: deep };
  const schema = { type: "object", properties: { a: deep }, required: ["a"] };
  assert.equal(failure(checkExtractionSchema(schema)).code, "INVALID_JSON_SCHEMA");
});

test("checkPageClassifications wants unique, non-empty names", () => {
  assert.equal(checkPageClassifications(undefined), null);
  assert.equal(
    checkPageClassifications([
      { name: "invoice", description: "An invoice" },
      { name: "receipt", description: "A receipt" },
    ]),
    null,
  );
  const duplicate = failure(
    checkPageClassifications([
      { name: "invoice", description: "a" },
      { name: " invoice ", description: "b" },
    ]),
  );
  assert.equal(duplicate.code, "INVALID_PAGE_CLASSIFICATION");
  assert.match(duplicate.message, /page_classifications\[1\]\.name/);
  assert.match(failure(checkPageClassifications([{ name: " ", description: "a" }])).message, /\[0\]\.name/);
  assert.match(failure(checkPageClassifications([{ name: "a", description: "" }])).message, /description/);
});

test("checkStructuredExtraction names the item and checks page classes", () => {
  const schema = { type: "object", properties: { total: { type: "number" } }, required: ["total"] };
  const classes = [{ name: "invoice", description: "An invoice" }];
  assert.equal(
    checkStructuredExtraction(
      [{ schema_name: "a", json_schema: schema, page_classes: ["invoice"] }],
      classes,
    ),
    null,
  );
  const unknownClass = failure(
    checkStructuredExtraction(
      [{ schema_name: "a", json_schema: schema, page_classes: ["receipt"] }],
      classes,
    ),
  );
  assert.equal(unknownClass.code, "INVALID_PAGE_CLASSIFICATION");
  const badSchema = failure(
    checkStructuredExtraction(
      [
        { schema_name: "a", json_schema: schema },
        { schema_name: "b", json_schema: { type: "string" } },
      ],
      null,
    ),
  );
  assert.match(badSchema.message, /^structured_extraction_options\[1\]\.json_schema/);
  const duplicate = failure(
    checkStructuredExtraction(
      [
        { schema_name: "a", json_schema: schema },
        { schema_name: "a", json_schema: schema },
      ],
      null,
    ),
  );
  assert.equal(duplicate.code, "INVALID_CONFIGURATION");
});

test("checkParseRequest runs the source, page range and settings checks", () => {
  assert.equal(checkParseRequest({ file_id: "file_a", page_range: "1-2" }), null);
  assert.equal(
    failure(checkParseRequest({ file_id: "file_a", page_range: "2-1" })).code,
    "INVALID_PAGE_RANGE",
  );
  assert.equal(failure(checkParseRequest({ page_range: "1" })).code, "INVALID_CONFIGURATION");
  assert.equal(
    failure(
      checkParseRequest({
        raw_text: "x",
        page_classifications: [
          { name: "a", description: "a" },
          { name: "a", description: "a" },
        ],
      }),
    ).code,
    "INVALID_PAGE_CLASSIFICATION",
  );
});

test("checkDatasetName allows letters, digits, '-' and '_' only", () => {
  for (const good of ["invoices", "Invoices_2024", "a-b_c", "0"])
    assert.equal(checkDatasetName(good), null, good);
  for (const bad of ["", "invoices dataset", "a/b", "naïve", "a.b", "x".repeat(101)]) {
    const result = failure(checkDatasetName(bad));
    assert.equal(result.code, "INVALID_DATASET_NAME", bad);
    assert.match(result.message, /name/);
  }
});
