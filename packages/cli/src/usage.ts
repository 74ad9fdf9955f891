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
