import {
  type CheckFailure,
  checkDatasetName,
  checkParseSettings,
  type Dataset,
  type documentRoutes,
  ServiceError,
  type UpdateDatasetRequest,
} from "@svc/contract";
import type { Handlers } from "../api/routes.ts";
import { newId, toRfc3339 } from "../store/ids.ts";
import type { DatasetRecord, DatasetRepository, DatasetSettings } from "./datasets.ts";
import { settingsWithDefaults } from "./job-request.ts";
import { type JobCounts, jobListFilters } from "./jobs.ts";
import { checkModelProviders } from "./model-providers.ts";
import { sendResultsAsJson, toParseResult } from "./parse-result.ts";
import { createJob, type ParseDeps } from "./parse-routes.ts";

type DatasetRoutes = Pick<
  typeof documentRoutes,
  | "createDataset"
  | "listDatasets"
  | "getDataset"
  | "updateDataset"
  | "deleteDataset"
  | "parseWithDataset"
  | "listDatasetData"
>;

function check(failure: CheckFailure | null): void {
  if (failure) throw new ServiceError(failure.code, failure.message);
}

export function toDataset(record: DatasetRecord, counts?: JobCounts): Dataset {
  return {
    name: record.name,
    dataset_id: record.id,
    status: record.status,
    description: record.description,
    created_at: toRfc3339(record.createdAt),
    updated_at: toRfc3339(record.updatedAt),
    ...record.settings,
    ...(counts
      ? {
          analytics: {
            pending: counts.pending,
            processing: counts.processing,
            successful: counts.successful,
            error: counts.failure,
          },
        }
      : {}),
  };
}

/** The settings after an update: each field given replaces the stored one; a field left out keeps its value. */
function updatedSettings(current: DatasetSettings, body: UpdateDatasetRequest): DatasetSettings | undefined {
  const given = [
    "parsing_options",
    "enrichment_options",
    "structured_extraction_options",
    "page_classifications",
  ].filter((key) => (body as Record<string, unknown>)[key] !== undefined);
  if (given.length === 0) return undefined;
  const filled = settingsWithDefaults(body);
  const next = { ...current };
  for (const key of given) (next as Record<string, unknown>)[key] = filled[key as keyof DatasetSettings];
  return next;
}

export function datasetHandlers(deps: {
  datasets: DatasetRepository;
  parse: ParseDeps;
}): Handlers<DatasetRoutes> {
  const { datasets, parse } = deps;
  const { jobs } = parse;
  const found = async (projectId: string, id: string) => {
    const dataset = await datasets.get(projectId, id);
    if (!dataset) throw new ServiceError("ENTITY_NOT_FOUND", `No dataset ${id}`);
    return dataset;
  };
  return {
    async createDataset({ body, auth }) {
      check(checkDatasetName(body.name));
      check(checkParseSettings(body));
      checkModelProviders(parse.providers, body);
      const dataset = await datasets.create({
        id: newId("dataset"),
        projectId: auth.projectId,
        name: body.name,
        description: body.description ?? null,
        settings: settingsWithDefaults(body),
      });
      return { name: dataset.name, dataset_id: dataset.id, created_at: toRfc3339(dataset.createdAt) };
    },
    async listDatasets({ query, auth }) {
      const page = await datasets.list(auth.projectId, query);
      return { ...page, items: page.items.map((record) => toDataset(record)) };
    },
    async getDataset({ params, query, auth }) {
      const dataset = await found(auth.projectId, params.dataset_id);
      return toDataset(dataset, query.include_analytics ? await jobs.countByStatus(dataset.id) : undefined);
    },
    async updateDataset({ params, body, auth }) {
      if (body.name !== undefined) check(checkDatasetName(body.name));
      const current = await found(auth.projectId, params.dataset_id);
      const settings = updatedSettings(current.settings, body);
      if (settings) {
        check(checkParseSettings(settings));
        checkModelProviders(parse.providers, settings);
      }
      const updated = await datasets.update(auth.projectId, params.dataset_id, {
        name: body.name,
        description: body.description,
        settings,
      });
      if (!updated) throw new ServiceError("ENTITY_NOT_FOUND", `No dataset ${params.dataset_id}`);
      return toDataset(updated);
    },
    async deleteDataset({ params, auth }) {
      if (!(await datasets.delete(auth.projectId, params.dataset_id))) {
        throw new ServiceError("ENTITY_NOT_FOUND", `No dataset ${params.dataset_id}`);
      }
    },
    async parseWithDataset({ params, body, auth }) {
      const dataset = await found(auth.projectId, params.dataset_id);
      return createJob(parse, {
        projectId: auth.projectId,
        kind: "parse",
        body,
        settings: dataset.settings,
        datasetId: dataset.id,
      });
    },
    async listDatasetData({ params, query, auth, reply }) {
      const dataset = await found(auth.projectId, params.dataset_id);
      const page = await jobs.list(auth.projectId, { ...jobListFilters(query), datasetId: dataset.id });
      sendResultsAsJson(reply);
      return { ...page, items: page.items.map(({ job, result }) => toParseResult(job, result)) };
    },
  };
}
