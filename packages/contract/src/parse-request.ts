import type { ErrorCode } from "./errors.ts";

/**
 * Checks of parse, read and dataset requests that a JSON schema cannot express with a clear message. Servers run
 * them after schema validation; each returns null when the input is fine, else a catalog code and a message that
 * names the offending field.
 */

export interface CheckFailure {
  code: ErrorCode;
  message: string;
}

function fail(code: ErrorCode, message: string): CheckFailure {
  return { code, message };
}

/** Shortens user-supplied text quoted in a message. */
function quote(text: string, max = 60): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
}

// ---------------------------------------------------------------------------------------------------------------
// File source

export interface FileSourceFields {
  file_id?: string | null;
  file_url?: string | null;
  raw_text?: string | null;
  file_name?: string | null;
}

const SOURCES = ["file_id", "file_url", "raw_text"] as const;

/** Exactly one of file_id, file_url, raw_text; file_name only with file_id; file_url an absolute http(s) URL. */
export function checkFileSource(req: FileSourceFields): CheckFailure | null {
  const given = SOURCES.filter((field) => req[field] !== undefined && req[field] !== null);
  if (given.length === 0) {
    return fail("INVALID_CONFIGURATION", "One of file_id, file_url or raw_text is required");
  }
  if (given.length > 1) {
    return fail(
      "INVALID_CONFIGURATION",
      `Only one of file_id, file_url or raw_text may be given; got ${given.join(" and ")}`,
    );
  }
  if (req.file_name !== undefined && req.file_name !== null && given[0] !== "file_id") {
    return fail("INVALID_CONFIGURATION", "file_name is only allowed together with file_id");
  }
  if (given[0] === "file_url") {
    let url: URL | null = null;
    try {
      url = new URL(req.file_url as string);
    } catch {
      url = null;
    }
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || url.hostname === "") {
      return fail("INVALID_FILE", "file_url must be an absolute http or https URL");
    }
  }
  if (given[0] === "raw_text" && (req.raw_text as string).trim() === "") {
    return fail("INVALID_FILE", "raw_text is empty");
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------------
// Page range

/** Highest page number a page range may name. */
export const MAX_PAGE_NUMBER = 100_000;

/**
 * The pages of a range such as `1-5,8,10`: sorted, without duplicates. Pages are 1-based; a range's start may not
 * exceed its end. With `totalPages`, every page must exist in the document. Returns a CheckFailure
 * (INVALID_PAGE_RANGE) when the text is not such a range; tell the two apart with `Array.isArray`.
 */
export function parsePageRange(text: string, totalPages?: number): number[] | CheckFailure {
  const invalid = (why: string) => fail("INVALID_PAGE_RANGE", `page_range ${quote(text)} ${why}`);
  if (text.trim() === "") return invalid("is empty; use pages or ranges such as 1-5,8,10");

  const pages = new Set<number>();
  for (const rawPart of text.split(",")) {
    const part = rawPart.trim();
    const match = /^(\d{1,9})(?:\s*-\s*(\d{1,9}))?$/.exec(part);
    if (!match) {
      return invalid(
        part === "" ? "has an empty item" : `has ${quote(part, 20)}, not a page or a range like 1-5`,
      );
    }
    const start = Number(match[1]);
    const end = match[2] === undefined ? start : Number(match[2]);
    if (start < 1 || end < 1) return invalid("names page 0; pages start at 1");
    if (start > end) return invalid(`has the range ${start}-${end}, whose start is after its end`);
    if (end > MAX_PAGE_NUMBER) return invalid(`names page ${end}, above the limit of ${MAX_PAGE_NUMBER}`);
    if (totalPages !== undefined && end > totalPages) {
      return invalid(
        `names page ${end}, but the document has ${totalPages} page${totalPages === 1 ? "" : "s"}`,
      );
    }
    for (let page = start; page <= end; page++) pages.add(page);
  }
  return [...pages].sort((a, b) => a - b);
}

// ---------------------------------------------------------------------------------------------------------------
// Structured extraction schema

/** Most levels of object nesting in an extraction schema, the root object being level 1. */
export const MAX_EXTRACTION_SCHEMA_DEPTH = 5;
/** Bounds on the walk of an extraction schema, so a hostile schema costs little to reject. */
const MAX_SCHEMA_NODES = 10_000;
const MAX_SCHEMA_NESTING = 64;

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function hasType(schema: JsonObject, type: string): boolean {
  const declared = schema.type;
  return declared === type || (Array.isArray(declared) && declared.includes(type));
}

function describesObject(schema: JsonObject): boolean {
  return hasType(schema, "object") || isObject(schema.properties);
}

/** Resolves a local `#/$defs/...` or `#/definitions/...` reference inside `root`. */
function resolveRef(root: JsonObject, ref: string): unknown {
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (!isObject(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

/**
 * The rules of an extraction JSON schema: an object schema at the root with at least one property, each root
 * property a schema object; objects nested at most MAX_EXTRACTION_SCHEMA_DEPTH levels (the root is level 1; arrays,
 * `anyOf`/`oneOf`/`allOf` and local `$ref`s add no level of their own); every property of every object listed in
 * its `required`. Recursive `$ref`s are rejected. `field` names the schema in messages.
 */
export function checkExtractionSchema(jsonSchema: unknown, field = "json_schema"): CheckFailure | null {
  const invalid = (message: string) => fail("INVALID_JSON_SCHEMA", message);
  if (!isObject(jsonSchema)) return invalid(`${field} must be a JSON Schema object`);
  if (!hasType(jsonSchema, "object")) return invalid(`${field} must have "type": "object" at the root`);
  const rootProperties = jsonSchema.properties;
  if (!isObject(rootProperties) || Object.keys(rootProperties).length === 0) {
    return invalid(`${field} must declare at least one field in "properties" at the root`);
  }
  for (const [name, property] of Object.entries(rootProperties)) {
    if (!isObject(property)) return invalid(`${field}.properties.${name} must be a schema object`);
  }

  let visited = 0;
  const refs: string[] = [];

  const walk = (node: unknown, path: string, depth: number, nesting: number): CheckFailure | null => {
    if (++visited > MAX_SCHEMA_NODES) return invalid(`${field} has more than ${MAX_SCHEMA_NODES} subschemas`);
    if (nesting > MAX_SCHEMA_NESTING)
      return invalid(`${path} is nested more than ${MAX_SCHEMA_NESTING} deep`);
    if (typeof node === "boolean") return null;
    if (!isObject(node)) return invalid(`${path} must be a schema object`);

    if (node.$ref !== undefined) {
      if (typeof node.$ref !== "string") return invalid(`${path}.$ref must be a string`);
      const target = resolveRef(jsonSchema, node.$ref);
      if (target === undefined)
        return invalid(`${path}.$ref ${quote(node.$ref)} does not resolve inside ${field}`);
      if (refs.includes(node.$ref)) return invalid(`${path}.$ref ${quote(node.$ref)} is recursive`);
      refs.push(node.$ref);
      const targetPath = field + node.$ref.slice(1).replaceAll("/", ".");
      const failure = walk(target, targetPath, depth, nesting + 1);
      refs.pop();
      if (failure) return failure;
    }

    let level = depth;
    if (describesObject(node)) {
      level = depth + 1;
      if (level > MAX_EXTRACTION_SCHEMA_DEPTH) {
        return invalid(`${path} nests objects more than ${MAX_EXTRACTION_SCHEMA_DEPTH} levels deep`);
      }
      const properties = node.properties ?? {};
      if (!isObject(properties)) return invalid(`${path}.properties must be an object`);
      const required = node.required ?? [];
      if (!Array.isArray(required) || !required.every((name) => typeof name === "string")) {
        return invalid(`${path}.required must be an array of field names`);
      }
      for (const [name, property] of Object.entries(properties)) {
        const propertyPath = `${path}.properties.${name}`;
        if (!required.includes(name)) {
          return invalid(`${propertyPath} is not listed in ${path}.required; every field must be required`);
        }
        const failure = walk(property, propertyPath, level, nesting + 1);
        if (failure) return failure;
      }
      if (isObject(node.additionalProperties)) {
        const failure = walk(node.additionalProperties, `${path}.additionalProperties`, level, nesting + 1);
        if (failure) return failure;
      }
    }

    const items = node.items;
    if (Array.isArray(items)) {
      for (const [index, item] of items.entries()) {
        const failure = walk(item, `${path}.items[${index}]`, level, nesting + 1);
        if (failure) return failure;
      }
    } else if (items !== undefined) {
      const failure = walk(items, `${path}.items`, level, nesting + 1);
      if (failure) return failure;
    }
    for (const keyword of ["prefixItems", "anyOf", "oneOf", "allOf"] as const) {
      const branches = node[keyword];
      if (branches === undefined) continue;
      if (!Array.isArray(branches)) return invalid(`${path}.${keyword} must be an array`);
      for (const [index, branch] of branches.entries()) {
        const failure = walk(branch, `${path}.${keyword}[${index}]`, level, nesting + 1);
        if (failure) return failure;
      }
    }
    return null;
  };

  return walk(jsonSchema, field, 0, 0);
}

// ---------------------------------------------------------------------------------------------------------------
// Page classifications and structured extraction options

export interface PageClassificationFields {
  name: string;
  description: string;
}

/** Page class names are non-empty and unique; each class has a non-empty description. */
export function checkPageClassifications(
  classes: readonly PageClassificationFields[] | null | undefined,
): CheckFailure | null {
  if (!classes) return null;
  const seen = new Set<string>();
  for (const [index, pageClass] of classes.entries()) {
    const name = pageClass.name.trim();
    if (name === "") {
      return fail("INVALID_PAGE_CLASSIFICATION", `page_classifications[${index}].name is empty`);
    }
    if (seen.has(name)) {
      return fail(
        "INVALID_PAGE_CLASSIFICATION",
        `page_classifications[${index}].name ${quote(name)} is used by another page class`,
      );
    }
    seen.add(name);
    if (pageClass.description.trim() === "") {
      return fail("INVALID_PAGE_CLASSIFICATION", `page_classifications[${index}].description is empty`);
    }
  }
  return null;
}

export interface StructuredExtractionFields {
  schema_name: string;
  json_schema: unknown;
  page_classes?: readonly string[] | null;
}

/**
 * Every item's json_schema follows the extraction rules, schema names are unique, and the page classes an item
 * is restricted to are declared in page_classifications.
 */
export function checkStructuredExtraction(
  options: readonly StructuredExtractionFields[] | null | undefined,
  classes: readonly PageClassificationFields[] | null | undefined,
): CheckFailure | null {
  if (!options) return null;
  const names = new Set<string>();
  const declared = new Set((classes ?? []).map((pageClass) => pageClass.name.trim()));
  for (const [index, option] of options.entries()) {
    const at = `structured_extraction_options[${index}]`;
    const name = option.schema_name.trim();
    if (name === "") return fail("INVALID_CONFIGURATION", `${at}.schema_name is empty`);
    if (names.has(name)) {
      return fail("INVALID_CONFIGURATION", `${at}.schema_name ${quote(name)} is used by another extraction`);
    }
    names.add(name);
    const schemaFailure = checkExtractionSchema(option.json_schema, `${at}.json_schema`);
    if (schemaFailure) return schemaFailure;
    for (const pageClass of option.page_classes ?? []) {
      if (!declared.has(pageClass.trim())) {
        return fail(
          "INVALID_PAGE_CLASSIFICATION",
          `${at}.page_classes names ${quote(pageClass)}, which page_classifications does not declare`,
        );
      }
    }
  }
  return null;
}

/** The checks of a request's settings: page classifications, then structured extraction. */
export function checkParseSettings(settings: {
  structured_extraction_options?: readonly StructuredExtractionFields[] | null;
  page_classifications?: readonly PageClassificationFields[] | null;
}): CheckFailure | null {
  return (
    checkPageClassifications(settings.page_classifications) ??
    checkStructuredExtraction(settings.structured_extraction_options, settings.page_classifications)
  );
}

/** Every check of a parse or read request that needs no stored state; page_range is checked for syntax only. */
export function checkParseRequest(
  req: FileSourceFields & { page_range?: string | null } & Parameters<typeof checkParseSettings>[0],
): CheckFailure | null {
  const source = checkFileSource(req);
  if (source) return source;
  if (req.page_range !== undefined && req.page_range !== null) {
    const pages = parsePageRange(req.page_range);
    if (!Array.isArray(pages)) return pages;
  }
  return checkParseSettings(req);
}

// ---------------------------------------------------------------------------------------------------------------
// Dataset name

export const MAX_DATASET_NAME_LENGTH = 100;

/** Dataset names use ASCII letters, digits, '-' and '_' only. */
export function checkDatasetName(name: string): CheckFailure | null {
  if (name.length === 0) return fail("INVALID_DATASET_NAME", "name is empty");
  if (name.length > MAX_DATASET_NAME_LENGTH) {
    return fail("INVALID_DATASET_NAME", `name is longer than ${MAX_DATASET_NAME_LENGTH} characters`);
  }
  if (!/^[A-Za-z0-9_-]+$/.test(name)) {
    return fail(
      "INVALID_DATASET_NAME",
      `name ${quote(name)} may use only letters, digits, '-' and '_' (no spaces or other characters)`,
    );
  }
  return null;
}
