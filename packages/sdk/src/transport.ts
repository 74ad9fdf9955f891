import {
  fillPath,
  type RouteBody,
  type RouteDef,
  type RouteParams,
  type RouteQuery,
  type RouteResponse,
} from "@svc/contract";
import { ConnectionError, errorFromResponse } from "./errors.ts";

export interface CallInput<R extends RouteDef> {
  params?: RouteParams<R>;
  query?: RouteQuery<R>;
  body?: RouteBody<R>;
  /** A raw body (file contents, stdin) for routes whose body is bytes. */
  rawBody?: RequestInit["body"];
  /** Headers of this call, over the defaults (an Accept for a stream, the Content-Type of a multipart body). */
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/**
 * Sends contract routes over HTTP with a bearer credential and fixed extra headers (the sandbox-id header of
 * runtime calls); failures come back as typed SvcErrors.
 */
export class Transport {
  readonly baseUrl: string;
  readonly #credential: () => string | undefined;
  readonly #headers: Record<string, string>;
  constructor(baseUrl: string, credential: () => string | undefined, headers: Record<string, string> = {}) {
    this.baseUrl = baseUrl;
    this.#credential = credential;
    this.#headers = headers;
  }

  /** The URL of a route with its path and query filled. */
  url<R extends RouteDef>(route: R, input: Pick<CallInput<R>, "params" | "query"> = {}): string {
    let url = this.baseUrl + fillPath(route.path, (input.params ?? {}) as Record<string, string>);
    const query = Object.entries((input.query ?? {}) as Record<string, unknown>).filter(
      ([, v]) => v !== undefined,
    );
    // An array is the key repeated, as the contract's array query fields are read.
    const pairs = query.flatMap(([k, v]): [string, string][] =>
      Array.isArray(v) ? v.map((item): [string, string] => [k, String(item)]) : [[k, String(v)]],
    );
    if (pairs.length > 0) url += `?${new URLSearchParams(pairs)}`;
    return url;
  }

  /** Headers of every request: the credential and the fixed extras. */
  headers(): Record<string, string> {
    const credential = this.#credential();
    return { ...this.#headers, ...(credential ? { authorization: `Bearer ${credential}` } : {}) };
  }

  /** Sends a route and returns the successful Response unread (streams, bytes); errors are thrown typed. */
  async send<R extends RouteDef>(route: R, input: CallInput<R> = {}): Promise<Response> {
    const headers: Record<string, string> = {
      ...this.headers(),
      accept: route.responseKind === "sse" ? "text/event-stream" : "application/json",
    };
    let body: RequestInit["body"] | undefined;
    if (input.rawBody !== undefined) {
      headers["content-type"] = "application/octet-stream";
      body = input.rawBody;
    } else if (input.body !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(input.body);
    }
    Object.assign(headers, input.headers);
    let response: Response;
    try {
      response = await fetch(this.url(route, input), {
        method: route.method,
        headers,
        body,
        signal: input.signal,
        ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
      } as RequestInit);
    } catch (error) {
      const cause = (error as { cause?: { message?: string } }).cause?.message;
      throw new ConnectionError(`cannot reach ${this.baseUrl}: ${cause ?? (error as Error).message}`);
    }
    if (!response.ok) {
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: the error keeps the text
      }
      throw errorFromResponse(response.status, parsed);
    }
    return response;
  }

  /** Sends a route and returns its JSON response (undefined for empty responses). */
  async call<R extends RouteDef>(route: R, input: CallInput<R> = {}): Promise<RouteResponse<R>> {
    const response = await this.send(route, input);
    const text = await response.text();
    return (text ? JSON.parse(text) : undefined) as RouteResponse<R>;
  }
}
