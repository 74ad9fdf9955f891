import { Ajv } from "ajv";
import addFormatsModule from "ajv-formats";

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export interface ValidatorCompilerOptions {
  /**
   * Check each schema against the JSON Schema meta-schema before compiling it (default true). The first check
   * compiles the meta-schema itself, ~17 ms per Ajv instance: the daemon, whose first request pays for it,
   * turns it off (its schemas are the contract's, checked by the contract's tests).
   */
  validateSchemas?: boolean;
}

/**
 * A validator compiler in Fastify's `setValidatorCompiler` shape; its Ajv instances are made on first use.
 * Bodies are validated strictly: no type coercion, so `"cpus": "2"` is a 400. Path and query values are text
 * on the wire and are coerced to the schema's type. Defaults of the schema fill missing fields in both.
 */
export function createValidatorCompiler(options: ValidatorCompilerOptions = {}) {
  const validateSchema = options.validateSchemas ?? true;
  const ajvs = new Map<"body" | "text", Ajv>();
  const ajvFor = (part: "body" | "text"): Ajv => {
    let ajv = ajvs.get(part);
    if (!ajv) {
      const coerceTypes = part === "body" ? false : ("array" as const);
      ajv = addFormats(
        new Ajv({ strict: false, coerceTypes, useDefaults: true, allErrors: false, validateSchema }),
      );
      ajvs.set(part, ajv);
    }
    return ajv;
  };
  return ({ schema, httpPart }: { schema: unknown; httpPart?: string }) =>
    ajvFor(httpPart === "body" ? "body" : "text").compile(schema as object);
}

/** The validator compiler of every HTTP server of the project. */
export const validatorCompiler = createValidatorCompiler();
