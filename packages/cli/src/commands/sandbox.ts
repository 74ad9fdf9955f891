import type { Sandbox as SandboxRecord } from "@svc/contract";
import { Client } from "@svc/sdk";
import { usageOf } from "../help.ts";
import { type NumberRange, numberOption, parse, printTable, UsageError } from "../usage.ts";
import { waitForSandbox } from "./sandbox-wait.ts";

function printRecord(record: SandboxRecord, json: boolean | undefined): void {
  if (json) {
    console.log(JSON.stringify(record, null, 2));
    return;
  }
  const lines: [string, unknown][] = [
    ["id", record.id],
    ["name", record.name],
    ["status", record.status],
    ["pending_reason", record.status === "pending" ? record.pending_reason : undefined],
    ["termination_reason", record.termination_reason],
    ["error_details", record.error_details],
    [
      "resources",
      `${record.resources.cpus} cpu, ${record.resources.memory_mb} MiB memory, ${record.resources.disk_mb} MiB disk`,
    ],
    ["url", record.sandbox_url],
    ["exposed_ports", record.exposed_ports?.join(", ")],
    [
      "file_systems",
      record.file_systems
        ?.map(
          (m) =>
            `${m.file_system_id}${m.snapshot_id ? `@${m.snapshot_id}` : ""} at ${m.mount_path}${m.read_only ? " (ro)" : ""}`,
        )
        .join(", ") || undefined,
    ],
    ["created_at", new Date(record.created_at).toISOString()],
  ];
  for (const [key, value] of lines)
    if (value !== undefined && value !== null) console.log(`${key.padEnd(19)}${value}`);
}

const PORT: NumberRange = { integer: true, min: 1, max: 65535 };

const portsOption = (value: string | undefined): number[] | undefined =>
  value === undefined
    ? undefined
    : value === ""
      ? []
      : value.split(",").map((p) => numberOption(p.trim(), "ports", PORT) as number);

/** `svc sandbox create|list|get|update|delete|mount|unmount|suspend|resume|snapshot`. */
export async function sandboxCommand(args: string[]): Promise<number | undefined> {
  const [sub, ...rest] = args;
  const client = new Client();
  switch (sub) {
    case "create": {
      const { values } = parse(rest, {
        name: { type: "string" },
        image: { type: "string" },
        cpus: { type: "string" },
        memory: { type: "string" },
        disk: { type: "string" },
        timeout: { type: "string" },
        ports: { type: "string" },
        "no-wait": { type: "boolean" },
      });
      const sandbox = await client.sandboxes.create({
        name: values.name,
        image: values.image,
        resources: {
          cpus: numberOption(values.cpus, "cpus"),
          memory_mb: numberOption(values.memory, "memory"),
          disk_mb: numberOption(values.disk, "disk"),
        },
        timeout_secs: numberOption(values.timeout, "timeout"),
        exposed_ports: portsOption(values.ports),
      });
      const record = values["no-wait"]
        ? await sandbox.refresh()
        : await waitForSandbox(sandbox, process.stderr);
      printRecord(record, values.json);
      return 0;
    }
    case "list": {
      const { values } = parse(rest, { all: { type: "boolean" }, limit: { type: "string" } });
      const page = await client.sandboxes.list({
        status: values.all ? undefined : "running",
        limit: numberOption(values.limit, "limit"),
      });
      const rows = page.sandboxes.map((s) => ({
        ...s,
        cpus: s.resources.cpus,
        memory_mb: s.resources.memory_mb,
      }));
      printTable(rows, ["id", "name", "status", "cpus", "memory_mb", "created_at"], values.json);
      return 0;
    }
    case "get": {
      const { values, positionals } = parse(rest, {}, 1);
      if (!positionals[0]) throw new UsageError("sandbox get needs a sandbox id or name");
      printRecord((await client.sandboxes.get(positionals[0])).record as SandboxRecord, values.json);
      return 0;
    }
    case "update": {
      const { values, positionals } = parse(
        rest,
        { name: { type: "string" }, ports: { type: "string" }, public: { type: "string" } },
        1,
      );
      if (!positionals[0]) throw new UsageError("sandbox update needs a sandbox id or name");
      if (values.public !== undefined && values.public !== "true" && values.public !== "false") {
        throw new UsageError("--public takes true or false");
      }
      const sandbox = await client.sandboxes.get(positionals[0]);
      const record = await sandbox.update({
        name: values.name,
        exposed_ports: portsOption(values.ports),
        allow_unauthenticated_access: values.public === undefined ? undefined : values.public === "true",
      });
      printRecord(record, values.json);
      return 0;
    }
    case "delete": {
      const { values, positionals } = parse(rest, {}, 1);
      if (!positionals[0]) throw new UsageError("sandbox delete needs a sandbox id or name");
      const record = await (await client.sandboxes.get(positionals[0])).delete();
      if (values.json) console.log(JSON.stringify(record, null, 2));
      else console.log(`deleted ${record.id}`);
      return 0;
    }
    case "mount": {
      const { values, positionals } = parse(
        rest,
        { "read-only": { type: "boolean" }, snapshot: { type: "string" } },
        3,
      );
      const [sandboxId, fileSystem, mountPath] = positionals;
      if (!mountPath) throw new UsageError(usageOf("sandbox", "mount"));
      const sandbox = await client.sandboxes.get(sandboxId);
      const record = await sandbox.mount({
        file_system_id: fileSystem,
        mount_path: mountPath,
        read_only: values["read-only"] === true || values.snapshot !== undefined,
        ...(values.snapshot ? { snapshot_id: values.snapshot } : {}),
      });
      printRecord(record, values.json);
      return 0;
    }
    case "suspend":
    case "resume": {
      const { values, positionals } = parse(rest, {}, 1);
      if (!positionals[0]) throw new UsageError(usageOf("sandbox", sub));
      const sandbox = await client.sandboxes.get(positionals[0]);
      printRecord(sub === "suspend" ? await sandbox.suspend() : await sandbox.resume(), values.json);
      return 0;
    }
    case "snapshot": {
      const { values, positionals } = parse(rest, { "no-wait": { type: "boolean" } }, 1);
      if (!positionals[0]) throw new UsageError(usageOf("sandbox", "snapshot"));
      const { snapshot_id } = await (await client.sandboxes.get(positionals[0])).snapshot();
      const snapshot = values["no-wait"]
        ? await client.snapshots.get(snapshot_id)
        : await client.snapshots.wait(snapshot_id);
      if (values.json) console.log(JSON.stringify(snapshot, null, 2));
      else console.log(`${snapshot.snapshot_id} ${snapshot.status}`);
      return 0;
    }
    case "unmount": {
      const { values, positionals } = parse(rest, {}, 2);
      if (!positionals[1]) throw new UsageError(usageOf("sandbox", "unmount"));
      printRecord(await (await client.sandboxes.get(positionals[0])).unmount(positionals[1]), values.json);
      return 0;
    }
    default:
      throw new UsageError(usageOf("sandbox"));
  }
}
