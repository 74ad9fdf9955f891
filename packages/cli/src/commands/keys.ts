import { Client } from "@svc/sdk";
import { usageOf } from "../help.ts";
import { parse, printTable, UsageError } from "../usage.ts";

/** `svc keys create|list|delete`: API key management through the admin API. */
export async function keysCommand(args: string[]): Promise<number | undefined> {
  const [sub, ...rest] = args;
  const client = new Client();
  switch (sub) {
    case "create": {
      const { values } = parse(rest, { project: { type: "string" }, name: { type: "string" } });
      const created = await client.keys.create({ project: values.project, name: values.name });
      if (values.json) console.log(JSON.stringify(created, null, 2));
      else
        console.log(
          `created ${created.id} in project ${created.project_id}; the key (shown once):\n${created.key}`,
        );
      return 0;
    }
    case "list": {
      const { values } = parse(rest, { project: { type: "string" } });
      const keys = await client.keys.list({ project: values.project });
      printTable(keys, ["id", "name", "prefix", "project_id", "created_at", "last_used_at"], values.json);
      return 0;
    }
    case "delete": {
      const { positionals } = parse(rest, {}, 1);
      if (!positionals[0]) throw new UsageError("keys delete needs a key id");
      await client.keys.delete(positionals[0]);
      console.log(`deleted ${positionals[0]}`);
      return 0;
    }
    default:
      throw new UsageError(usageOf("keys"));
  }
}
