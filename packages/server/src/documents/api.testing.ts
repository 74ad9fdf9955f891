import assert from "node:assert/strict";
import { DOCUMENT_ERROR_CODES, type ParseResult } from "@svc/contract";

/** A small JSON client of the documents API for tests, on a server's URL and key. */
export function documentsApi(server: { url: string; apiKey: string }) {
  const authorization = `Bearer ${server.apiKey}`;
  async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        authorization,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    // biome-ignore lint/suspicious/noExplicitAny: test bodies are read by shape.
    const json: any = text ? JSON.parse(text) : undefined;
    return { status: response.status, body: json, headers: response.headers };
  }
  const api = {
    call,
    authorization,
    /**
     * Asserts the status and, for an error, the catalog code (in `details.code` when `code` carries the Python
     * SDK's code instead, which a documents path always does); returns the body.
     */
    async expect(status: number, method: string, path: string, body?: unknown, code?: string) {
      const response = await call(method, path, body);
      assert.equal(response.status, status, `${method} ${path}: ${JSON.stringify(response.body)}`);
      if (code) {
        const text = JSON.stringify(response.body);
        assert.equal(response.body.details?.code ?? response.body.code, code, text);
        if (path.startsWith("/documents/")) {
          assert.ok((DOCUMENT_ERROR_CODES as readonly string[]).includes(response.body.code), text);
        }
      }
      return response.body;
    },
    /** Polls a job until it ends. */
    async finished(parseId: string, timeoutMs = 20_000): Promise<ParseResult> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const { body } = await call("GET", `/documents/v2/parse/${parseId}`);
        if (body.status === "successful" || body.status === "failure") return body;
        if (Date.now() > deadline) throw new Error(`job ${parseId} still ${body.status}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    async upload(
      content: string | Uint8Array<ArrayBuffer>,
      fileName: string,
      options: { type?: string; labels?: unknown } = {},
    ) {
      const form = new FormData();
      form.set("file", new Blob([content], { type: options.type ?? "" }), fileName);
      if (options.labels !== undefined) form.set("labels", JSON.stringify(options.labels));
      const response = await fetch(`${server.url}/documents/v2/files`, {
        method: "PUT",
        headers: { authorization },
        body: form,
      });
      // biome-ignore lint/suspicious/noExplicitAny: test bodies are read by shape.
      const body: any = await response.json();
      return { status: response.status, body };
    },
  };
  return api;
}
