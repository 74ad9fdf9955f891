/** A small client of the control API for tests: any route, JSON or raw bodies, every way to read the answer. */
export function controlApi(server: { url: string; apiKey: string }) {
  return async function call(
    method: string,
    path: string,
    body?: unknown,
    options: { raw?: Uint8Array | string; key?: string } = {},
  ) {
    const headers: Record<string, string> = { authorization: `Bearer ${options.key ?? server.apiKey}` };
    let payload: Uint8Array | string | undefined;
    if (options.raw !== undefined) {
      headers["content-type"] = "application/octet-stream";
      payload = options.raw;
    } else if (body !== undefined) {
      headers["content-type"] = "application/json";
      payload = JSON.stringify(body);
    }
    const response = await fetch(server.url + path, { method, headers, body: payload });
    const bytes = Buffer.from(await response.arrayBuffer());
    const text = bytes.toString("utf8");
    // biome-ignore lint/suspicious/noExplicitAny: test bodies are read by shape.
    let json: any = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {}
    return { status: response.status, type: response.headers.get("content-type") ?? "", text, json, bytes };
  };
}
