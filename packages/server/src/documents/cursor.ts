import { type CursorPageOf, isForward, type ListDirection, ServiceError } from "@svc/contract";

/**
 * Cursor paging of the documents lists, newest first: a cursor is the (created_at, id) of an item at the edge of
 * a page, in base64url JSON. `next`/`forward` reads older items after the cursor, `prev`/`backward` newer ones
 * before it.
 */
export interface Position {
  createdAt: number;
  id: string;
}

export function encodeCursor(position: Position): string {
  return Buffer.from(JSON.stringify([position.createdAt, position.id])).toString("base64url");
}

export function decodeCursor(cursor: string): Position {
  try {
    const value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (Array.isArray(value) && Number.isSafeInteger(value[0]) && typeof value[1] === "string") {
      return { createdAt: value[0], id: value[1] };
    }
  } catch {
    // Reported below.
  }
  throw new ServiceError("INVALID_CURSOR", "cursor is not a cursor this server gave out");
}

export interface PageQuery {
  cursor?: string;
  direction?: ListDirection;
  limit?: number;
}

/**
 * The SQL of one page: a condition on (created_at, id) and an ORDER BY, with its parameters. `alias` prefixes
 * the columns. Fetch `limit + 1` rows and pass them to `toPage`.
 */
export function pageClause(
  query: PageQuery,
  alias = "",
): { where: string; order: string; params: (string | number)[] } {
  const forward = isForward(query.direction);
  const column = (name: string) => (alias ? `${alias}.${name}` : name);
  const order = forward
    ? `${column("created_at")} DESC, ${column("id")} DESC`
    : `${column("created_at")} ASC, ${column("id")} ASC`;
  if (!query.cursor) return { where: "1 = 1", order, params: [] };
  const at = decodeCursor(query.cursor);
  return {
    where: `(${column("created_at")}, ${column("id")}) ${forward ? "<" : ">"} (?, ?)`,
    order,
    params: [at.createdAt, at.id],
  };
}

/** Rows of `pageClause` (limit + 1 of them) as a page, newest first, with the cursors of its edges. */
export function toPage<R extends { created_at: number; id: string }, T>(
  rows: R[],
  query: PageQuery,
  limit: number,
  map: (row: R) => T,
): CursorPageOf<T> {
  const forward = isForward(query.direction);
  const hasMore = rows.length > limit;
  const kept = rows.slice(0, limit);
  if (!forward) kept.reverse();
  const first = kept[0];
  const last = kept[kept.length - 1];
  const cursorOf = (row: R | undefined) =>
    row ? encodeCursor({ createdAt: row.created_at, id: row.id }) : null;
  // Towards older items there is more when this forward page was cut, or when a backward page started from a cursor.
  const olderExist = forward ? hasMore : Boolean(query.cursor);
  const newerExist = forward ? Boolean(query.cursor) : hasMore;
  return {
    items: kept.map(map),
    has_more: hasMore,
    next_cursor: olderExist ? cursorOf(last) : null,
    prev_cursor: newerExist ? cursorOf(first) : null,
  };
}
