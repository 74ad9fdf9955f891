import { base64, jsonOfAnswer, protocolSchemaName, schemaForModel, tokenCount } from "./model-schema.ts";
import { type Completion, type CompletionRequest, ProviderError } from "./provider.ts";
import { endpoint, HttpProvider, postJson } from "./provider-http.ts";

/**
 * A client of the OpenAI chat-completions protocol (`POST {baseUrl}/chat/completions`), which vLLM, Ollama
 * (`/v1`) and llama.cpp's server also speak. A schema request asks for constrained output with
 * `response_format: {type: "json_schema", json_schema: {name, schema, strict: true}}`; images go as `image_url`
 * content parts holding data URLs. Usage is read from `usage.prompt_tokens` and `usage.completion_tokens`.
 */
export class OpenAiProvider extends HttpProvider {
  /** The body of a chat-completions request (exported for the adapter's tests through `complete`). */
  requestBody(request: CompletionRequest): Record<string, unknown> {
    const messages: Record<string, unknown>[] = [];
    if (request.system) messages.push({ role: "system", content: request.system });
    const images = this.imagesOf(request);
    messages.push({
      role: "user",
      content:
        images.length === 0
          ? request.prompt
          : [
              { type: "text", text: request.prompt },
              ...images.map((image) => ({
                type: "image_url",
                image_url: { url: `data:${image.mimeType};base64,${base64(image.data)}` },
              })),
            ],
    });
    const body: Record<string, unknown> = {
      model: this.settings.model,
      messages,
      max_tokens: request.maxTokens ?? this.settings.maxTokens,
      temperature: 0,
    };
    if (request.jsonSchema) {
      body.response_format = {
        type: "json_schema",
        json_schema: {
          name: protocolSchemaName(request.schemaName),
          schema: schemaForModel(request.jsonSchema),
          strict: true,
        },
      };
    }
    return body;
  }

  async complete(request: CompletionRequest, signal?: AbortSignal): Promise<Completion> {
    const headers: Record<string, string> = {};
    if (this.settings.apiKey) headers.authorization = `Bearer ${this.settings.apiKey}`;
    const answer = (await postJson(
      this.name,
      endpoint(this.settings.baseUrl, "chat/completions"),
      headers,
      this.requestBody(request),
      this.policy,
      signal,
    )) as {
      choices?: { message?: { content?: unknown; refusal?: unknown }; finish_reason?: unknown }[];
      usage?: { prompt_tokens?: unknown; completion_tokens?: unknown };
    };
    const choice = Array.isArray(answer?.choices) ? answer.choices[0] : undefined;
    if (!choice || typeof choice.message !== "object" || choice.message === null) {
      throw new ProviderError(this.name, "answered without choices[0].message");
    }
    if (typeof choice.message.refusal === "string" && choice.message.refusal !== "") {
      throw new ProviderError(this.name, `refused: ${choice.message.refusal.slice(0, 300)}`);
    }
    const text = typeof choice.message.content === "string" ? choice.message.content : "";
    const completion: Completion = {
      text,
      usage: {
        inputTokens: tokenCount(answer.usage?.prompt_tokens),
        outputTokens: tokenCount(answer.usage?.completion_tokens),
      },
    };
    if (request.jsonSchema) completion.json = jsonOfAnswer(text);
    return completion;
  }
}
