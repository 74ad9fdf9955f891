/**
 * The JSON schemas of structured extraction as the offline extractor reads them: local `$ref`s resolved,
 * `anyOf`/`oneOf` with `null` unwrapped, and a validator of extracted data. The request's schema has already been
 * checked (object root, every field required, bounded depth: contract's checkExtractionSchema).
 *
 * The one relaxation: `null` is accepted for any value, whatever its schema says. The extractor writes null for a
 * field it did not find rather than invent a value, so a required field may be null.
 */

/** A JSON Schema object (draft 2020-12 keywords the extractor uses; others are kept and ignored). */
export type JsonSchema = { [keyword: string]: unknown };

export type SchemaType = "object" | "array" | "string" | "number" | "integer" | "boolean" | "null";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The node a local `$ref` ("#/$defs/item") points at, or undefined. */
function resolveRef(root: JsonSchema, ref: string): unknown {
  if (!ref.startsWith("#")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split("/").filter(Boolean)) {
    const key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    if (!isObject(node)) return undefined;
    node = node[key];
  }
  return node;
}

/**
 * A schema node with its `$ref` followed (a bounded number of times) and a nullable union (`anyOf: [X, {type:
 * null}]`) unwrapped to X; anything unreadable becomes `{}` (any value).
 */
export function resolveSchema(root: JsonSchema, node: unknown): JsonSchema {
  let current = node;
  for (let hops = 0; hops < 16; hops++) {
    if (!isObject(current)) return {};
    if (typeof current.$ref === "string") {
      const { $ref, ...rest } = current;
      const target = resolveRef(root, $ref as string);
      current = isObject(target) ? { ...target, ...rest } : rest;
      continue;
    }
    for (const key of ["anyOf", "oneOf"] as const) {
      const options = current[key];
      if (Array.isArray(options)) {
        const nonNull = options.filter((option) => !(isObject(option) && option.type === "null"));
        if (nonNull.length === 1) {
          const { [key]: _, ...rest } = current;
          current = { ...(isObject(nonNull[0]) ? nonNull[0] : {}), ...rest };
          break;
        }
      }
    }
    if (isObject(current) && typeof current.$ref === "string") continue;
    return current as JsonSchema;
  }
  return {};
}

/** The one non-null type a schema names ("type": ["string", "null"] is "string"), inferred when left out. */
export function schemaType(schema: JsonSchema): SchemaType | null {
  const declared = schema.type;
  const types = (Array.isArray(declared) ? declared : [declared]).filter(
    (type): type is SchemaType => typeof type === "string" && type !== "null",
  );
  if (types.length > 0) return types.includes("number") ? "number" : types[0];
  if (isObject(schema.properties)) return "object";
  if (schema.items !== undefined) return "array";
  if (Array.isArray(schema.enum)) {
    const first = schema.enum.find((value) => value !== null);
    if (typeof first === "number") return "number";
    if (typeof first === "boolean") return "boolean";
    return "string";
  }
  return null;
}

/** The properties of an object schema, in declaration order. */
export function schemaProperties(schema: JsonSchema): [string, unknown][] {
  return isObject(schema.properties) ? Object.entries(schema.properties) : [];
}

function typeMatches(type: string, value: unknown): boolean {
  switch (type) {
    case "object":
      return isObject(value);
    case "array":
      return Array.isArray(value);
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "null":
      return value === null;
    default:
      return true;
  }
}

/**
 * Whether data fits a schema: types, required fields, enums, `const`, nested objects and arrays, extra fields
 * when `additionalProperties` is false. Returns one message per problem (JSON pointer and what is wrong); empty
 * when valid. `null` is valid anywhere (see the module comment).
 */
export function validateAgainstSchema(schema: JsonSchema, data: unknown): string[] {
  const errors: string[] = [];
  checkNode(schema, schema, data, "", 0, errors);
  return errors;
}

function checkNode(
  root: JsonSchema,
  node: unknown,
  value: unknown,
  pointer: string,
  depth: number,
  errors: string[],
) {
  if (value === null || depth > 64 || errors.length >= 100) return;
  const at = pointer === "" ? "/" : pointer;
  const resolved = resolveSchema(root, node);
  const declared = resolved.type;
  const types = (Array.isArray(declared) ? declared : declared === undefined ? [] : [declared]).filter(
    (type): type is string => typeof type === "string",
  );
  if (types.length > 0 && !types.some((type) => typeMatches(type, value))) {
    errors.push(
      `${at}: expected ${types.join(" or ")}, got ${Array.isArray(value) ? "array" : typeof value}`,
    );
    return;
  }
  if (Array.isArray(resolved.enum) && !resolved.enum.some((option) => option === value)) {
    errors.push(`${at}: ${JSON.stringify(value)} is not one of ${JSON.stringify(resolved.enum)}`);
  }
  if ("const" in resolved && resolved.const !== value) {
    errors.push(`${at}: expected ${JSON.stringify(resolved.const)}`);
  }
  for (const key of ["anyOf", "oneOf"] as const) {
    const options = resolved[key];
    if (Array.isArray(options) && options.length > 0) {
      const fits = options.some((option) => {
        const optionErrors: string[] = [];
        checkNode(root, option, value, pointer, depth + 1, optionErrors);
        return optionErrors.length === 0;
      });
      if (!fits) errors.push(`${at}: matches none of ${key}`);
    }
  }
  if (isObject(value)) {
    const properties = isObject(resolved.properties) ? resolved.properties : {};
    const required = Array.isArray(resolved.required) ? resolved.required : [];
    for (const name of required) {
      if (typeof name === "string" && !(name in value))
        errors.push(`${pointer}/${escapePointer(name)}: is required`);
    }
    for (const [name, child] of Object.entries(value)) {
      const childPointer = `${pointer}/${escapePointer(name)}`;
      if (Object.hasOwn(properties, name))
        checkNode(root, properties[name], child, childPointer, depth + 1, errors);
      else if (resolved.additionalProperties === false)
        errors.push(`${childPointer}: is not a declared field`);
      else if (isObject(resolved.additionalProperties)) {
        checkNode(root, resolved.additionalProperties, child, childPointer, depth + 1, errors);
      }
    }
  }
  if (Array.isArray(value) && resolved.items !== undefined) {
    value.forEach((element, index) => {
      checkNode(root, resolved.items, element, `${pointer}/${index}`, depth + 1, errors);
    });
  }
}

/** A JSON pointer token for a field name. */
export function escapePointer(name: string): string {
  return name.replaceAll("~", "~0").replaceAll("/", "~1");
}
