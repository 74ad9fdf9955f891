import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { ParseResult } from "@svc/contract";
import { renderTextPage } from "@svc/docparse/ocr-test-support";
import { type ReceivedRequest, startProtocolServer } from "@svc/docparse/protocol-server";
import { scrawlPage } from "@svc/docparse/vision-test-pages";
import { PDFDocument } from "pdf-lib";
import sharp from "sharp";
import { ConfigError, loadConfig } from "../config.ts";
import { startTestServer, type TestServer } from "../testing.ts";
import { documentsApi } from "./api.testing.ts";

/**
 * Vision transcription through the HTTP API: a server configured with a vision provider (`visionProvider`) and a
 * provider named like an `ocr_model` (`gemini3`), both on a loopback server of the OpenAI chat-completions
 * protocol that answers fixed transcriptions. The test checks which pages go to the model, that the request
 * carries the page image, and that the answer lands in the result's markdown and fragments with boxes. OCR is the
 * real Tesseract; no model is involved.
 */

const NOTE = ["Dear Anna,", "thank you for the flowers.", "See you on Sunday, Maria"];
const CLEAN_TEXT = "The parcel arrived on Monday morning.";
const READ_TEXT = "The parcel arrived on Tuesday morning.";
const JOB_TIMEOUT = 240_000;

/** A scanned PDF: one page holding only the picture of a handwritten note (no text layer). */
async function scannedNotePdf(): Promise<Uint8Array<ArrayBuffer>> {
  const pdf = await PDFDocument.create();
  const image = await pdf.embedPng(await scrawlPage());
  const page = pdf.addPage([612, 360]);
  page.drawImage(image, { x: 0, y: 0, width: 612, height: 360 });
  return new Uint8Array(await pdf.save());
}

/** The PNG images of a chat-completions request, decoded from their data URLs. */
function imagesOf(request: ReceivedRequest): Buffer[] {
  const body = request.body as { messages: { content: unknown }[] };
  const parts = body.messages.flatMap((message) => (Array.isArray(message.content) ? message.content : []));
  return parts
    .filter((part): part is { type: string; image_url: { url: string } } => part?.type === "image_url")
    .map((part) => Buffer.from(part.image_url.url.replace(/^data:image\/png;base64,/, ""), "base64"));
}

function markdownOf(result: ParseResult): string {
  return (result.chunks ?? []).map((chunk) => chunk.content).join("\n");
}

function fragmentWith(result: ParseResult, text: string) {
  return (result.pages?.[0]?.page_fragments ?? []).find((fragment) =>
    JSON.stringify(fragment.content).includes(text),
  );
}

describe("vision transcription through the API", () => {
  let server: TestServer;
  let api: ReturnType<typeof documentsApi>;
  let fake: Awaited<ReturnType<typeof startProtocolServer>>;
  let failing = false;
  let cleanPng: Uint8Array<ArrayBuffer>;
  let ocrResult: ParseResult;

  before(async () => {
    fake = await startProtocolServer((request) => {
      if (failing) return { status: 500, json: { error: { message: "overloaded" } } };
      const model = (request.body as { model?: string }).model;
      const content = model === "reader-model" ? READ_TEXT : NOTE.join("\n");
      return {
        json: {
          choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
          usage: { prompt_tokens: 1200, completion_tokens: 20 },
        },
      };
    });
    const provider = (model: string, vision: boolean) => ({
      kind: "openai" as const,
      baseUrl: `${fake.url}/v1`,
      model,
      vision,
      retries: 0,
    });
    server = await startTestServer(
      {
        modelProviders: {
          scribe: provider("scribe-model", true),
          gemini3: provider("reader-model", true),
          model01: provider("blind-model", false),
        },
        visionProvider: "scribe",
      },
      { documents: { workers: 1, pollIntervalMs: 50 } },
    );
    api = documentsApi(server);
    const clean = await renderTextPage({ text: CLEAN_TEXT, dpi: 200, heightIn: 4 });
    cleanPng = new Uint8Array(clean.png);
  });
  after(async () => {
    await server?.stop();
    await fake?.close();
  });

  async function parse(bytes: Uint8Array<ArrayBuffer>, name: string, type: string, options: object = {}) {
    const upload = await api.upload(bytes, name, { type });
    assert.equal(upload.status, 200, JSON.stringify(upload.body));
    const { parse_id } = await api.expect(200, "POST", "/documents/v2/parse", {
      file_id: upload.body.file_id,
      ...options,
    });
    return api.finished(parse_id, JOB_TIMEOUT);
  }

  test("a scanned handwritten page goes to the vision provider with its image; the answer is the page's text, with boxes", {
    timeout: JOB_TIMEOUT,
  }, async () => {
    const before = fake.received.length;
    const result = await parse(await scannedNotePdf(), "note.pdf", "application/pdf");
    assert.equal(result.status, "successful", result.error ?? "");
    const requests = fake.received.slice(before);
    assert.equal(requests.length, 1);
    assert.equal((requests[0].body as { model: string }).model, "scribe-model");
    const [image] = imagesOf(requests[0]);
    const meta = await sharp(image).metadata();
    assert.equal(meta.format, "png", "the page image");
    assert.ok(Math.abs((meta.width ?? 0) / (meta.height ?? 1) - 612 / 360) < 0.02, "the whole page");
    const markdown = markdownOf(result);
    let at = -1;
    for (const line of NOTE) {
      const found = markdown.indexOf(line);
      assert.ok(found > at, `${line} in order in ${JSON.stringify(markdown)}`);
      at = found;
    }
    const fragment = fragmentWith(result, "Dear Anna");
    const bbox = fragment?.bbox;
    assert.ok(bbox, "a fragment with a box");
    assert.ok(bbox.x1 >= 0 && bbox.y1 >= 0 && bbox.x2 <= 612 && bbox.y2 <= 360 && bbox.x2 > bbox.x1);
    assert.equal(result.usage?.ocr_input_tokens_used, 1200);
    assert.equal(result.usage?.ocr_output_tokens_used, 20);
    assert.deepEqual(result.usage?.model_providers, { scribe: { input_tokens: 1200, output_tokens: 20 } });
  });

  test("a page OCR reads well stays OCR's: no call", { timeout: JOB_TIMEOUT }, async () => {
    const before = fake.received.length;
    ocrResult = await parse(cleanPng, "clean.png", "image/png");
    assert.equal(ocrResult.status, "successful", ocrResult.error ?? "");
    assert.equal(fake.received.length, before);
    assert.match(markdownOf(ocrResult), /The parcel arrived on Monday morning\./);
    assert.equal(ocrResult.usage?.model_providers, undefined);
  });

  test("ocr_model naming a configured provider sends every page to it; matched words keep OCR's boxes", {
    timeout: JOB_TIMEOUT,
  }, async () => {
    assert.ok(ocrResult, "runs after the OCR-only parse of the same page");
    const before = fake.received.length;
    const result = await parse(cleanPng, "clean.png", "image/png", {
      parsing_options: { ocr_model: "gemini3" },
    });
    assert.equal(result.status, "successful", result.error ?? "");
    const requests = fake.received.slice(before);
    assert.equal(requests.length, 1);
    assert.equal((requests[0].body as { model: string }).model, "reader-model");
    assert.equal(imagesOf(requests[0]).length, 1);
    assert.match(markdownOf(result), /The parcel arrived on Tuesday morning\./);
    const read = fragmentWith(result, "parcel")?.bbox;
    const ocr = fragmentWith(ocrResult, "parcel")?.bbox;
    assert.ok(read && ocr);
    for (const side of ["x1", "y1", "x2", "y2"] as const) {
      assert.ok(Math.abs(read[side] - ocr[side]) < 2, `${side}: ${read[side]} vs OCR's ${ocr[side]}`);
    }
  });

  test("a failing provider: the page keeps its OCR text, unless ocr_model asked for the model (then the job fails)", {
    timeout: 2 * JOB_TIMEOUT,
  }, async () => {
    failing = true;
    try {
      const note = new Uint8Array(await scrawlPage());
      const degraded = await parse(note, "note.png", "image/png");
      assert.equal(degraded.status, "successful", degraded.error ?? "");
      assert.doesNotMatch(markdownOf(degraded), /Dear Anna/);
      const demanded = await parse(note, "note.png", "image/png", {
        parsing_options: { ocr_model: "gemini3" },
      });
      assert.equal(demanded.status, "failure");
      assert.match(demanded.error ?? "", /vision model could not transcribe the page/);
      assert.match(demanded.error ?? "", /model provider gemini3: answered 500/);
    } finally {
      failing = false;
    }
  });

  test("an ocr_model naming a provider without vision is refused at request time, parse or read", async () => {
    const body = await api.expect(
      400,
      "POST",
      "/documents/v2/parse",
      { raw_text: "hello", parsing_options: { ocr_model: "model01" } },
      "INVALID_CONFIGURATION",
    );
    assert.match(
      body.message,
      /ocr_model "model01" names a model provider that is not configured for images/,
    );
    await api.expect(
      400,
      "POST",
      "/documents/v2/read",
      { raw_text: "hello", parsing_options: { ocr_model: "model01" } },
      "INVALID_CONFIGURATION",
    );
  });

  test("visionProvider must name a configured provider with vision", () => {
    const base = {
      modelProviders: { blind: { kind: "openai" as const, baseUrl: "http://127.0.0.1:9/v1", model: "m" } },
    };
    assert.throws(
      () => loadConfig({ env: {}, overrides: { ...base, visionProvider: "blind" } }),
      (error: Error) => error instanceof ConfigError && /not configured for images/.test(error.message),
    );
    assert.throws(
      () => loadConfig({ env: {}, overrides: { ...base, visionProvider: "nobody" } }),
      (error: Error) => error instanceof ConfigError && /modelProviders does not define/.test(error.message),
    );
  });
});
