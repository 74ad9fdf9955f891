import { Client } from "@svc/sdk";
import { usageOf } from "../help.ts";
import { parse, printFields, printTable, UsageError } from "../usage.ts";

/** `svc snapshot list|get|delete`: sandbox snapshots (taken with `svc sandbox snapshot`). */
export async function snapshotCommand(args: string[]): Promise<number | undefined> {
  const [sub, ...rest] = args;
  const client = new Client();
  switch (sub) {
    case "list": {
      const { values } = parse(rest, {});
      printTable(
        await client.snapshots.list(),
        ["snapshot_id", "sandbox_id", "status", "size_bytes", "created_at"],
        values.json,
      );
      return 0;
    }
    case "get": {
      const { values, positionals } = parse(rest, {}, 1);
      if (!positionals[0]) throw new UsageError(usageOf("snapshot", "get"));
      printFields(await client.snapshots.get(positionals[0]), values.json);
      return 0;
    }
    case "delete": {
      const { positionals } = parse(rest, {}, 1);
      if (!positionals[0]) throw new UsageError(usageOf("snapshot", "delete"));
      await client.snapshots.delete(positionals[0]);
      console.log(`deleted ${positionals[0]}`);
      return 0;
    }
    default:
      throw new UsageError(usageOf("snapshot"));
  }
}
