import { Ajv } from "ajv";
import standaloneCodeModule from "ajv/dist/standalone/index.js";
import addFormatsModule from "ajv-formats";

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const standaloneCode = standaloneCodeModule as unknown as (ajv: Ajv, refs: Record<string, string>) => string;

export interface ValidatorCompilerOptions {
  /**
   * Check each schema against the JSON Schema meta-schema before compiling it (default true). The first check
   * compiles the meta-schema itself, ~17 ms per Ajv instance: the daemon, whose first request pays for it,
   * turns it off (its schemas are the contract's, checked by the contract's tests).
   */
  validateSchemas?: boolean;
}

/** Ajv's options for a JSON body (strict types) or for path and query values (text, coerced). */
function ajvOptions(part: "body" | "text") {
  const coerceTypes = part === "body" ? false : ("array" as const);
  return { strict: false, coerceTypes, useDefaults: true, allErrors: false };
}

/**
 * ESM source of validators compiled ahead of time (Ajv's standalone code), with the options
 * `createValidatorCompiler` uses for `part`: `export const <name> = <validator>` per schema, names being
 * identifiers. For a bundle that should neither load Ajv nor compile at run time (the daemon's:
 * daemon-bundle.ts); the source `require`s Ajv's small runtime helpers (ajv/dist/runtime/...).
 */
export function standaloneValidators(schemas: Record<string, unknown>, part: "body" | "text"): string {
  const ajv = addFormats(
    new Ajv({ ...ajvOptions(part), validateSchema: false, code: { source: true, esm: true } }),
  );
  const refs: Record<string, string> = {};
  for (const [name, schema] of Object.entries(schemas)) {
    ajv.addSchema(schema as object, name);
    refs[name] = name;
  }
  return standaloneCode(ajv, refs);
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
      ajv = addFormats(new Ajv({ ...ajvOptions(part), validateSchema }));
      ajvs.set(part, ajv);
    }
    return ajv;
  };
  return ({ schema, httpPart }: { schema: unknown; httpPart?: string }) =>
    ajvFor(httpPart === "body" ? "body" : "text").compile(schema as object);
}

/** The validator compiler of every HTTP server of the project. */
export const validatorCompiler = createValidatorCompiler();
