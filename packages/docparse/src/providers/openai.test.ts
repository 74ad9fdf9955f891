import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { OpenAiProvider } from "./openai.ts";
import { startProtocolServer } from "./protocol-server.testing.ts";
import { PROVIDER_DEFAULTS, ProviderError, type ProviderSettings } from "./provider.ts";

// These tests check our adapter against the chat-completions protocol's documented request and response shapes,
// served by a loopback server in the test; they do not check any model.

const schema = {
  type: "object",
  properties: {
    total: { type: "number" },
    vendor: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
  },
  required: ["total", "vendor"],
};

function settings(baseUrl: string, extra: Partial<ProviderSettings> = {}): ProviderSettings {
  return { kind: "openai", baseUrl, model: "gpt-4o-mini", apiKey: "sk-test", ...PROVIDER_DEFAULTS, ...extra };
}

function chatAnswer(content: string, usage = { prompt_tokens: 120, completion_tokens: 17 }) {
  return {
    id: "chatcmpl-1",
    object: "chat.completion",
    created: 1,
    model: "gpt-4o-mini",
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

describe("OpenAI-compatible adapter (against a local protocol server, not a model)", () => {
  let server: Awaited<ReturnType<typeof startProtocolServer>>;
  before(async () => {
    server = await startProtocolServer([{ json: chatAnswer('{"total": 12.5, "vendor": {"name": "ACME"}}') }]);
  });
  after(() => server.close());

  test("sends a chat-completions request with a json_schema response_format and reads the answer and usage", async () => {
    const provider = new OpenAiProvider("gpt_4o_mini", settings(`${server.url}/v1/`));
    const completion = await provider.complete({
      system: "Extract.",
      prompt: "Invoice total 12.50 from ACME",
      jsonSchema: schema,
      schemaName: "invoice data",
    });
    assert.deepEqual(completion.json, { total: 12.5, vendor: { name: "ACME" } });
    assert.deepEqual(completion.usage, { inputTokens: 120, outputTokens: 17 });
    const request = server.received.at(-1);
    assert.ok(request);
    assert.equal(request.method, "POST");
    assert.equal(request.path, "/v1/chat/completions");
    assert.equal(request.headers.authorization, "Bearer sk-test");
    assert.match(String(request.headers["content-type"]), /^application\/json/);
    // biome-ignore lint/suspicious/noExplicitAny: JSON bodies read freely in assertions
    const body = request.body as Record<string, any>;
    assert.equal(body.model, "gpt-4o-mini");
    assert.deepEqual(body.messages, [
      { role: "system", content: "Extract." },
      { role: "user", content: "Invoice total 12.50 from ACME" },
    ]);
    assert.equal(body.response_format.type, "json_schema");
    assert.equal(body.response_format.json_schema.name, "invoice_data");
    assert.equal(body.response_format.json_schema.strict, true);
    const sent = body.response_format.json_schema.schema;
    assert.equal(sent.additionalProperties, false);
    assert.deepEqual(sent.properties.total.type, ["number", "null"]);
    assert.equal(sent.properties.vendor.additionalProperties, false);
    assert.deepEqual(sent.properties.vendor.properties.name.type, ["string", "null"]);
    assert.equal(typeof body.max_tokens, "number");
  });

  test("sends images as data URLs in image_url content parts when the provider has vision", async () => {
    const provider = new OpenAiProvider("vision", settings(server.url, { vision: true }));
    await provider.complete({
      prompt: "What is in the chart?",
      images: [{ mimeType: "image/png", data: new Uint8Array([0x89, 0x50, 0x4e, 0x47]) }],
    });
    // biome-ignore lint/suspicious/noExplicitAny: JSON bodies read freely in assertions
    const body = server.received.at(-1)?.body as Record<string, any>;
    assert.deepEqual(body.messages[0].content, [
      { type: "text", text: "What is in the chart?" },
      { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw==" } },
    ]);
    assert.equal(body.response_format, undefined);
  });

  test("refuses images for a provider without vision, before any request", async () => {
    const provider = new OpenAiProvider("text-only", settings(server.url));
    const count = server.received.length;
    await assert.rejects(
      provider.complete({ prompt: "x", images: [{ mimeType: "image/png", data: new Uint8Array(1) }] }),
      ProviderError,
    );
    assert.equal(server.received.length, count);
  });

  test("sends no Authorization header without a key (local servers: Ollama, vLLM, llama.cpp)", async () => {
    const provider = new OpenAiProvider("ollama", settings(server.url, { apiKey: null }));
    await provider.complete({ prompt: "hi" });
    assert.equal(server.received.at(-1)?.headers.authorization, undefined);
  });
});

describe("OpenAI-compatible adapter: answers that are not the protocol's success", () => {
  test("retries 429 honouring Retry-After, then 503 with backoff, and succeeds", async () => {
    const server = await startProtocolServer([
      {
        status: 429,
        headers: { "retry-after": "3" },
        json: { error: { message: "rate limited", type: "rate_limit" } },
      },
      { status: 503, json: { error: { message: "busy" } } },
      { json: chatAnswer("hello") },
    ]);
    try {
      const waits: number[] = [];
      const provider = new OpenAiProvider("p", settings(server.url), {
        sleep: async (ms) => {
          waits.push(ms);
        },
        random: () => 0.5,
        backoffBaseMs: 1000,
      });
      const completion = await provider.complete({ prompt: "hi" });
      assert.equal(completion.text, "hello");
      assert.equal(server.received.length, 3);
      // The first wait is the server's Retry-After; the second is jittered backoff: 0.5 × 1000 × 2^1.
      assert.deepEqual(waits, [3000, 1000]);
    } finally {
      await server.close();
    }
  });

  test("does not retry a 400 and names the status and the provider's message", async () => {
    const server = await startProtocolServer([
      { status: 400, json: { error: { message: "Invalid schema for response_format" } } },
    ]);
    try {
      const provider = new OpenAiProvider("p", settings(server.url), { sleep: async () => {} });
      await assert.rejects(provider.complete({ prompt: "hi" }), (error: ProviderError) => {
        assert.equal(error.status, 400);
        assert.match(error.message, /Invalid schema for response_format/);
        return true;
      });
      assert.equal(server.received.length, 1);
    } finally {
      await server.close();
    }
  });

  test("gives up after the configured retries on network errors", async () => {
    const server = await startProtocolServer([{ hangUp: true }]);
    try {
      const provider = new OpenAiProvider("p", settings(server.url, { retries: 2 }), {
        sleep: async () => {},
      });
      await assert.rejects(provider.complete({ prompt: "hi" }), /could not be reached/);
      assert.equal(server.received.length, 3);
    } finally {
      await server.close();
    }
  });

  test("a slow answer is a timeout, retried, then an error", async () => {
    const { createServer } = await import("node:http");
    let hits = 0;
    const slow = createServer(() => {
      hits++; // never answers
    });
    await new Promise<void>((resolve) => slow.listen(0, "127.0.0.1", resolve));
    const port = (slow.address() as { port: number }).port;
    try {
      const provider = new OpenAiProvider(
        "p",
        settings(`http://127.0.0.1:${port}`, { timeoutMs: 200, retries: 1 }),
        {
          sleep: async () => {},
        },
      );
      await assert.rejects(provider.complete({ prompt: "hi" }), /no answer within 200 ms/);
      assert.equal(hits, 2);
    } finally {
      slow.closeAllConnections();
      slow.close();
    }
  });

  test("an answer without choices, a refusal, and non-JSON content under a schema", async () => {
    const server = await startProtocolServer([
      { json: { object: "chat.completion", choices: [] } },
      {
        json: {
          choices: [{ index: 0, message: { role: "assistant", content: null, refusal: "I can't help" } }],
        },
      },
      { json: chatAnswer('Sure! ```json\n{"total": 3, "vendor": {"name": null}}\n```') },
      { json: chatAnswer("no json here") },
    ]);
    try {
      const provider = new OpenAiProvider("p", settings(server.url), { sleep: async () => {} });
      await assert.rejects(provider.complete({ prompt: "a" }), /without choices/);
      await assert.rejects(provider.complete({ prompt: "b" }), /refused: I can't help/);
      const fenced = await provider.complete({ prompt: "c", jsonSchema: schema });
      assert.deepEqual(fenced.json, { total: 3, vendor: { name: null } });
      const none = await provider.complete({ prompt: "d", jsonSchema: schema });
      assert.equal(none.json, undefined);
      assert.equal(none.text, "no json here");
    } finally {
      await server.close();
    }
  });

  test("an answer larger than the limit is an error, not read whole, and not retried", async () => {
    const server = await startProtocolServer([{ text: JSON.stringify(chatAnswer("x".repeat(100_000))) }]);
    try {
      const provider = new OpenAiProvider("p", settings(server.url), {
        sleep: async () => {},
        maxAnswerBytes: 10_000,
      });
      await assert.rejects(provider.complete({ prompt: "hi" }), /answered with more than 10000 bytes/);
      assert.equal(server.received.length, 1);
    } finally {
      await server.close();
    }
  });
});
