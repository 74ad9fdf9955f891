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
  signal?: AbortSignal;
}

/** Sends one contract route over HTTP with a bearer credential; errors come back as typed SvcErrors. */
export class Transport {
  readonly baseUrl: string;
  readonly #credential: () => string | undefined;
  constructor(baseUrl: string, credential: () => string | undefined) {
    this.baseUrl = baseUrl;
    this.#credential = credential;
  }

  async call<R extends RouteDef>(route: R, input: CallInput<R> = {}): Promise<RouteResponse<R>> {
    let url = this.baseUrl + fillPath(route.path, (input.params ?? {}) as Record<string, string>);
    const query = Object.entries((input.query ?? {}) as Record<string, unknown>).filter(
      ([, v]) => v !== undefined,
    );
    if (query.length > 0)
      url += `?${new URLSearchParams(query.map(([k, v]): [string, string] => [k, String(v)]))}`;
    const headers: Record<string, string> = { accept: "application/json" };
    const credential = this.#credential();
    if (credential) headers.authorization = `Bearer ${credential}`;
    let body: string | undefined;
    if (input.body !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(input.body);
    }
    let response: Response;
    try {
      response = await fetch(url, { method: route.method, headers, body, signal: input.signal });
    } catch (error) {
      throw new ConnectionError(
        `cannot reach ${this.baseUrl}: ${(error as Error).message}`,
        "CONNECTION_FAILED",
        0,
      );
    }
    const text = await response.text();
    let parsed: unknown = text;
    if ((response.headers.get("content-type") ?? "").includes("json") && text) {
      try {
        parsed = JSON.parse(text);
      } catch {
        // keep the text: the error below still carries it
      }
    }
    if (!response.ok) throw errorFromResponse(response.status, parsed);
    return (text ? parsed : undefined) as RouteResponse<R>;
  }
}
