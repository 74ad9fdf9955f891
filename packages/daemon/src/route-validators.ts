import type { ErrorObject } from "@svc/contract/request-errors";
import { createValidatorCompiler } from "@svc/contract/request-validation";

/**
 * The validator of one part (`params`, `body`, `querystring`) of a runtime route's request, by its key
 * `<METHOD> <path> <part>`. Here Ajv compiles it from the schema at its first use; in the bundle sandboxes run,
 * this module is replaced by the same validators compiled ahead (daemon-bundle.ts), so a sandbox neither loads
 * Ajv nor compiles on its first request (~30 ms of a first run).
 */
export type Validator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/** Without the meta-schema check: see ValidatorCompilerOptions (runtime.test.ts checks every runtime schema). */
const compile = createValidatorCompiler({ validateSchemas: false });

/** The key of a route part's validator, shared with the bundle's compiled table. */
export function validatorKey(method: string, path: string, part: string): string {
  return `${method} ${path} ${part}`;
}

export function routeValidator(_key: string, schema: unknown, httpPart: string): Validator {
  return compile({ schema, httpPart }) as Validator;
}
