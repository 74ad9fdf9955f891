import { Client } from "@svc/sdk";
import { usageOf } from "../help.ts";
import { parse, printTable, UsageError } from "../usage.ts";

/** `svc projects create|list`: project management through the admin API. */
export async function projectsCommand(args: string[]): Promise<number | undefined> {
  const [sub, ...rest] = args;
  const client = new Client();
  switch (sub) {
    case "create": {
      const { values, positionals } = parse(rest, {}, 1);
      if (!positionals[0]) throw new UsageError("projects create needs a name");
      const project = await client.projects.create(positionals[0]);
      if (values.json) console.log(JSON.stringify(project, null, 2));
      else console.log(`created project ${project.name} (${project.id})`);
      return 0;
    }
    case "list": {
      const { values } = parse(rest, {});
      printTable(await client.projects.list(), ["id", "name", "created_at"], values.json);
      return 0;
    }
    default:
      throw new UsageError(usageOf("projects"));
  }
}
