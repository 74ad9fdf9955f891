import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ANTHROPIC_VERSION, AnthropicProvider } from "./anthropic.ts";
import { startProtocolServer } from "./protocol-server.testing.ts";
import { PROVIDER_DEFAULTS, type ProviderError, type ProviderSettings, UsageMeter } from "./provider.ts";

// These tests check our adapter against the messages protocol's documented request and response shapes, served
// by a loopback server in the test; they do not check any model.

const schema = {
  type: "object",
  properties: { title: { type: "string" }, pages: { type: "integer" } },
  required: ["title", "pages"],
};

function settings(baseUrl: string, extra: Partial<ProviderSettings> = {}): ProviderSettings {
  return {
    kind: "anthropic",
    baseUrl,
    model: "claude-3-5-sonnet-latest",
    apiKey: "sk-ant-test",
    ...PROVIDER_DEFAULTS,
    ...extra,
  };
}

function message(content: unknown[], stop = "end_turn") {
  return {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "claude-3-5-sonnet-latest",
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage: { input_tokens: 210, output_tokens: 33 },
  };
}

describe("Anthropic messages adapter (against a local protocol server, not a model)", () => {
  let server: Awaited<ReturnType<typeof startProtocolServer>>;
  before(async () => {
    server = await startProtocolServer((request) => {
      const body = request.body as { tools?: { name: string }[] };
      if (body.tools) {
        return {
          json: message(
            [
              {
                type: "tool_use",
                id: "toolu_1",
                name: body.tools[0].name,
                input: { title: "Report", pages: 4 },
              },
            ],
            "tool_use",
          ),
        };
      }
      return { json: message([{ type: "text", text: "A bar chart of sales by quarter." }]) };
    });
  });
  after(() => server.close());

  test("forces a tool whose input_schema is the schema and returns the tool_use input, with usage", async () => {
    const meter = new UsageMeter();
    const provider = meter.wrap(new AnthropicProvider("sonnet", settings(`${server.url}/v1`)));
    const completion = await provider.complete({
      system: "Extract.",
      prompt: "The report has 4 pages",
      jsonSchema: schema,
      schemaName: "report",
    });
    assert.deepEqual(completion.json, { title: "Report", pages: 4 });
    assert.deepEqual(completion.usage, { inputTokens: 210, outputTokens: 33 });
    assert.deepEqual(meter.get("sonnet"), { inputTokens: 210, outputTokens: 33 });
    const request = server.received.at(-1);
    assert.ok(request);
    assert.equal(request.path, "/v1/messages");
    assert.equal(request.headers["x-api-key"], "sk-ant-test");
    assert.equal(request.headers["anthropic-version"], ANTHROPIC_VERSION);
    assert.equal(request.headers.authorization, undefined);
    // biome-ignore lint/suspicious/noExplicitAny: JSON bodies read freely in assertions
    const body = request.body as Record<string, any>;
    assert.equal(body.model, "claude-3-5-sonnet-latest");
    assert.equal(body.system, "Extract.");
    assert.equal(typeof body.max_tokens, "number");
    assert.deepEqual(body.messages, [
      { role: "user", content: [{ type: "text", text: "The report has 4 pages" }] },
    ]);
    assert.equal(body.tools.length, 1);
    assert.equal(body.tools[0].name, "report");
    assert.equal(body.tools[0].input_schema.type, "object");
    assert.deepEqual(body.tools[0].input_schema.properties.pages.type, ["integer", "null"]);
    assert.deepEqual(body.tool_choice, { type: "tool", name: "report" });
  });

  test("sends images as base64 image blocks before the text and reads a text answer", async () => {
    const provider = new AnthropicProvider("sonnet", settings(server.url, { vision: true }));
    const completion = await provider.complete({
      prompt: "Describe the figure.",
      images: [{ mimeType: "image/jpeg", data: new Uint8Array([1, 2, 3]) }],
    });
    assert.equal(completion.text, "A bar chart of sales by quarter.");
    assert.equal(completion.json, undefined);
    // biome-ignore lint/suspicious/noExplicitAny: JSON bodies read freely in assertions
    const body = server.received.at(-1)?.body as Record<string, any>;
    assert.deepEqual(body.messages[0].content, [
      { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "AQID" } },
      { type: "text", text: "Describe the figure." },
    ]);
    assert.equal(body.tools, undefined);
    assert.equal(body.system, undefined);
  });
});

describe("Anthropic messages adapter: errors", () => {
  test("retries 529 overloaded and 429 with retry-after, then succeeds", async () => {
    const server = await startProtocolServer([
      { status: 529, json: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } },
      {
        status: 429,
        headers: { "retry-after": "7" },
        json: { type: "error", error: { type: "rate_limit_error", message: "slow down" } },
      },
      { json: message([{ type: "text", text: "ok" }]) },
    ]);
    try {
      const waits: number[] = [];
      const provider = new AnthropicProvider("sonnet", settings(server.url), {
        sleep: async (ms) => {
          waits.push(ms);
        },
        random: () => 0.25,
        backoffBaseMs: 400,
      });
      assert.equal((await provider.complete({ prompt: "hi" })).text, "ok");
      assert.deepEqual(waits, [100, 7000]);
    } finally {
      await server.close();
    }
  });

  test("an authentication error fails at once; an answer without content is an error", async () => {
    const server = await startProtocolServer([
      {
        status: 401,
        json: { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } },
      },
      { json: { type: "message" } },
    ]);
    try {
      const provider = new AnthropicProvider("sonnet", settings(server.url), { sleep: async () => {} });
      await assert.rejects(
        provider.complete({ prompt: "a" }),
        (error: ProviderError) => error.status === 401,
      );
      await assert.rejects(provider.complete({ prompt: "b" }), /without content/);
      assert.equal(server.received.length, 2);
    } finally {
      await server.close();
    }
  });
});
