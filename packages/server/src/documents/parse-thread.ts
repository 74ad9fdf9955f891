import { setTimeout as sleep } from "node:timers/promises";
import { parentPort, workerData } from "node:worker_threads";
import { DocumentLoadError, parseDocument } from "@svc/docparse";
import type { ParseTask, ParseThreadReply } from "./parse-threads.ts";

/**
 * The body of a parse worker thread: runs docparse on each task it is sent and replies with the views, or with
 * the error. A task that crashes the thread or exhausts its heap ends only this thread.
 */
const port = parentPort;
if (!port) throw new Error("parse-thread.ts runs as a worker thread");
const testHooks = (workerData as { testHooks?: boolean } | undefined)?.testHooks === true;

/**
 * Test hooks, on only when the server was started with SVC_TEST_PARSE_HOOKS=1: raw text that starts with
 * `svc-test:sleep=<ms>` parses that much later; `svc-test:oom` allocates until the thread's heap limit ends it;
 * `svc-test:exit` ends the thread.
 */
async function runTestHook(text: string | undefined): Promise<void> {
  const directive = /^svc-test:(\w+)(?:=(\d+))?/.exec(text ?? "");
  if (!directive) return;
  if (directive[1] === "sleep") await sleep(Number(directive[2] ?? 1000));
  if (directive[1] === "exit") process.exit(70);
  if (directive[1] === "oom") {
    const hoard: unknown[] = [];
    for (;;) hoard.push(new Array(100_000).fill({ hoard }));
  }
}

port.on("message", async (task: ParseTask) => {
  let reply: ParseThreadReply;
  try {
    if (testHooks) await runTestHook(task.text);
    const { result } = await parseDocument({
      bytes: task.bytes,
      text: task.text,
      mimeType: task.mimeType,
      options: { parsing: task.parsingOptions, pageRange: task.pageRange },
    });
    reply = { id: task.id, kind: "ok", result };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    reply =
      error instanceof DocumentLoadError
        ? { id: task.id, kind: "load-error", message, code: error.code }
        : { id: task.id, kind: "error", message };
  }
  port.postMessage(reply);
});
