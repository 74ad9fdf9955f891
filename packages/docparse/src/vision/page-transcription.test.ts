import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import sharp from "sharp";
import { documentViews, loadDocument } from "../index.ts";
import { renderTextPage } from "../ocr/test-support.ts";
import { createProvider } from "../providers/index.ts";
import { type ReceivedRequest, startProtocolServer } from "../providers/protocol-server.testing.ts";
import { TranscriptionError, type VisionTranscription } from "./page-transcription.ts";
import { scrawlPage } from "./test-pages.testing.ts";

/**
 * Vision transcription inside the engine, against a loopback server of the OpenAI chat-completions protocol that
 * answers a fixed transcription (no model is involved: the test checks which pages go to the model, what is sent,
 * and how the answer lands in the page model). OCR is the real Tesseract.
 */

const NOTE = ["Dear Anna,", "thank you for the flowers.", "See you on Sunday, Maria"];
const OCR_TIMEOUT = 180_000;

function chatAnswer(content: string) {
  return {
    json: {
      choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
      usage: { prompt_tokens: 1200, completion_tokens: 20 },
    },
  };
}

/** The PNG images of a chat-completions request, decoded from their data URLs. */
function imagesOf(request: ReceivedRequest): Buffer[] {
  const body = request.body as { messages: { content: unknown }[] };
  const parts = body.messages.flatMap((message) => (Array.isArray(message.content) ? message.content : []));
  return parts
    .filter((part): part is { type: string; image_url: { url: string } } => part?.type === "image_url")
    .map((part) => {
      const match = /^data:image\/png;base64,(.+)$/.exec(part.image_url.url);
      assert.ok(match, "a PNG data URL");
      return Buffer.from(match[1], "base64");
    });
}

describe("vision transcription of pages read from their image", () => {
  let fake: Awaited<ReturnType<typeof startProtocolServer>>;
  let failing = false;
  let scrawl: Buffer;
  let clean: Buffer;
  const vision = (options: Partial<VisionTranscription> = {}): VisionTranscription => ({
    provider: createProvider("scribe", {
      kind: "openai",
      baseUrl: `${fake.url}/v1`,
      model: "scribe-model",
      apiKey: null,
      timeoutMs: 60_000,
      retries: 0,
      vision: true,
      maxTokens: 1000,
    }),
    pages: "low-confidence",
    required: false,
    ...options,
  });

  before(async () => {
    fake = await startProtocolServer(() =>
      failing ? { status: 500, json: { error: { message: "overloaded" } } } : chatAnswer(NOTE.join("\n")),
    );
    scrawl = await scrawlPage();
    clean = (await renderTextPage({ text: "The parcel arrived on Monday morning.", dpi: 200, heightIn: 4 }))
      .png;
  });
  after(async () => {
    await fake.close();
  });

  test("a page OCR reads with low confidence goes to the model as an image; its lines become the page's text", {
    timeout: OCR_TIMEOUT,
  }, async () => {
    const before = fake.received.length;
    const doc = await loadDocument({ bytes: scrawl, mimeType: "image/png", vision: vision() });
    const requests = fake.received.slice(before);
    assert.equal(requests.length, 1, "one call for the one page");
    assert.equal(requests[0].path, "/v1/chat/completions");
    const [image] = imagesOf(requests[0]);
    const sent = await sharp(image).metadata();
    const original = await sharp(scrawl).metadata();
    assert.equal(sent.format, "png");
    assert.ok(
      Math.abs((sent.width ?? 0) / (sent.height ?? 1) - (original.width ?? 0) / (original.height ?? 1)) <
        0.02,
      "the whole page, upright",
    );
    const views = documentViews(doc);
    let at = -1;
    for (const line of NOTE) {
      const found = views.markdown.indexOf(line);
      assert.ok(found > at, `${line} in order in ${JSON.stringify(views.markdown)}`);
      at = found;
    }
    const fragments = views.pages[0].page_fragments ?? [];
    const [width, height] = views.pages[0].dimensions ?? [0, 0];
    const texts = fragments.filter((fragment) => JSON.stringify(fragment.content).includes("Dear Anna"));
    assert.equal(texts.length, 1);
    const { bbox } = texts[0];
    assert.ok(
      bbox && bbox.x1 >= 0 && bbox.y1 >= 0 && bbox.x2 <= width && bbox.y2 <= height,
      "a box on the page",
    );
    assert.ok(bbox && bbox.x2 > bbox.x1 && bbox.y2 > bbox.y1);
  });

  test("a page OCR reads well does not go to the model: the result is OCR's", {
    timeout: OCR_TIMEOUT,
  }, async () => {
    const before = fake.received.length;
    const doc = await loadDocument({ bytes: clean, mimeType: "image/png", vision: vision() });
    assert.equal(fake.received.length, before);
    assert.match(documentViews(doc).markdown, /The parcel arrived on Monday morning\./);
    assert.doesNotMatch(documentViews(doc).markdown, /Dear Anna/);
  });

  test("every page goes to the model when asked; words OCR read keep OCR's boxes", {
    timeout: OCR_TIMEOUT,
  }, async () => {
    const ocr = documentViews(await loadDocument({ bytes: clean, mimeType: "image/png" }));
    const ocrText = (ocr.pages[0].page_fragments ?? []).find((f) =>
      JSON.stringify(f.content).includes("parcel"),
    );
    const before = fake.received.length;
    const doc = await loadDocument({
      bytes: clean,
      mimeType: "image/png",
      vision: {
        ...vision({ pages: "every-page", required: true }),
        provider: {
          name: "reader",
          vision: true,
          complete: async () => ({
            text: "The parcel arrived on Tuesday morning.",
            usage: { inputTokens: 1, outputTokens: 1 },
          }),
        },
      },
    });
    assert.equal(fake.received.length, before);
    const views = documentViews(doc);
    assert.match(views.markdown, /The parcel arrived on Tuesday morning\./, "the model's reading wins");
    const text = (views.pages[0].page_fragments ?? []).find((f) =>
      JSON.stringify(f.content).includes("parcel"),
    );
    assert.ok(ocrText?.bbox && text?.bbox);
    for (const side of ["x1", "y1", "x2", "y2"] as const) {
      assert.ok(
        Math.abs(text.bbox[side] - ocrText.bbox[side]) < 2,
        `${side}: ${text.bbox[side]} vs OCR ${ocrText.bbox[side]}`,
      );
    }
  });

  test("a failed call keeps the page's OCR text with a warning; when the model was required the parse fails", {
    timeout: OCR_TIMEOUT,
  }, async () => {
    failing = true;
    try {
      const doc = await loadDocument({ bytes: scrawl, mimeType: "image/png", vision: vision() });
      assert.doesNotMatch(documentViews(doc).markdown, /Dear Anna/);
      assert.ok(
        doc.warnings.some((warning) =>
          /page 1: the vision model could not transcribe the page \(model provider scribe: answered 500/.test(
            warning,
          ),
        ),
        JSON.stringify(doc.warnings),
      );
      await assert.rejects(
        loadDocument({
          bytes: scrawl,
          mimeType: "image/png",
          vision: vision({ required: true }),
        }),
        (error: Error) => error instanceof TranscriptionError && /answered 500/.test(error.message),
      );
    } finally {
      failing = false;
    }
  });
});
