import type { IncomingMessage } from "node:http";

/**
 * Reading a JSON request body, with the failures every server of the project answers alike (request-errors.ts
 * knows them by these codes): a body over the limit is 413 PAYLOAD_TOO_LARGE (by its declared length before a
 * byte is read), an empty one or one that does not parse is 400 INVALID_JSON, and so is one that sets
 * `__proto__` or `constructor.prototype` (prototype poisoning).
 */

class BodyError extends Error {
  readonly code: string;
  readonly statusCode: number;
  constructor(code: string, statusCode: number, message: string) {
    super(message);
    this.code = code;
    this.statusCode = statusCode;
  }
}

/** Whether a request's Content-Type is JSON (`application/json`, parameters such as charset allowed). */
export function isJsonContentType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const semicolon = contentType.indexOf(";");
  const type = (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
  return type === "application/json";
}

function tooLarge(limit: number): BodyError {
  return new BodyError("FST_ERR_CTP_BODY_TOO_LARGE", 413, `Request body is larger than ${limit} bytes`);
}

/** Rejects the keys that would change an object's prototype once the value is used. */
function poisonCheck(key: string, value: unknown): unknown {
  if (key === "__proto__") throw new SyntaxError("Object contains forbidden prototype property");
  if (key === "constructor" && value !== null && typeof value === "object" && "prototype" in value) {
    throw new SyntaxError("Object contains forbidden prototype property");
  }
  return value;
}

export function parseJson(text: string): unknown {
  if (text === "") {
    throw new BodyError(
      "FST_ERR_CTP_EMPTY_JSON_BODY",
      400,
      "Body cannot be empty when content-type is set to 'application/json'",
    );
  }
  // The reviver costs on large bodies: only bodies that name one of the keys go through it.
  if (text.includes('"__proto__"') || text.includes('"constructor"')) return JSON.parse(text, poisonCheck);
  return JSON.parse(text);
}

/** Reads and parses the body; at most `limit` bytes are held (the rest is discarded once that is exceeded). */
export function readJsonBody(request: IncomingMessage, limit: number): Promise<unknown> {
  const declared = Number(request.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) {
    request.resume();
    return Promise.reject(tooLarge(limit));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const stop = () => {
      request.off("data", onData);
      request.off("end", onEnd);
      request.off("error", onError);
      request.off("aborted", onAborted);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) {
        stop();
        request.resume();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      try {
        resolve(parseJson(Buffer.concat(chunks, received).toString("utf8")));
      } catch (error) {
        if (error instanceof SyntaxError) (error as SyntaxError & { statusCode: number }).statusCode = 400;
        reject(error);
      }
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    const onAborted = () => onError(new Error("the client closed the request"));
    request.on("data", onData);
    request.on("end", onEnd);
    request.on("error", onError);
    request.on("aborted", onAborted);
  });
}
