import { Ajv } from "ajv";
import addFormatsModule from "ajv-formats";

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

/** The validator compiler of every HTTP server of the project (Fastify's `setValidatorCompiler` shape). */
export function validatorCompiler({ schema, httpPart }: { schema: unknown; httpPart?: string }) {
  return (httpPart === "body" ? bodyAjv : textAjv).compile(schema as object);
}
