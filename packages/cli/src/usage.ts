import { type ParseArgsConfig, parseArgs } from "node:util";

/** A mistake in the command line: exit code 2 with a hint. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** parseArgs with strict checking whose errors are UsageErrors. */
export function parse<T extends ParseArgsConfig["options"]>(args: string[], options: T, positionals = 0) {
  try {
    const parsed = parseArgs({
      args,
      options: { json: { type: "boolean" }, ...options },
      allowPositionals: true,
      strict: true,
    });
    if (parsed.positionals.length > positionals) {
      throw new UsageError(`unexpected argument ${parsed.positionals[positionals]}`);
    }
    return parsed;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError((error as Error).message);
  }
}

/** Prints rows as aligned columns, or as JSON with --json. */
export function printTable(
  rows: Record<string, unknown>[],
  columns: string[],
  json: boolean | undefined,
): void {
  if (json) {
    console.log(JSON.stringify(rows, null, 2));
    return;
  }
  const text = (v: unknown) => (v === null || v === undefined ? "-" : String(v));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => text(r[c]).length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]))
      .join("  ")
      .trimEnd();
  console.log(line(columns.map((c) => c.toUpperCase())));
  for (const row of rows) console.log(line(columns.map((c) => text(row[c]))));
}

/** What a number option accepts: any finite number by default. */
export interface NumberRange {
  integer?: boolean;
  min?: number;
  max?: number;
  /** Says what is accepted in the error; default from the range (`a number`, `a positive integer`...). */
  expected?: string;
}

/**
 * The CLI's one way to read a number from the command line: undefined when the option is not given, else the
 * number, or a UsageError naming the option (`--name`, or a positional given as `<name>`) and what it takes.
 */
export function numberOption(
  value: string | undefined,
  name: string,
  range: NumberRange = {},
): number | undefined {
  if (value === undefined) return undefined;
  const n = value.trim() === "" ? Number.NaN : Number(value);
  const fits =
    Number.isFinite(n) &&
    (!range.integer || Number.isSafeInteger(n)) &&
    (range.min === undefined || n >= range.min) &&
    (range.max === undefined || n <= range.max);
  const label = /^[<-]/.test(name) ? name : `--${name}`;
  if (!fits) throw new UsageError(`${label} needs ${range.expected ?? expected(range)}`);
  return n;
}

function expected({ integer, min, max }: NumberRange): string {
  const kind = integer ? "integer" : "number";
  if (min !== undefined && max !== undefined) return `an ${kind} from ${min} to ${max}`;
  if (min === 1 && integer) return "a positive integer";
  if (min !== undefined) return `${kind === "integer" ? "an" : "a"} ${kind} of at least ${min}`;
  return `${kind === "integer" ? "an" : "a"} ${kind}`;
}

/** A positive integer option, or undefined when not given. */
export function integerOption(value: string | undefined, name: string): number | undefined {
  return numberOption(value, name, { integer: true, min: 1 });
}

/** Prints one record as `key  value` lines (objects as JSON, empty values left out), or as JSON with --json. */
export function printFields(record: object, json: boolean | undefined): void {
  if (json) {
    console.log(JSON.stringify(record, null, 2));
    return;
  }
  const entries = Object.entries(record).filter(([, v]) => v !== undefined && v !== null);
  const width = Math.max(...entries.map(([k]) => k.length)) + 2;
  for (const [key, value] of entries) {
    console.log(`${key.padEnd(width)}${typeof value === "object" ? JSON.stringify(value) : value}`);
  }
}

/** The hint, on stderr (so --json output stays one document), that a list page has more items. */
export function printMoreHint(
  page: { has_more: boolean; next_cursor?: string | null },
  command: string,
): void {
  if (page.has_more && page.next_cursor) {
    console.error(`more: ${command} --cursor ${page.next_cursor} (or --all)`);
  }
}

/** The options of every paged listing command. */
export const LIST_OPTIONS = {
  limit: { type: "string" },
  cursor: { type: "string" },
  all: { type: "boolean" },
} as const;

/**
 * The items of a paged listing: every item with --all, else one page, with a hint on stderr when there is more.
 */
export async function listItems<T>(
  options: { all?: boolean; cursor?: string },
  source: {
    page: (
      cursor: string | undefined,
    ) => Promise<{ items: T[]; has_more: boolean; next_cursor?: string | null }>;
    iterate: () => AsyncIterable<T>;
  },
  command: string,
): Promise<T[]> {
  if (options.all) {
    const items: T[] = [];
    for await (const item of source.iterate()) items.push(item);
    return items;
  }
  const page = await source.page(options.cursor);
  printMoreHint(page, command);
  return page.items;
}
