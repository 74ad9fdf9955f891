import type { Labels } from "@svc/contract";
import { Client } from "@svc/sdk";
import { usageOf } from "../help.ts";
import {
  integerOption,
  LIST_OPTIONS,
  listItems,
  parse,
  printFields,
  printTable,
  UsageError,
} from "../usage.ts";

const COLUMNS = ["file_id", "file_name", "mime_type", "file_size", "created_at"];

/** `--label KEY=VALUE`, repeated, as labels. */
function labelsOption(values: string[] | undefined): Labels | undefined {
  if (!values || values.length === 0) return undefined;
  const labels: Labels = {};
  for (const value of values) {
    const eq = value.indexOf("=");
    if (eq < 1) throw new UsageError("--label takes KEY=VALUE");
    labels[value.slice(0, eq)] = value.slice(eq + 1);
  }
  return labels;
}

/** `svc files upload|list|get|delete`: files uploaded to the documents API. */
export async function filesCommand(args: string[]): Promise<number | undefined> {
  const [sub, ...rest] = args;
  const files = new Client().documents.files;
  switch (sub) {
    case "upload": {
      const { values, positionals } = parse(
        rest,
        { label: { type: "string", multiple: true }, mime: { type: "string" } },
        1,
      );
      if (!positionals[0]) throw new UsageError("files upload needs a file path");
      const uploaded = await files.upload(positionals[0], {
        labels: labelsOption(values.label),
        contentType: values.mime,
      });
      if (values.json) console.log(JSON.stringify(uploaded, null, 2));
      else console.log(`uploaded ${positionals[0]} as ${uploaded.file_id}`);
      return 0;
    }
    case "list": {
      const { values } = parse(rest, LIST_OPTIONS);
      const limit = integerOption(values.limit, "limit");
      const items = await listItems(
        values,
        { page: (cursor) => files.list({ limit, cursor }), iterate: () => files.iterate({ limit }) },
        "svc files list",
      );
      printTable(items, COLUMNS, values.json);
      return 0;
    }
    case "get": {
      const { values, positionals } = parse(rest, {}, 1);
      if (!positionals[0]) throw new UsageError("files get needs a file id");
      printFields(await files.get(positionals[0]), values.json);
      return 0;
    }
    case "delete": {
      const { values, positionals } = parse(rest, {}, 1);
      if (!positionals[0]) throw new UsageError("files delete needs a file id");
      await files.delete(positionals[0]);
      if (values.json) console.log(JSON.stringify({ file_id: positionals[0], deleted: true }));
      else console.log(`deleted ${positionals[0]}`);
      return 0;
    }
    default:
      throw new UsageError(usageOf("files"));
  }
}
