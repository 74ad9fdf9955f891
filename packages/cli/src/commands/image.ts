import { createReadStream, statSync } from "node:fs";
import { Readable } from "node:stream";
import { Client } from "@svc/sdk";
import { usageOf } from "../help.ts";
import { parse, printFields, printTable, UsageError } from "../usage.ts";

const USAGE = usageOf("image");

/** `svc image upload|list|get|delete`: images uploaded as `docker save` or OCI archives. */
export async function imageCommand(args: string[]): Promise<number | undefined> {
  const [sub, ...rest] = args;
  const client = new Client();
  switch (sub) {
    case "upload": {
      const { values, positionals } = parse(rest, {}, 2);
      const [name, file] = positionals;
      if (!name || !file) throw new UsageError(USAGE);
      if (!statSync(file, { throwIfNoEntry: false })?.isFile()) throw new UsageError(`${file} is not a file`);
      const body = Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array>;
      const image = await client.images.upload(name, body);
      if (values.json) console.log(JSON.stringify(image, null, 2));
      else console.log(`uploaded image ${image.name} (${image.digest}); use it with --image ${image.name}`);
      return 0;
    }
    case "list": {
      const { values } = parse(rest, {});
      printTable(await client.images.list(), ["name", "digest", "size_bytes", "user"], values.json);
      return 0;
    }
    case "get": {
      const { values, positionals } = parse(rest, {}, 1);
      if (!positionals[0]) throw new UsageError(USAGE);
      printFields(await client.images.get(positionals[0]), values.json);
      return 0;
    }
    case "delete": {
      const { positionals } = parse(rest, {}, 1);
      if (!positionals[0]) throw new UsageError(USAGE);
      await client.images.delete(positionals[0]);
      console.log(`deleted ${positionals[0]}`);
      return 0;
    }
    default:
      throw new UsageError(USAGE);
  }
}
