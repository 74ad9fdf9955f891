import { ServiceError } from "@svc/contract/errors";
import { type OutputStream, type RunExitEvent, runtimeRoutes } from "@svc/contract/runtime";
import { encodeSseComment, encodeSseEvent, SSE_CONTENT_TYPE } from "@svc/contract/sse";
import { type DaemonApp, type DaemonReply, serve } from "../app.ts";
import type { ManagedProcess, ProcessManager } from "./manager.ts";
import { lineCount, type OutputBlock, type OutputCursor } from "./output.ts";
import {
  FOLLOW_EOF_FRAME,
  followEncoder,
  lineListEncoder,
  type OutputEncoder,
  runEncoder,
} from "./output-frames.ts";
import { signalNumber } from "./signals.ts";
import { StreamResponse } from "./stream-response.ts";

/**
 * After a run's process exits, how long its stream waits for the output pipes to close (they stay open while a
 * background descendant holds them) before it sends the final frame anyway.
 */
const RUN_OUTPUT_GRACE_MS = 1000;
/** A comment frame this often keeps an idle stream open through proxies. */
const KEEPALIVE_MS = 15000;

/** The process routes of the runtime API. */
export function registerProcessRoutes(app: DaemonApp, processes: ProcessManager): void {
  serve(app, runtimeRoutes.runProcess, async ({ body, reply }) => {
    const managed = await processes.start({
      ...body,
      stdin_mode: "closed",
      stdout_mode: "capture",
      stderr_mode: "capture",
    });
    await streamRun(managed, reply, processes);
    return reply;
  });

  serve(app, runtimeRoutes.startProcess, async ({ body }) => (await processes.start(body)).toRecord());

  serve(app, runtimeRoutes.listProcesses, () => ({ processes: processes.list().map((p) => p.toRecord()) }));

  serve(app, runtimeRoutes.getProcess, ({ params }) => processes.get(params.pid).toRecord());

  serve(app, runtimeRoutes.killProcess, async ({ params }) => {
    await processes.kill(params.pid);
    return undefined;
  });

  serve(app, runtimeRoutes.signalProcess, ({ params, body }) => {
    const managed = processes.get(params.pid);
    const signal = signalNumber(body.signal);
    if (signal === undefined) {
      throw new ServiceError(
        "INVALID_SIGNAL",
        `${JSON.stringify(body.signal)} is not a signal number or name`,
      );
    }
    return { success: managed.sendSignal(signal) };
  });

  serve(app, runtimeRoutes.writeProcessStdin, async ({ params, request }) => {
    await processes.get(params.pid).writeStdin(request.raw);
    return undefined;
  });

  serve(app, runtimeRoutes.closeProcessStdin, async ({ params }) => {
    await processes.get(params.pid).closeStdin();
    return undefined;
  });

  const outputRoutes = [
    [runtimeRoutes.getProcessStdout, "stdout"],
    [runtimeRoutes.getProcessStderr, "stderr"],
    [runtimeRoutes.getProcessOutput, undefined],
  ] as const;
  for (const [route, stream] of outputRoutes) {
    serve(app, route, async ({ params, reply }) => {
      await sendLines(processes.get(params.pid), stream, reply);
      return reply;
    });
  }

  const followRoutes = [
    [runtimeRoutes.followProcessStdout, "stdout"],
    [runtimeRoutes.followProcessStderr, "stderr"],
    [runtimeRoutes.followProcessOutput, undefined],
  ] as const;
  for (const [route, stream] of followRoutes) {
    serve(app, route, async ({ params, reply }) => {
      await streamFollow(processes.get(params.pid), stream, reply);
      return reply;
    });
  }
}

/** Copies a cursor's blocks, encoded, to the response until the cursor ends or the client goes away. */
async function pump(
  cursor: OutputCursor,
  encoder: OutputEncoder,
  out: StreamResponse,
  onBlocks?: (blocks: OutputBlock[]) => void,
): Promise<void> {
  const emit = (text: string, ascii: boolean) => out.write(text, ascii ? "latin1" : "utf8");
  for (let blocks = await cursor.next(); blocks && !out.closed; blocks = await cursor.next()) {
    encoder.encode(blocks, emit);
    onBlocks?.(blocks);
    await out.ready();
  }
}

function exitEvent(managed: ManagedProcess): RunExitEvent {
  if (managed.status === "exited") return { exit_code: managed.exitCode ?? 0 };
  return { signal: managed.signal ?? 9, oom_killed: managed.oomKilled };
}

/**
 * The run stream: a start frame, every output line tagged with its stream, the exit frame. A client that goes
 * away before the end takes its process with it (the process group is killed).
 */
async function streamRun(
  managed: ManagedProcess,
  reply: DaemonReply,
  processes: ProcessManager,
): Promise<void> {
  const out = new StreamResponse(reply, SSE_CONTENT_TYPE);
  const cursor = managed.output.cursor();
  out.onAbort(() => {
    cursor.close();
    if (managed.running) processes.kill(managed.pid).catch(() => {});
  });
  const keepalive = setInterval(() => out.write(encodeSseComment("keepalive")), KEEPALIVE_MS);
  const encoder = runEncoder();
  let grace: NodeJS.Timeout | undefined;
  void managed.exited.then(() => {
    grace = setTimeout(() => cursor.stopAtCurrent(), RUN_OUTPUT_GRACE_MS);
  });
  try {
    out.write(
      encodeSseEvent({ data: { handle: managed.handle, pid: managed.pid, started_at: managed.startedAt } }),
    );
    await pump(cursor, encoder, out);
    await managed.exited;
    out.end(encodeSseEvent({ data: exitEvent(managed) }));
  } catch {
    out.abort();
  } finally {
    clearInterval(keepalive);
    clearTimeout(grace);
    cursor.close();
  }
}

/** A follow stream: the captured lines, then live ones, then `eof` once the output has ended. */
async function streamFollow(
  managed: ManagedProcess,
  stream: OutputStream | undefined,
  reply: DaemonReply,
): Promise<void> {
  const out = new StreamResponse(reply, SSE_CONTENT_TYPE);
  const cursor = managed.output.cursor({ stream });
  out.onAbort(() => cursor.close());
  const keepalive = setInterval(() => out.write(encodeSseComment("keepalive")), KEEPALIVE_MS);
  try {
    await pump(cursor, followEncoder(stream === undefined), out);
    out.end(FOLLOW_EOF_FRAME);
  } catch {
    out.abort();
  } finally {
    clearInterval(keepalive);
    cursor.close();
  }
}

/** `{pid, lines, line_count}` of the lines captured so far, written as it is read (output may be large). */
async function sendLines(
  managed: ManagedProcess,
  stream: OutputStream | undefined,
  reply: DaemonReply,
): Promise<void> {
  const cursor = managed.output.cursor({ stream, snapshot: true });
  const out = new StreamResponse(reply, "application/json; charset=utf-8");
  let count = 0;
  try {
    out.write(`{"pid":${managed.pid},"lines":[`);
    await pump(cursor, lineListEncoder(), out, (blocks) => {
      for (const block of blocks) count += lineCount(block);
    });
    out.end(`],"line_count":${count}}`);
  } catch {
    out.abort();
  } finally {
    cursor.close();
  }
}
