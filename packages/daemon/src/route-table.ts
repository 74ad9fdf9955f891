/**
 * The daemon's routes by method and path: contract paths (`/api/v1/processes/{pid}`) split into segments, a
 * `{name}` segment matching any one non-empty segment (at most MAX_PARAM_LENGTH characters, percent-decoded).
 * A trailing slash is ignored; HEAD finds the GET route (Node's response then sends no body).
 */

/** Longest path parameter matched; a longer one is no match (404). */
const MAX_PARAM_LENGTH = 500;

export interface RouteMatch<T> {
  value: T;
  params: Record<string, string>;
}

interface Entry<T> {
  /** Literal segments, or a parameter's name after a `{`. */
  segments: string[];
  value: T;
}

/** Thrown for a path parameter that is not valid percent-encoding (a 400). */
export class BadPathError extends Error {
  readonly statusCode = 400;
  readonly code = "FST_ERR_BAD_URL";
}

export class RouteTable<T> {
  readonly #exact = new Map<string, T>();
  readonly #withParams = new Map<string, Entry<T>[]>();

  /** Adds a route; `path` in the contract's form. */
  add(method: string, path: string, value: T): void {
    const segments = path
      .split("/")
      .slice(1)
      .map((s) => (/^\{[^}]+\}$/.test(s) ? `{${s.slice(1, -1)}` : s));
    if (segments.some((s) => s.startsWith("{"))) {
      const list = this.#withParams.get(method) ?? [];
      list.push({ segments, value });
      this.#withParams.set(method, list);
    } else {
      this.#exact.set(`${method} ${path}`, value);
    }
  }

  /** The route for a request's method and path (without the query), or undefined. */
  find(method: string, pathname: string): RouteMatch<T> | undefined {
    const key = method === "HEAD" ? "GET" : method;
    const path = pathname.length > 1 && pathname.endsWith("/") ? pathname.slice(0, -1) : pathname;
    const exact = this.#exact.get(`${key} ${path}`);
    if (exact !== undefined) return { value: exact, params: {} };
    const parts = path.split("/").slice(1);
    for (const entry of this.#withParams.get(key) ?? []) {
      if (entry.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let matched = true;
      for (let i = 0; i < parts.length && matched; i++) {
        const segment = entry.segments[i] as string;
        const part = parts[i] as string;
        if (segment.startsWith("{")) {
          if (part === "" || part.length > MAX_PARAM_LENGTH) matched = false;
          else params[segment.slice(1)] = decodeParam(part);
        } else if (segment !== part) matched = false;
      }
      if (matched) return { value: entry.value, params };
    }
    return undefined;
  }
}

function decodeParam(part: string): string {
  if (!part.includes("%")) return part;
  try {
    return decodeURIComponent(part);
  } catch {
    throw new BadPathError(`'${part}' is not a valid URL component`);
  }
}
