/**
 * Schema and answer helpers shared by the provider clients.
 */

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The schema as sent to a model for constrained output: every object closed (`additionalProperties: false`, which
 * OpenAI's strict mode requires, and extraction requests already list every field in `required`) and every typed
 * value also allowed to be null, the one relaxation of extraction (a value the document does not hold is null, not
 * invented). The request's schema is not changed.
 */
export function schemaForModel(schema: JsonObject): JsonObject {
  const walk = (node: unknown, isRoot: boolean): unknown => {
    if (Array.isArray(node)) return node.map((child) => walk(child, false));
    if (!isObject(node)) return node;
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === "properties" && isObject(value)) {
        out.properties = Object.fromEntries(
          Object.entries(value).map(([name, child]) => [name, walk(child, false)]),
        );
      } else if (key === "$defs" || key === "definitions") {
        out[key] = isObject(value)
          ? Object.fromEntries(Object.entries(value).map(([name, child]) => [name, walk(child, false)]))
          : value;
      } else if (["items", "anyOf", "oneOf", "allOf", "prefixItems"].includes(key)) {
        out[key] = walk(value, false);
      } else {
        out[key] = value;
      }
    }
    const type = out.type;
    if (type === "object" || isObject(out.properties)) out.additionalProperties = false;
    if (!isRoot && typeof type === "string" && type !== "null") out.type = [type, "null"];
    if (!isRoot && Array.isArray(type) && !type.includes("null")) out.type = [...type, "null"];
    if (!isRoot && Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    return out;
  };
  return walk(schema, true) as JsonObject;
}

/**
 * The JSON value in a model's text answer: the whole text, or the first fenced ```json block, or the outermost
 * `{...}`. Undefined when there is none (the caller treats that as invalid output).
 */
export function jsonOfAnswer(text: string): unknown {
  const attempts = [text.trim()];
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text);
  if (fenced) attempts.push(fenced[1].trim());
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start >= 0 && end > start) attempts.push(text.slice(start, end + 1));
  for (const attempt of attempts) {
    try {
      return JSON.parse(attempt);
    } catch {
      // the next form
    }
  }
  return undefined;
}

/** A schema name the protocols accept: letters, digits, `_` and `-`, at most 64 characters. */
export function protocolSchemaName(name: string | undefined): string {
  const cleaned = (name ?? "").replace(/[^A-Za-z0-9_-]+/g, "_").slice(0, 64);
  return cleaned === "" ? "result" : cleaned;
}

/** Base64 of bytes. */
export function base64(data: Uint8Array): string {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("base64");
}

/** A non-negative integer of an answer's usage field, else 0. */
export function tokenCount(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.floor(value) : 0;
}
