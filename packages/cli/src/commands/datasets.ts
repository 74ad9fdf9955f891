import { readFile } from "node:fs/promises";
import type {
  ChunkingStrategy,
  CreateDatasetRequest,
  Dataset,
  ParseResult,
  ParseStatus,
  ParsingOptions,
  TableOutputMode,
} from "@svc/contract";
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

const CHUNKING = ["none", "page", "section", "fragment"];
const TABLES = ["markdown", "html"];
const STATUSES = ["pending", "processing", "successful", "failure"];

const settingOptions = {
  description: { type: "string" },
  chunking: { type: "string" },
  tables: { type: "string" },
  settings: { type: "string" },
} as const;

const SETTINGS_FIELDS = [
  "structured_extraction_options",
  "page_classifications",
  "enrichment_options",
] as const;
type SettingsFile = Pick<CreateDatasetRequest, (typeof SETTINGS_FIELDS)[number]>;

/**
 * The extraction, classification and enrichment settings of `--settings FILE`: a JSON object with any of
 * structured_extraction_options, page_classifications and enrichment_options (the server checks them).
 */
async function settingsFile(file: string | undefined): Promise<SettingsFile> {
  if (file === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    throw new UsageError(`--settings: cannot read JSON from ${file}: ${(error as Error).message}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new UsageError("--settings needs a JSON object");
  const unknown = Object.keys(parsed).filter((key) => !(SETTINGS_FIELDS as readonly string[]).includes(key));
  if (unknown.length > 0)
    throw new UsageError(`--settings: ${unknown.join(", ")} not one of ${SETTINGS_FIELDS.join(", ")}`);
  return parsed as SettingsFile;
}

/** The parsing options --chunking and --tables set, over `current`; undefined when neither is given. */
function parsingOptions(
  values: { chunking?: string; tables?: string },
  current: ParsingOptions = {},
): ParsingOptions | undefined {
  if (values.chunking === undefined && values.tables === undefined) return undefined;
  if (values.chunking !== undefined && !CHUNKING.includes(values.chunking))
    throw new UsageError(`--chunking takes ${CHUNKING.join(", ")}`);
  if (values.tables !== undefined && !TABLES.includes(values.tables))
    throw new UsageError(`--tables takes ${TABLES.join(", ")}`);
  return {
    ...current,
    ...(values.chunking ? { chunking_strategy: values.chunking as ChunkingStrategy } : {}),
    ...(values.tables ? { table_output_mode: values.tables as TableOutputMode } : {}),
  };
}

function printDataset(dataset: Dataset, json: boolean | undefined): void {
  if (json) {
    console.log(JSON.stringify(dataset, null, 2));
    return;
  }
  const { parsing_options, analytics, ...rest } = dataset;
  printFields(
    {
      ...rest,
      chunking: parsing_options?.chunking_strategy,
      tables: parsing_options?.table_output_mode,
      ...(analytics
        ? {
            jobs: Object.entries(analytics)
              .map(([k, v]) => `${k} ${v}`)
              .join(", "),
          }
        : {}),
    },
    false,
  );
}

const dataRow = (result: ParseResult) => ({
  ...result,
  pages:
    result.total_pages === null || result.total_pages === undefined
      ? "-"
      : `${result.parsed_pages_count}/${result.total_pages}`,
});

/** `svc datasets create|list|get|update|delete|data`: datasets by name or id. */
export async function datasetsCommand(args: string[]): Promise<number | undefined> {
  const [sub, ...rest] = args;
  const datasets = new Client().documents.datasets;
  switch (sub) {
    case "create": {
      const { values, positionals } = parse(rest, settingOptions, 1);
      if (!positionals[0]) throw new UsageError("datasets create needs a name");
      const created = await datasets.create({
        ...(await settingsFile(values.settings)),
        name: positionals[0],
        description: values.description,
        parsing_options: parsingOptions(values),
      });
      if (values.json) console.log(JSON.stringify(created, null, 2));
      else console.log(`created dataset ${created.name} (${created.dataset_id})`);
      return 0;
    }
    case "list": {
      const { values } = parse(rest, LIST_OPTIONS);
      const limit = integerOption(values.limit, "limit");
      const items = await listItems(
        values,
        { page: (cursor) => datasets.list({ limit, cursor }), iterate: () => datasets.iterate({ limit }) },
        "svc datasets list",
      );
      printTable(items, ["dataset_id", "name", "status", "description", "created_at"], values.json);
      return 0;
    }
    case "get": {
      const { values, positionals } = parse(rest, { analytics: { type: "boolean" } }, 1);
      if (!positionals[0]) throw new UsageError("datasets get needs a dataset name or id");
      printDataset(await datasets.get(positionals[0], { analytics: values.analytics }), values.json);
      return 0;
    }
    case "update": {
      const { values, positionals } = parse(rest, { ...settingOptions, name: { type: "string" } }, 1);
      if (!positionals[0]) throw new UsageError("datasets update needs a dataset name or id");
      const current = await datasets.get(positionals[0]);
      const updated = await datasets.update(current.dataset_id, {
        ...(await settingsFile(values.settings)),
        name: values.name,
        description: values.description,
        // The server replaces parsing_options whole: the options not named keep their current values.
        parsing_options: parsingOptions(values, current.parsing_options),
      });
      printDataset(updated, values.json);
      return 0;
    }
    case "delete": {
      const { values, positionals } = parse(rest, {}, 1);
      if (!positionals[0]) throw new UsageError("datasets delete needs a dataset name or id");
      const dataset = await datasets.get(positionals[0]);
      await datasets.delete(dataset.dataset_id);
      if (values.json) console.log(JSON.stringify({ dataset_id: dataset.dataset_id, deleted: true }));
      else console.log(`deleted dataset ${dataset.name} (${dataset.dataset_id})`);
      return 0;
    }
    case "data": {
      const { values, positionals } = parse(
        rest,
        {
          status: { type: "string" },
          limit: { type: "string" },
          cursor: { type: "string" },
          all: { type: "boolean" },
        },
        1,
      );
      if (!positionals[0]) throw new UsageError("datasets data needs a dataset name or id");
      if (values.status !== undefined && !STATUSES.includes(values.status))
        throw new UsageError(`--status takes ${STATUSES.join(", ")}`);
      const status = values.status as ParseStatus | undefined;
      const limit = integerOption(values.limit, "limit");
      const { dataset_id } = await datasets.get(positionals[0]);
      const items = await listItems(
        values,
        {
          page: (cursor) => datasets.data(dataset_id, { status, limit, cursor }),
          iterate: () => datasets.iterateData(dataset_id, { status, limit }),
        },
        `svc datasets data ${positionals[0]}`,
      );
      if (values.json) console.log(JSON.stringify(items, null, 2));
      else printTable(items.map(dataRow), ["parse_id", "status", "pages", "created_at", "error"], false);
      return 0;
    }
    default:
      throw new UsageError(usageOf("datasets"));
  }
}
