import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { controlRoutes, fillPath, type RouteDef } from "@svc/contract";
import { startTestServer, type TestServer } from "../testing.ts";

/**
 * The bad-input battery: for every control route, a minimal valid request is built from the contract's schemas,
 * then one fault at a time is put in it (malformed JSON, a wrong type, a missing required field, an unknown
 * field, an unknown enum value, a number out of range, a string too long). Each must be a 400 with a catalog
 * code and a message naming the field; the valid request itself must not be a 400; nothing may be a 5xx
 * other than the 501 of routes not served yet.
 */

type Schema = Record<string, unknown> & {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  anyOf?: Schema[];
  enum?: unknown[];
  items?: Schema;
  patternProperties?: Record<string, Schema>;
};

const plain = (s: unknown): Schema => JSON.parse(JSON.stringify(s ?? {}));

const stringCandidates = [
  "abc",
  "/data",
  "1-2",
  "example.com",
  "a",
  "2026-01-01T00:00:00Z",
  "https://example.com/x",
];

function sample(schema: Schema): unknown {
  if ("default" in schema) return schema.default;
  if ("const" in schema) return schema.const;
  if (schema.enum) return schema.enum[0];
  if (schema.anyOf) return sample(schema.anyOf.find((s) => s.type !== "null") ?? schema.anyOf[0]);
  switch (schema.type) {
    case "string": {
      const pattern = typeof schema.pattern === "string" ? new RegExp(schema.pattern) : null;
      const min = Number(schema.minLength ?? 0);
      const found = stringCandidates.find((c) => c.length >= min && (!pattern || pattern.test(c)));
      return found ?? "a".repeat(Math.max(min, 1));
    }
    case "integer":
    case "number":
      return Number(
        schema.minimum ?? (schema.exclusiveMinimum !== undefined ? Number(schema.exclusiveMinimum) + 1 : 1),
      );
    case "boolean":
      return true;
    case "array":
      return Array.from({ length: Number(schema.minItems ?? 0) }, () => sample(schema.items ?? {}));
    case "object": {
      const out: Record<string, unknown> = {};
      for (const name of schema.required ?? []) out[name] = sample(schema.properties?.[name] ?? {});
      return out;
    }
    default:
      return "x";
  }
}

/** A value of the wrong type for a schema. */
function wrongType(schema: Schema): unknown {
  const types = schema.anyOf ? schema.anyOf.map((s) => s.type) : [schema.type];
  if (schema.enum) return "definitely-not-a-member";
  if (!types.includes("object")) return { nested: true };
  return 12345;
}

/** Faults of one value: [description, value]. */
function faults(schema: Schema): [string, unknown][] {
  const out: [string, unknown][] = [["wrong type", wrongType(schema)]];
  const base = schema.anyOf?.find((s) => s.type !== "null") ?? schema;
  if (base.enum) out.push(["unknown enum value", "no-such-value"]);
  if (typeof base.minimum === "number") out.push(["below minimum", base.minimum - 1]);
  if (typeof base.exclusiveMinimum === "number") out.push(["at exclusive minimum", base.exclusiveMinimum]);
  if (typeof base.maximum === "number") out.push(["above maximum", base.maximum + 1]);
  if (typeof base.maxLength === "number") out.push(["too long", "a".repeat(base.maxLength + 1)]);
  if (typeof base.maxItems === "number" && base.items) {
    out.push(["too many items", Array.from({ length: base.maxItems + 1 }, () => sample(base.items ?? {}))]);
  }
  if (base.type === "integer") out.push(["fraction", 1.5]);
  return out;
}

/**
 * Valid bodies the schemas cannot build: a parse, read, extract or classify needs exactly one file source (a rule
 * checked after the schema), extract a schema and classify a page class; an upload is a multipart form with a file.
 */
const validBodies: Record<string, unknown> = {
  parseDocument: { raw_text: "abc" },
  readDocument: { raw_text: "abc" },
  extractDocument: {
    raw_text: "Total: 5.00",
    structured_extraction_options: [
      {
        schema_name: "s",
        json_schema: { type: "object", properties: { total: { type: "number" } }, required: ["total"] },
      },
    ],
  },
  classifyDocument: { raw_text: "abc", page_classifications: [{ name: "a", description: "b" }] },
};

/** A tar of one file, as a raw-body route takes it. */
function tarOf(name: string, content: string): Buffer {
  const dir = mkdtempSync(join(tmpdir(), "bad-input-"));
  try {
    writeFileSync(join(dir, name), content);
    return execFileSync("tar", ["-cf", "-", "-C", dir, name]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Valid raw bodies: a build's context must hold its Dockerfile. */
const validRawBodies: Record<string, () => Buffer> = {
  createTemplateBuild: () => tarOf("Dockerfile", "FROM default\n"),
};

/**
 * Bodies that take fields they do not name: the official SDK's build completion passes on metadata whose fields
 * its version decides. Every other body refuses an unknown field.
 */
const OPEN_BODIES = new Set(["completePlatformTemplateBuild"]);

interface Attempt {
  what: string;
  /** Send these bytes as the raw body. */
  raw?: Buffer;
  /** Send a multipart form with one small file. */
  form?: boolean;
  field?: string;
  params?: Record<string, string>;
  query?: Record<string, unknown>;
  body?: unknown;
  rawBody?: string;
}

function attempts(name: string, route: RouteDef): { valid: Attempt; bad: Attempt[] } {
  const paramsSchema = plain(route.params);
  const querySchema = plain(route.query);
  const bodySchema = route.body && (route.bodyKind ?? "json") === "json" ? plain(route.body) : undefined;
  const params = sample(paramsSchema) as Record<string, string>;
  for (const name of Object.keys(paramsSchema.properties ?? {})) params[name] ??= "abc";
  const query = sample(querySchema) as Record<string, unknown>;
  const body = validBodies[name] ?? (bodySchema ? sample(bodySchema) : undefined);
  const valid: Attempt = {
    what: "valid",
    params,
    query,
    body,
    form: route.bodyKind === "multipart",
    raw: validRawBodies[name]?.(),
  };
  const bad: Attempt[] = [];
  if (bodySchema) {
    bad.push({ what: "malformed JSON", params, query, rawBody: '{"a": ' });
    bad.push({ what: "body is an array", params, query, body: [] });
    if (!OPEN_BODIES.has(name)) {
      bad.push({
        what: "unknown field",
        field: "body.no_such_field",
        params,
        query,
        body: { ...(body as object), no_such_field: 1 },
      });
    }
    for (const name of bodySchema.required ?? []) {
      const { [name]: _, ...rest } = body as Record<string, unknown>;
      bad.push({ what: `missing ${name}`, field: `body.${name}`, params, query, body: rest });
    }
    for (const [name, prop] of Object.entries(bodySchema.properties ?? {})) {
      for (const [what, value] of faults(prop)) {
        bad.push({
          what: `${name}: ${what}`,
          field: `body.${name}`,
          params,
          query,
          body: { ...(body as object), [name]: value },
        });
      }
    }
  }
  for (const [name, prop] of Object.entries(querySchema.properties ?? {})) {
    for (const [what, value] of faults(prop)) {
      if (typeof value === "object") continue; // a query value is text: objects cannot be sent
      if (prop.type === "string" && what === "wrong type") continue; // any text is a string
      bad.push({
        what: `query ${name}: ${what}`,
        field: `query.${name}`,
        params,
        query: { ...query, [name]: value },
      });
    }
  }
  if (querySchema.additionalProperties === false) {
    bad.push({
      what: "unknown query parameter",
      field: "query.no_such_param",
      params,
      query: { ...query, no_such_param: "1" },
    });
  }
  for (const [name, prop] of Object.entries(paramsSchema.properties ?? {})) {
    if (typeof prop.maxLength === "number") {
      bad.push({
        what: `path ${name} too long`,
        field: `path.${name}`,
        params: { ...params, [name]: "a".repeat(prop.maxLength + 1) },
        query,
      });
    }
  }
  return { valid, bad };
}

describe("bad-input battery over every control route", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  async function send(
    route: RouteDef,
    attempt: Attempt,
  ): Promise<{ status: number; body: Record<string, string>; text: string; type: string }> {
    let url = server.url + fillPath(route.path, attempt.params ?? {});
    const query = Object.entries(attempt.query ?? {}).map(([k, v]): [string, string] => [k, String(v)]);
    if (query.length > 0) url += `?${new URLSearchParams(query)}`;
    const token = route.auth === "admin" ? server.adminToken : server.apiKey;
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    let body: string | FormData | Buffer | undefined;
    if (attempt.raw) {
      headers["content-type"] = "application/x-tar";
      body = attempt.raw;
    } else if (attempt.form) {
      body = new FormData();
      body.set("file", new Blob(["abc"]), "abc.txt");
    } else if (attempt.rawBody !== undefined || attempt.body !== undefined) {
      headers["content-type"] = "application/json";
      body = attempt.rawBody ?? JSON.stringify(attempt.body);
    }
    const response = await fetch(url, { method: route.method, headers, body });
    const text = await response.text();
    let parsed: Record<string, string> = {};
    try {
      parsed = JSON.parse(text);
    } catch {
      // non-JSON success bodies are fine; errors are checked below
    }
    return { status: response.status, body: parsed, text, type: response.headers.get("content-type") ?? "" };
  }

  for (const [name, route] of Object.entries(controlRoutes) as [string, RouteDef][]) {
    test(`${name}: ${route.method} ${route.path}`, async () => {
      const { valid, bad } = attempts(name, route);
      const ok = await send(route, valid);
      assert.notEqual(ok.status, 400, `the valid request was refused: ${JSON.stringify(ok.body)}`);
      assert.ok(
        ok.status < 500 || ok.status === 501,
        `valid request: ${ok.status} ${JSON.stringify(ok.body)}`,
      );
      for (const attempt of bad) {
        const result = await send(route, attempt);
        const label = `${attempt.what} → ${result.status} ${JSON.stringify(result.body)}`;
        assert.equal(result.status, 400, label);
        // Routes whose errors the spec makes text/plain answer the message alone.
        const message = route.textErrors ? result.text : result.body.error;
        if (route.textErrors) assert.match(result.type, /^text\/plain/, label);
        else assert.match(result.body.code ?? "", /^INVALID_/, label);
        assert.equal(typeof message, "string", label);
        if (attempt.field)
          assert.ok(message.includes(attempt.field), `${label}: should name ${attempt.field}`);
      }
    });
  }
});
