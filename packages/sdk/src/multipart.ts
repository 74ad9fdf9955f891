import { randomBytes } from "node:crypto";

/** One part of a multipart/form-data body: a text field, or a file whose bytes are read as the body is sent. */
export type FormPart =
  | { name: string; value: string }
  | { name: string; fileName: string; contentType: string; data: AsyncIterable<Uint8Array> | Uint8Array };

/** A multipart/form-data body as a stream, and the Content-Type header naming its boundary. */
export interface MultipartBody {
  contentType: string;
  body: ReadableStream<Uint8Array>;
}

const encoder = new TextEncoder();

/**
 * A header parameter value as browsers send it in a form: `"`, CR and LF percent-encoded, the rest as UTF-8
 * (the server reads parameters as UTF-8).
 */
function quoted(value: string): string {
  return `"${value.replace(/"/g, "%22").replace(/\r/g, "%0D").replace(/\n/g, "%0A")}"`;
}

async function* partBytes(boundary: string, parts: readonly FormPart[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name=${quoted(part.name)}`;
    if ("value" in part) {
      yield encoder.encode(`${head}\r\n\r\n`);
      yield encoder.encode(part.value);
    } else {
      head += `; filename=${quoted(part.fileName)}\r\nContent-Type: ${part.contentType.replace(/[\r\n]/g, "")}\r\n\r\n`;
      yield encoder.encode(head);
      if (part.data instanceof Uint8Array) yield part.data;
      else for await (const chunk of part.data) yield chunk;
    }
    yield encoder.encode("\r\n");
  }
  yield encoder.encode(`--${boundary}--\r\n`);
}

/**
 * Builds a multipart/form-data body that is produced as it is sent: a file part's bytes are pulled from its
 * source only when the connection takes them, so a large file is never held whole in memory.
 *
 * @example
 * const { body, contentType } = multipartBody([
 *   { name: "file", fileName: "a.txt", contentType: "text/plain", data: createReadStream("a.txt") },
 * ]);
 * await fetch(url, { method: "PUT", body, headers: { "content-type": contentType }, duplex: "half" });
 */
export function multipartBody(parts: readonly FormPart[]): MultipartBody {
  const boundary = `----svc-sdk-${randomBytes(16).toString("hex")}`;
  const source = partBytes(boundary, parts);
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await source.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    async cancel() {
      await source.return(undefined);
    },
  });
  return { contentType: `multipart/form-data; boundary=${boundary}`, body };
}
