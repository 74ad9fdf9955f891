import { Client } from "@svc/sdk";
import { usageOf } from "../help.ts";
import { parse, printTable, UsageError } from "../usage.ts";

const USAGE = usageOf("registry");

/** The password from stdin (never argv, where other users of the machine could read it), without its newline. */
async function readPassword(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
}

/** `svc registry login|list|logout`: the project's credentials for OCI registries. */
export async function registryCommand(args: string[]): Promise<number | undefined> {
  const [sub, ...rest] = args;
  const client = new Client();
  switch (sub) {
    case "login": {
      const { values, positionals } = parse(
        rest,
        { username: { type: "string" }, "password-stdin": { type: "boolean" } },
        1,
      );
      const registry = positionals[0];
      if (!registry || !values.username || !values["password-stdin"]) throw new UsageError(USAGE);
      const password = await readPassword();
      if (!password) throw new UsageError("no password on stdin");
      const saved = await client.registries.put(registry, { username: values.username, password });
      if (values.json) console.log(JSON.stringify(saved, null, 2));
      else console.log(`saved credentials of ${saved.username} for ${saved.registry}`);
      return 0;
    }
    case "list": {
      const { values } = parse(rest, {});
      printTable(await client.registries.list(), ["registry", "username", "updated_at"], values.json);
      return 0;
    }
    case "logout": {
      const { positionals } = parse(rest, {}, 1);
      if (!positionals[0]) throw new UsageError(USAGE);
      await client.registries.delete(positionals[0]);
      console.log(`deleted the credentials for ${positionals[0]}`);
      return 0;
    }
    default:
      throw new UsageError(USAGE);
  }
}
