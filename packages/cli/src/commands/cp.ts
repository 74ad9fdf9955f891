import { createReadStream, createWriteStream } from "node:fs";
import { stat } from "node:fs/promises";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { Client } from "@svc/sdk";
import { usageOf } from "../help.ts";
import { parse, UsageError } from "../usage.ts";

/** `<sandbox>:<path>` → its parts; a plain path is local. */
function remote(spec: string): { sandbox: string; path: string } | null {
  const match = /^([A-Za-z0-9][A-Za-z0-9_-]*):(.+)$/.exec(spec);
  return match ? { sandbox: match[1], path: match[2] } : null;
}

/** `svc cp <src> <dst>`: one side `<sandbox>:<path>`, the other a local file; streamed both ways. */
export async function cpCommand(args: string[]): Promise<number | undefined> {
  const { positionals } = parse(args, {}, 2);
  const [src, dst] = positionals;
  if (!src || !dst) throw new UsageError(usageOf("cp"));
  const from = remote(src);
  const to = remote(dst);
  if ((from && to) || (!from && !to)) throw new UsageError("exactly one side of svc cp is <sandbox>:<path>");
  const client = new Client();
  if (from) {
    const sandbox = await client.sandboxes.get(from.sandbox);
    const stream = await sandbox.files.readStream(from.path);
    await pipeline(Readable.fromWeb(stream as never), dst === "-" ? process.stdout : createWriteStream(dst));
  } else if (to) {
    if ((await stat(src)).isDirectory()) throw new UsageError(`${src} is a directory: svc cp copies files`);
    const sandbox = await client.sandboxes.get(to.sandbox);
    await sandbox.files.write(to.path, Readable.toWeb(createReadStream(src)) as ReadableStream<Uint8Array>);
  }
  return 0;
}
