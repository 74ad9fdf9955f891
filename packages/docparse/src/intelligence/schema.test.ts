import assert from "node:assert/strict";
import { test } from "node:test";
import { resolveSchema, schemaType, validateAgainstSchema } from "./schema.ts";

const schema = {
  type: "object",
  properties: {
    name: { type: "string" },
    count: { type: "integer" },
    kind: { type: "string", enum: ["a", "b"] },
    owner: { $ref: "#/$defs/person" },
    rows: {
      type: "array",
      items: { type: "object", properties: { v: { type: ["number", "null"] } }, required: ["v"] },
    },
    flag: { anyOf: [{ type: "boolean" }, { type: "null" }] },
  },
  required: ["name", "count", "kind", "owner", "rows", "flag"],
  additionalProperties: false,
  $defs: { person: { type: "object", properties: { email: { type: "string" } }, required: ["email"] } },
};

test("valid data, and null for any value, validate", () => {
  const data = { name: "x", count: 2, kind: "a", owner: { email: "e" }, rows: [{ v: 1.5 }], flag: true };
  assert.deepEqual(validateAgainstSchema(schema, data), []);
  const nulls = { name: null, count: null, kind: null, owner: null, rows: null, flag: null };
  assert.deepEqual(validateAgainstSchema(schema, nulls), []);
  assert.deepEqual(
    validateAgainstSchema(schema, { ...data, owner: { email: null }, rows: [{ v: null }] }),
    [],
  );
});

test("wrong types, enums, missing required and undeclared fields are reported by pointer", () => {
  const errors = validateAgainstSchema(schema, {
    name: 3,
    count: 1.5,
    kind: "c",
    owner: { email: 7 },
    rows: [{ v: "no" }, {}],
    flag: "yes",
    extra: 1,
  });
  assert.deepEqual(errors.sort(), [
    "/count: expected integer, got number",
    "/extra: is not a declared field",
    "/flag: expected boolean, got string",
    '/kind: "c" is not one of ["a","b"]',
    "/name: expected string, got number",
    "/owner/email: expected string, got number",
    "/rows/0/v: expected number or null, got string",
    "/rows/1/v: is required",
  ]);
  assert.deepEqual(validateAgainstSchema(schema, { name: "x" }).length, 5);
});

test("resolveSchema follows $ref and unwraps a nullable anyOf; schemaType infers", () => {
  assert.deepEqual(resolveSchema(schema, schema.properties.owner).type, "object");
  assert.equal(resolveSchema(schema, schema.properties.flag).type, "boolean");
  assert.equal(schemaType({ type: ["null", "integer"] }), "integer");
  assert.equal(schemaType({ enum: [1, 2] }), "number");
  assert.equal(schemaType({ properties: {} }), "object");
  assert.equal(schemaType({}), null);
});
