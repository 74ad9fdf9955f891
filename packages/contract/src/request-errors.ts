import type { ErrorCode } from "./errors.ts";

/**
 * How a request that never reached its handler failed, in catalog terms: schema validation, body parsing,
 * limits. Shared by every HTTP server of the project (control server, daemon) so the same bad input gets the
 * same answer everywhere. The shapes are structural: Ajv's error objects and Fastify's request errors.
 */

/** An Ajv error object, structurally. */
export interface ErrorObject {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

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

/** Fastify's own request errors, by their code. */
const frameworkCodes: Record<string, ErrorCode> = {
  FST_ERR_CTP_EMPTY_JSON_BODY: "INVALID_JSON",
  FST_ERR_CTP_INVALID_JSON_BODY: "INVALID_JSON",
  FST_ERR_CTP_BODY_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "UNSUPPORTED_MEDIA_TYPE",
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: "INVALID_REQUEST",
  FST_ERR_CTP_INVALID_TYPE: "UNSUPPORTED_MEDIA_TYPE",
  FST_ERR_BAD_URL: "INVALID_REQUEST",
  FST_ERR_ASYNC_CONSTRAINT: "INVALID_REQUEST",
};

export interface RequestErrorLike {
  code?: string;
  statusCode?: number;
  message: string;
  validation?: ErrorObject[];
  validationContext?: string;
}

/** The catalog code and message of a request error, or null when it is not the client's fault (a 500). */
export function classifyRequestError(error: RequestErrorLike): { code: ErrorCode; message: string } | null {
  if (error.validation) {
    const part = error.validationContext ?? "body";
    const code: ErrorCode = part === "querystring" ? "INVALID_QUERY_PARAMS" : "INVALID_REQUEST";
    return { code, message: validationMessage(part, error.validation) };
  }
  const mapped = error.code ? frameworkCodes[error.code] : undefined;
  if (mapped) return { code: mapped, message: error.message };
  if (error instanceof SyntaxError || (error.statusCode === 400 && /JSON/i.test(error.message))) {
    return { code: "INVALID_JSON", message: `body is not valid JSON: ${error.message}` };
  }
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return { code: "INVALID_REQUEST", message: error.message };
  }
  return null;
}
