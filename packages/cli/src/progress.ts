import type { ParseResult } from "@svc/contract";

/** Where progress goes: stderr, or anything with its shape. */
export interface ProgressStream {
  isTTY?: boolean;
  write(text: string): unknown;
}

export interface ParseProgress {
  /** A new state of the job. */
  update(result: ParseResult): void;
  /** Ends the display: the status line gives way to one summary line. */
  done(result?: ParseResult): void;
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const WORDS: Record<ParseResult["status"], string> = {
  pending: "queued",
  processing: "parsing",
  successful: "done",
  failure: "failed",
};

function pages(result: ParseResult): string {
  if (result.total_pages === null || result.total_pages === undefined) return "";
  return `, ${result.parsed_pages_count}/${result.total_pages} pages`;
}

/**
 * A one-line progress display of a parse job on a terminal: status, pages parsed and elapsed time, redrawn in
 * place; a summary line when it ends. Nothing at all when the stream is not a terminal, so pipes and logs
 * stay clean.
 */
export function parseProgress(stream: ProgressStream, parseId: string): ParseProgress {
  if (!stream.isTTY) return { update() {}, done() {} };
  const started = Date.now();
  let last: ParseResult | undefined;
  let frame = 0;
  const seconds = () => `${((Date.now() - started) / 1000).toFixed(1)}s`;
  const draw = () => {
    const state = last ? `${WORDS[last.status]}${pages(last)}` : "starting";
    stream.write(`\r\x1b[2K${FRAMES[frame++ % FRAMES.length]} ${parseId} ${state} ${seconds()}`);
  };
  const timer = setInterval(draw, 100);
  timer.unref();
  draw();
  return {
    update(result) {
      last = result;
      draw();
    },
    done(result = last) {
      clearInterval(timer);
      const state = result ? `${WORDS[result.status]}${pages(result)}` : "stopped";
      stream.write(`\r\x1b[2K${parseId} ${state} in ${seconds()}\n`);
    },
  };
}
