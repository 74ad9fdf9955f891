import { spawnSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { Client } from "@svc/sdk";
import { usageOf } from "../help.ts";
import { parse, printTable, UsageError } from "../usage.ts";

const USAGE = usageOf("fs");

/** A directory as a tar archive (GNU tar), or an archive file's bytes as they are. */
function archiveOf(source: string): Buffer {
  if (!statSync(source).isDirectory()) return readFileSync(source);
  const tar = spawnSync("tar", ["-c", "-C", source, "."], { maxBuffer: 4 * 1024 ** 3 });
  if (tar.status !== 0) throw new UsageError(`tar of ${source} failed: ${tar.stderr?.toString().trim()}`);
  return tar.stdout;
}

/** Reads stdin whole. */
async function stdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** `svc fs ...`: the project's named file systems, their files and their permanent snapshots. */
export async function fsCommand(args: string[]): Promise<number | undefined> {
  const [sub, ...rest] = args;
  const client = new Client();
  switch (sub) {
    case "create": {
      const { values, positionals } = parse(rest, { description: { type: "string" } }, 1);
      if (!positionals[0]) throw new UsageError("fs create needs a name");
      const created = await client.fileSystems.create({
        name: positionals[0],
        description: values.description,
      });
      if (values.json) console.log(JSON.stringify(created, null, 2));
      else console.log(`created ${created.name} (${created.id})`);
      return 0;
    }
    case "list": {
      const { values } = parse(rest, {});
      printTable(await client.fileSystems.list(), ["id", "name", "description", "created_at"], values.json);
      return 0;
    }
    case "delete": {
      const { positionals } = parse(rest, {}, 1);
      if (!positionals[0]) throw new UsageError("fs delete needs a file system");
      await client.fileSystems.delete(positionals[0]);
      console.log(`deleted ${positionals[0]}`);
      return 0;
    }
    case "push": {
      const { values, positionals } = parse(rest, { message: { type: "string" } }, 2);
      if (!positionals[1]) throw new UsageError(usageOf("fs", "push"));
      const result = await client.fileSystems.push(positionals[0], archiveOf(positionals[1]), {
        message: values.message,
      });
      if (values.json) console.log(JSON.stringify(result));
      else console.log(result.snapshot_id ? `pushed; snapshot ${result.snapshot_id}` : "pushed");
      return 0;
    }
    case "snapshot": {
      const { values, positionals } = parse(rest, { message: { type: "string" } }, 1);
      if (!positionals[0]) throw new UsageError("fs snapshot needs a file system");
      const snapshot = await client.fileSystems.snapshot(positionals[0], { message: values.message });
      if (values.json) console.log(JSON.stringify(snapshot, null, 2));
      else console.log(snapshot.snapshot_id);
      return 0;
    }
    case "snapshots": {
      const { values, positionals } = parse(rest, {}, 1);
      if (!positionals[0]) throw new UsageError("fs snapshots needs a file system");
      printTable(
        await client.fileSystems.snapshots(positionals[0]),
        ["snapshot_id", "message", "created_at"],
        values.json,
      );
      return 0;
    }
    case "ls": {
      const { values, positionals } = parse(rest, {}, 1);
      if (!positionals[0]) throw new UsageError("fs ls needs a file system");
      const entries = await client.fileSystems.tree(positionals[0]);
      printTable(
        entries.map((e) => ({
          ...e,
          type: e.is_dir ? "dir" : "file",
          modified: new Date(e.modified_at).toISOString(),
        })),
        ["type", "size", "modified", "path"],
        values.json,
      );
      return 0;
    }
    case "cat": {
      const { positionals } = parse(rest, {}, 2);
      if (!positionals[1]) throw new UsageError(usageOf("fs", "cat"));
      process.stdout.write(await client.fileSystems.read(positionals[0], positionals[1]));
      return 0;
    }
    case "put": {
      const { positionals } = parse(rest, {}, 3);
      if (!positionals[2]) throw new UsageError(usageOf("fs", "put"));
      const data = positionals[2] === "-" ? await stdin() : readFileSync(positionals[2]);
      await client.fileSystems.write(positionals[0], positionals[1], data);
      return 0;
    }
    default:
      throw new UsageError(USAGE);
  }
}
