import { spawnSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { Client } from "@svc/sdk";
import { usageOf } from "../help.ts";
import { parse, printFields, printTable, UsageError } from "../usage.ts";

const USAGE = usageOf("template");

/** `svc template create|list|get|delete`: named root disks that sandboxes start from. */
export async function templateCommand(args: string[]): Promise<number | undefined> {
  const [sub, ...rest] = args;
  const client = new Client();
  switch (sub) {
    case "create": {
      const { values, positionals } = parse(
        rest,
        { snapshot: { type: "string" }, dir: { type: "string" }, tar: { type: "string" } },
        1,
      );
      const name = positionals[0];
      const sources = [values.snapshot, values.dir, values.tar].filter((v) => v !== undefined);
      if (!name || sources.length !== 1) throw new UsageError(USAGE);
      let template: Awaited<ReturnType<typeof client.templates.get>>;
      if (values.snapshot) template = await client.templates.fromSnapshot(name, values.snapshot);
      else {
        let tar: Buffer;
        if (values.dir) {
          if (!statSync(values.dir).isDirectory()) throw new UsageError(`${values.dir} is not a directory`);
          const made = spawnSync("tar", ["-cz", "-C", values.dir, "."], { maxBuffer: 4 * 1024 ** 3 });
          if (made.status !== 0)
            throw new UsageError(`tar of ${values.dir} failed: ${made.stderr?.toString().trim()}`);
          tar = made.stdout;
        } else tar = readFileSync(values.tar as string);
        template = await client.templates.fromTree(name, tar);
      }
      if (values.json) console.log(JSON.stringify(template, null, 2));
      else console.log(`created template ${template.name} (${template.template_id})`);
      return 0;
    }
    case "list": {
      const { values } = parse(rest, {});
      printTable(
        await client.templates.list(),
        ["template_id", "name", "source", "base_image", "size_bytes"],
        values.json,
      );
      return 0;
    }
    case "get": {
      const { values, positionals } = parse(rest, {}, 1);
      if (!positionals[0]) throw new UsageError(USAGE);
      printFields(await client.templates.get(positionals[0]), values.json);
      return 0;
    }
    case "delete": {
      const { positionals } = parse(rest, {}, 1);
      if (!positionals[0]) throw new UsageError(USAGE);
      await client.templates.delete(positionals[0]);
      console.log(`deleted ${positionals[0]}`);
      return 0;
    }
    default:
      throw new UsageError(USAGE);
  }
}
