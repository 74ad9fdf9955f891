import { Ajv, type ErrorObject } from "ajv";
import addFormatsModule from "ajv-formats";
import type { FastifySchemaCompiler } from "fastify";

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/**
 * Bodies are validated strictly: no type coercion, so `"cpus": "2"` is a 400. Path and query values are text
 * on the wire and are coerced to the schema's type. Defaults of the schema fill missing fields in both.
 */
const bodyAjv = addFormats(
  new Ajv({ strict: false, coerceTypes: false, useDefaults: true, allErrors: false }),
);
const textAjv = addFormats(
  new Ajv({ strict: false, coerceTypes: "array", useDefaults: true, allErrors: false }),
);

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  (httpPart === "body" ? bodyAjv : textAjv).compile(schema as object);

const partName: Record<string, string> = {
  body: "body",
  querystring: "query",
  params: "path",
  headers: "header",
};

function fieldOf(part: string, error: ErrorObject): string {
  const segments = error.instancePath
    .split("/")
    .slice(1)
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  const extra =
    error.keyword === "required"
      ? (error.params as { missingProperty: string }).missingProperty
      : error.keyword === "additionalProperties"
        ? (error.params as { additionalProperty: string }).additionalProperty
        : undefined;
  if (extra !== undefined) segments.push(extra);
  let out = partName[part] ?? part;
  for (const s of segments) out += /^\d+$/.test(s) ? `[${s}]` : `.${s}`;
  return out;
}

function describe(error: ErrorObject, siblings: ErrorObject[]): string {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required":
      return "is required";
    case "additionalProperties":
      return "is not a known field";
    case "enum":
      return `must be one of: ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    case "const":
      return `must be ${JSON.stringify(p.allowedValue)}`;
    case "type":
      return `must be ${String(p.type).replace(",", " or ")}`;
    case "anyOf": {
      // A nullable or union field: name what each branch wanted at this same place.
      const wanted = siblings
        .filter((e) => e.instancePath === error.instancePath && e !== error)
        .map((e) => (e.keyword === "type" ? String((e.params as { type: string }).type) : e.message))
        .filter((v, i, all) => v && all.indexOf(v) === i);
      return wanted.length > 0 ? `must be ${wanted.join(" or ")}` : "does not match any allowed form";
    }
    default:
      return error.message ?? "is not valid";
  }
}

/** One sentence naming the field and what is wrong with it, from Ajv's errors. */
export function validationMessage(part: string, errors: ErrorObject[]): string {
  // Prefer the union error of the outermost failing union; otherwise the first error.
  const union = errors.find((e) => e.keyword === "anyOf" || e.keyword === "oneOf");
  const branchErrors = union ? errors.filter((e) => e.instancePath.startsWith(union.instancePath)) : [];
  const deeper = branchErrors.find((e) => e.instancePath.length > (union?.instancePath.length ?? 0));
  const chosen = union ? (deeper ?? union) : errors[0];
  if (!chosen) return `${partName[part] ?? part} is not valid`;
  return `${fieldOf(part, chosen)} ${describe(chosen, errors)}`;
}
