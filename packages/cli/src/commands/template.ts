import { spawnSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { Client } from "@svc/sdk";
import { contextPaths } from "../dockerignore.ts";
import { usageOf } from "../help.ts";
import { parse, printFields, printTable, UsageError } from "../usage.ts";

const USAGE = usageOf("template");

/**
 * The context directory as a gzip tar, as `docker build` sends it (less what `.dockerignore` leaves out); a
 * Dockerfile outside the context is added as `.svc-dockerfile`, and the answer says where the Dockerfile is.
 */
function contextTar(dir: string, dockerfile: string | undefined): { tar: Buffer; dockerfile: string } {
  if (!statSync(dir).isDirectory()) throw new UsageError(`${dir} is not a directory`);
  const file = resolve(dockerfile ?? join(dir, "Dockerfile"));
  if (!statSync(file, { throwIfNoEntry: false })?.isFile()) throw new UsageError(`no Dockerfile at ${file}`);
  const inside = relative(resolve(dir), file);
  const outside = inside.startsWith("..") || isAbsolute(inside);
  const name = basename(file).replace(/[\\^$.*[\]|]/g, "\\$&");
  const paths = contextPaths(dir, outside ? [] : [inside.split(sep).join("/")]);
  const made = spawnSync(
    "tar",
    [
      "-cz",
      "--no-recursion",
      "--null",
      "-C",
      dir,
      "-T",
      "-",
      ...(outside ? ["-C", dirname(file), `--transform=s|^${name}$|.svc-dockerfile|`, basename(file)] : []),
    ],
    { input: paths.map((p) => `${p}\0`).join(""), maxBuffer: 4 * 1024 ** 3 },
  );
  if (made.status !== 0) throw new UsageError(`tar of ${dir} failed: ${made.stderr?.toString().trim()}`);
  return { tar: made.stdout, dockerfile: outside ? ".svc-dockerfile" : inside.split(sep).join("/") };
}

/** `svc template create|build|list|get|delete`: named root disks that sandboxes start from. */
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
    case "build": {
      const { values, positionals } = parse(
        rest,
        {
          file: { type: "string", short: "f" },
          "build-arg": { type: "string", multiple: true },
          "no-internet": { type: "boolean" },
          "allow-out": { type: "string", multiple: true },
          "deny-out": { type: "string", multiple: true },
        },
        2,
      );
      const name = positionals[0];
      if (!name) throw new UsageError(USAGE);
      const { tar, dockerfile } = contextTar(positionals[1] ?? ".", values.file);
      const buildArgs: Record<string, string> = {};
      for (const pair of values["build-arg"] ?? []) {
        const eq = pair.indexOf("=");
        if (eq <= 0) throw new UsageError(`--build-arg ${pair}: expected NAME=value`);
        buildArgs[pair.slice(0, eq)] = pair.slice(eq + 1);
      }
      const build = await client.templates.build(name, tar, {
        dockerfile,
        buildArgs,
        network: {
          ...(values["no-internet"] ? { allow_internet_access: false } : {}),
          ...(values["allow-out"] ? { allow_out: values["allow-out"] } : {}),
          ...(values["deny-out"] ? { deny_out: values["deny-out"] } : {}),
        },
        onLog: values.json
          ? undefined
          : (event) => (event.stream === "stderr" ? process.stderr : process.stdout).write(`${event.line}\n`),
      });
      if (values.json) console.log(JSON.stringify(build, null, 2));
      else if (build.status === "succeeded") {
        console.log(
          `built template ${name} (${build.template_id}), ${build.cached_steps}/${build.steps} steps cached`,
        );
      } else console.error(`build of ${name} failed: ${build.error}`);
      return build.status === "succeeded" ? 0 : 1;
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
