/**
 * The port between pdf.js's two sides when both run in this thread (Node has no pdf.js web worker). pdf.js's own
 * in-thread port (`LoopbackPort`) hands every message over as a structured clone, as a real worker's port would;
 * profiles of born-digital parses spent 3–4% of each parsing thread in that clone, nearly all of it on the chunks
 * of operator lists and text content that the worker streams to the display side.
 *
 * This port hands those chunks over by reference instead, and clones every other message as pdf.js's does. That
 * is safe because of what the worker does with a chunk once it has sent it:
 * - an operator list chunk's two arrays are emptied in place as soon as the chunk is sent (`OperatorList.flush`),
 *   so the port hands over copies of the two arrays (the operators' arguments themselves are not copied: the
 *   worker builds new ones for the operators that follow);
 * - a text content chunk is the worker's one `textContent` object, whose `items` and `styles` are then replaced
 *   by new ones, so the port hands over a copy of that object holding the items sent.
 * The display side copies a chunk's operators into its own operator list as it arrives, and reads text items
 * without changing them.
 *
 * The port also carries what a render asks of the worker that pdf.js has no parameter for: the region of a page
 * that a render without text shows (render-region.ts), read by the worker when the render's operator list is built.
 */

/** pdf.js's message for one chunk of a stream (`StreamKind.ENQUEUE` in its message handler). */
const ENQUEUE = 4;

import type { Transferable } from "node:worker_threads";

type Listener = (this: WorkerPort, event: { data: unknown }) => void;

interface StreamMessage {
  stream?: number;
  chunk?: unknown;
}

interface OperatorListChunk {
  fnArray: unknown[];
  argsArray: unknown[];
  length: number;
}

interface TextContentChunk {
  items: unknown[];
  styles: object;
}

export class WorkerPort {
  /** Page index → the region, [x1, y1, x2, y2] in the page's PDF space, of the page's next render without text. */
  readonly renderRegions = new Map<number, number[]>();
  readonly #listeners = new Set<Listener>();
  readonly #now = Promise.resolve();

  postMessage(message: unknown, transfer?: Transferable[] | null): void {
    const data = handedOver(message) ?? structuredClone(message, transfer ? { transfer } : undefined);
    // Delivered after the sender's current step, in the order sent, as pdf.js's own port delivers.
    this.#now.then(() => {
      for (const listener of this.#listeners) listener.call(this, { data });
    });
  }

  addEventListener(_type: "message", listener: Listener): void {
    this.#listeners.add(listener);
  }

  removeEventListener(_type: "message", listener: Listener): void {
    this.#listeners.delete(listener);
  }

  terminate(): void {
    this.#listeners.clear();
  }
}

/** A stream chunk's message with what the worker will change of it copied, or undefined for any other message. */
function handedOver(message: unknown): unknown {
  const { stream, chunk } = (message ?? {}) as StreamMessage;
  if (stream !== ENQUEUE || typeof chunk !== "object" || chunk === null) return undefined;
  if (isOperatorListChunk(chunk)) {
    return {
      ...(message as object),
      chunk: {
        ...chunk,
        fnArray: chunk.fnArray.slice(0, chunk.length),
        argsArray: chunk.argsArray.slice(0, chunk.length),
      },
    };
  }
  if (isTextContentChunk(chunk)) return { ...(message as object), chunk: { ...chunk } };
  return undefined;
}

function isOperatorListChunk(chunk: object): chunk is OperatorListChunk {
  const c = chunk as Partial<OperatorListChunk>;
  return Array.isArray(c.fnArray) && Array.isArray(c.argsArray) && typeof c.length === "number";
}

function isTextContentChunk(chunk: object): chunk is TextContentChunk {
  const c = chunk as Partial<TextContentChunk>;
  return Array.isArray(c.items) && typeof c.styles === "object" && c.styles !== null;
}
