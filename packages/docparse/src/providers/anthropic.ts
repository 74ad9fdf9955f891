import { base64, jsonOfAnswer, protocolSchemaName, schemaForModel, tokenCount } from "./model-schema.ts";
import { type Completion, type CompletionRequest, ProviderError } from "./provider.ts";
import { endpoint, HttpProvider, postJson } from "./provider-http.ts";

/** The API version the requests are written against (sent as `anthropic-version`). */
export const ANTHROPIC_VERSION = "2023-06-01";

/**
 * A client of Anthropic's messages protocol (`POST {baseUrl}/messages`, `x-api-key`, `anthropic-version`). A schema
 * request defines one tool whose `input_schema` is the schema and forces it with `tool_choice: {type: "tool"}`; the
 * answer is the `input` of the `tool_use` block. Images go first in the user turn as base64 `image` blocks. Usage is
 * read from `usage.input_tokens` and `usage.output_tokens`.
 */
export class AnthropicProvider extends HttpProvider {
  requestBody(request: CompletionRequest): Record<string, unknown> {
    const images = this.imagesOf(request);
    const content = [
      ...images.map((image) => ({
        type: "image",
        source: { type: "base64", media_type: image.mimeType, data: base64(image.data) },
      })),
      { type: "text", text: request.prompt },
    ];
    const body: Record<string, unknown> = {
      model: this.settings.model,
      max_tokens: request.maxTokens ?? this.settings.maxTokens,
      messages: [{ role: "user", content }],
      temperature: 0,
    };
    if (request.system) body.system = request.system;
    if (request.jsonSchema) {
      const name = protocolSchemaName(request.schemaName);
      body.tools = [
        {
          name,
          description: "Record the answer: call this tool with the values, null where the source has none.",
          input_schema: schemaForModel(request.jsonSchema),
        },
      ];
      body.tool_choice = { type: "tool", name };
    }
    return body;
  }

  async complete(request: CompletionRequest, signal?: AbortSignal): Promise<Completion> {
    const headers: Record<string, string> = { "anthropic-version": ANTHROPIC_VERSION };
    if (this.settings.apiKey) headers["x-api-key"] = this.settings.apiKey;
    const answer = (await postJson(
      this.name,
      endpoint(this.settings.baseUrl, "messages"),
      headers,
      this.requestBody(request),
      this.policy,
      signal,
    )) as {
      content?: { type?: unknown; text?: unknown; name?: unknown; input?: unknown }[];
      usage?: { input_tokens?: unknown; output_tokens?: unknown };
    };
    if (!Array.isArray(answer?.content)) throw new ProviderError(this.name, "answered without content");
    const usage = {
      inputTokens: tokenCount(answer.usage?.input_tokens),
      outputTokens: tokenCount(answer.usage?.output_tokens),
    };
    const text = answer.content
      .filter((block) => block?.type === "text" && typeof block.text === "string")
      .map((block) => block.text as string)
      .join("");
    if (!request.jsonSchema) return { text, usage };
    const tool = answer.content.find((block) => block?.type === "tool_use");
    if (tool && tool.input !== undefined)
      return { text: JSON.stringify(tool.input), json: tool.input, usage };
    // A model that answered in text instead of the tool: its JSON, if any, is still checked by the caller.
    return { text, json: jsonOfAnswer(text), usage };
  }
}
