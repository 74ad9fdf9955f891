import { Client } from "@svc/sdk";
import { usageOf } from "../help.ts";
import { integerOption, numberOption, parse, printFields, printTable, UsageError } from "../usage.ts";

const USAGE = usageOf("pool");

/** `svc pool create|list|get|delete|claim`: warm pools of sandboxes. */
export async function poolCommand(args: string[]): Promise<number | undefined> {
  const [sub, ...rest] = args;
  const client = new Client();
  switch (sub) {
    case "create": {
      const { values } = parse(rest, {
        warm: { type: "string" },
        max: { type: "string" },
        image: { type: "string" },
        cpus: { type: "string" },
        memory: { type: "string" },
        disk: { type: "string" },
        timeout: { type: "string" },
      });
      const cpus = numberOption(values.cpus, "cpus");
      if (cpus !== undefined && !(cpus > 0)) throw new UsageError("--cpus needs a positive number");
      const created = await client.pools.create({
        image: values.image,
        warm_containers: numberOption(values.warm, "warm", { integer: true, min: 0 }),
        max_containers: integerOption(values.max, "max"),
        timeout_secs: numberOption(values.timeout, "timeout", { integer: true, min: 0 }),
        resources: {
          cpus,
          memory_mb: integerOption(values.memory, "memory"),
          disk_mb: integerOption(values.disk, "disk"),
        },
      });
      if (values.json) console.log(JSON.stringify(created));
      else console.log(created.pool_id);
      return 0;
    }
    case "list": {
      const { values } = parse(rest, {});
      const pools = (await client.pools.list()).map((pool) => ({
        ...pool,
        idle: pool.containers.filter((c) => c.state === "Idle").length,
        claimed: pool.containers.filter((c) => c.state === "Running").length,
      }));
      printTable(pools, ["pool_id", "warm_containers", "max_containers", "idle", "claimed"], values.json);
      return 0;
    }
    case "get": {
      const { values, positionals } = parse(rest, {}, 1);
      if (!positionals[0]) throw new UsageError(USAGE);
      printFields(await client.pools.get(positionals[0]), values.json);
      return 0;
    }
    case "delete": {
      const { positionals } = parse(rest, {}, 1);
      if (!positionals[0]) throw new UsageError(USAGE);
      await client.pools.delete(positionals[0]);
      console.log(`deleted ${positionals[0]}`);
      return 0;
    }
    case "claim": {
      const { values, positionals } = parse(rest, {}, 1);
      if (!positionals[0]) throw new UsageError(USAGE);
      const claimed = await client.pools.claim(positionals[0]);
      if (values.json) console.log(JSON.stringify(claimed, null, 2));
      else console.log(`${claimed.sandbox_id} ${claimed.status}`);
      return 0;
    }
    default:
      throw new UsageError(USAGE);
  }
}
