import type { Readable } from "node:stream";
import {
  BuildEventName,
  type buildRoutes,
  type CreateTemplateBuildQuery,
  encodeSseComment,
  encodeSseEvent,
  type SandboxNetworkAccessControl,
  ServiceError,
  SSE_CONTENT_TYPE,
  type sandboxRoutes,
} from "@svc/contract";
import type { FastifyReply } from "fastify";
import { limitBytes } from "../api/body-limit.ts";
import type { Handlers } from "../api/routes.ts";
import type { AuthContext } from "../auth/context.ts";
import { DockerfileError, parseDockerfile } from "../executor/linux/dockerfile.ts";
import { checkNetworkPolicy } from "../executor/linux/egress-policy.ts";
import { createBuildCache } from "./build-cache.ts";
import { type BuildDeps, BuildStepError, runBuild } from "./build-runner.ts";
import { BuildBook, BuildRecord } from "./builds.ts";
import { type ContextEntry, ContextError, contextPath, readContextTar } from "./context-tar.ts";
import { sandboxLink } from "./daemon-link.ts";
import { platformBuildHandlers } from "./platform-build-routes.ts";
import type { SandboxDeps } from "./routes.ts";

/** A follower of a build's log gets a comment this often while nothing happens, to keep proxies open. */
const KEEPALIVE_MS = 15_000;

/** What starting a build needs: the build's inputs read and checked, then its record. */
export interface BuildLauncher {
  book: BuildBook;
  deps: BuildDeps;
  /** Deletes a template through the ordinary delete path. */
  deleteTemplate(auth: AuthContext, name: string): Promise<void>;
  /** Starts a build in the background; the record ends when it does. */
  launch(input: {
    auth: AuthContext;
    name: string;
    dockerfile: string;
    buildArgs: Record<string, string>;
    context: ContextEntry[];
    contextTar: Buffer;
    network: SandboxNetworkAccessControl | null;
    record?: BuildRecord;
  }): BuildRecord;
}

/** Reads a Dockerfile into steps; its faults are 400 INVALID_DOCKERFILE with the line. */
export function dockerfileSteps(text: string, buildArgs: Record<string, string>) {
  try {
    return parseDockerfile(text, buildArgs);
  } catch (error) {
    if (error instanceof DockerfileError) throw new ServiceError("INVALID_DOCKERFILE", error.message);
    throw error;
  }
}

export function readContext(bytes: Buffer): ContextEntry[] {
  try {
    return readContextTar(bytes);
  } catch (error) {
    if (error instanceof ContextError)
      throw new ServiceError("INVALID_FILE", `the build context: ${error.message}`);
    throw error;
  }
}

function networkOf(query: CreateTemplateBuildQuery): SandboxNetworkAccessControl | null {
  if (query.allow_internet_access === undefined && !query.allow_out && !query.deny_out) return null;
  const network: SandboxNetworkAccessControl = {
    ...(query.allow_internet_access === undefined
      ? {}
      : { allow_internet_access: query.allow_internet_access }),
    ...(query.allow_out ? { allow_out: query.allow_out } : {}),
    ...(query.deny_out ? { deny_out: query.deny_out } : {}),
  };
  checkNetworkPolicy(network);
  return network;
}

function buildArgsOf(pairs: readonly string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs ?? []) {
    const eq = pair.indexOf("=");
    out[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return out;
}

async function readBody(raw: Readable, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of raw.pipe(limitBytes(maxBytes))) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The launcher of builds over the sandboxes domain: build sandboxes go through the ordinary create and delete. */
export function buildLauncher(
  sandboxes: SandboxDeps,
  lifecycle: Handlers<typeof sandboxRoutes>,
): BuildLauncher {
  const create = lifecycle.createSandbox;
  const remove = lifecycle.deleteSandbox;
  const removeTemplate = lifecycle.deleteTemplate;
  if (!create || !remove || !removeTemplate) throw new Error("the sandbox lifecycle handlers are missing");
  // The lifecycle handlers read only body, params and auth; a build has no HTTP request of its own.
  const noHttp = { request: undefined as never, reply: undefined as never, query: {} as never };
  const deps: BuildDeps = {
    sandboxes: {
      create: async (auth, body) =>
        (await create({ ...noHttp, auth, body, params: {} as never })) as { sandbox_id: string },
      remove: async (auth, id) => {
        await remove({ ...noHttp, auth, body: undefined as never, params: { sandbox_id: id } });
      },
      get: (id) => sandboxes.repo.get(id),
      link: (row) => sandboxLink(row, sandboxes.secretOf(row.id), sandboxes.dialer),
      snapshot: async (row, snapshotId) => {
        await sandboxes.scheduler.snapshot(row, snapshotId);
        await sandboxes.scheduler.snapshotSettled(row.id);
      },
    },
    snapshots: sandboxes.snapshots,
    templates: sandboxes.templates,
    cache: createBuildCache(sandboxes.store.db),
  };
  const book = new BuildBook();
  return {
    book,
    deps,
    async deleteTemplate(auth, name) {
      await removeTemplate({ ...noHttp, auth, body: undefined as never, params: { template: name } });
    },
    launch(input) {
      const parsed = dockerfileSteps(input.dockerfile, input.buildArgs);
      const record = input.record ?? new BuildRecord(input.auth.projectId, input.name);
      record.warnings = parsed.warnings;
      for (const warning of parsed.warnings) record.line(`warning: ${warning}`);
      book.add(record);
      record.status = "running";
      runBuild(deps, {
        auth: input.auth,
        record,
        steps: parsed.steps,
        context: input.context,
        contextTar: input.contextTar,
        network: input.network,
      }).then(
        (template) => record.end({ templateId: template.id }),
        (error: Error) => {
          if (!(error instanceof BuildStepError) && !(error instanceof ServiceError)) {
            sandboxes.log("template build failed", { build: record.id, error: error.message });
          }
          record.end({ error: error.message });
        },
      );
      return record;
    },
  };
}

/** Streams a build's log: the lines so far, then live ones, then `end` with the record. */
function followBuild(record: BuildRecord, reply: FastifyReply): FastifyReply {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    "content-type": SSE_CONTENT_TYPE,
    "cache-control": "no-cache",
    connection: "keep-alive",
    "x-accel-buffering": "no",
  });
  let sent = record.dropped;
  let closed = false;
  const flush = () => {
    if (closed) return;
    for (let i = Math.max(sent, record.dropped); i < record.dropped + record.log.length; i++) {
      res.write(encodeSseEvent({ event: BuildEventName.log, data: record.log[i - record.dropped] }));
    }
    sent = record.dropped + record.log.length;
    if (record.done) {
      res.write(encodeSseEvent({ event: BuildEventName.end, data: record.view() }));
      stop();
    }
  };
  const keepalive = setInterval(() => res.write(encodeSseComment()), KEEPALIVE_MS);
  keepalive.unref();
  const unsubscribe = record.subscribe(flush);
  function stop() {
    if (closed) return;
    closed = true;
    clearInterval(keepalive);
    unsubscribe();
    res.end();
  }
  res.on("close", stop);
  flush();
  return reply;
}

type BuildHandlers = Handlers<typeof buildRoutes>;

/** Template builds: this service's own API and the platform SDK's image builder. */
export function buildHandlers(sandboxes: SandboxDeps, launcher: BuildLauncher): BuildHandlers {
  const { book } = launcher;
  const found = (auth: AuthContext, id: string) => {
    const record = book.get(auth.projectId, id);
    if (!record) throw new ServiceError("BUILD_NOT_FOUND", `no template build ${id}`);
    return record;
  };
  return {
    createTemplateBuild: async ({ params, query, auth, request }) => {
      if (await sandboxes.templates.find(auth.projectId, params.template)) {
        throw new ServiceError("TEMPLATE_EXISTS", `the project already has a template ${params.template}`);
      }
      const contextTar = await readBody(request.raw, sandboxes.maxUploadBytes);
      const context = readContext(contextTar);
      const dockerfilePath = query.dockerfile ?? "Dockerfile";
      let wanted: string | null;
      try {
        wanted = contextPath(dockerfilePath);
      } catch {
        throw new ServiceError(
          "INVALID_DOCKERFILE",
          `the Dockerfile path ${dockerfilePath} leaves the context`,
        );
      }
      const entry = context.find((e) => e.path === wanted && e.type === "file");
      if (!entry?.data) {
        throw new ServiceError("INVALID_DOCKERFILE", `the build context has no file ${dockerfilePath}`);
      }
      const record = launcher.launch({
        auth,
        name: params.template,
        dockerfile: entry.data.toString("utf8"),
        buildArgs: buildArgsOf(query.build_arg),
        context,
        contextTar,
        network: networkOf(query),
      });
      return record.view();
    },

    listTemplateBuilds: async ({ auth }) => ({ builds: book.list(auth.projectId).map((b) => b.view()) }),

    getTemplateBuild: async ({ params, auth }) => found(auth, params.build_id).view(),

    followTemplateBuild: async ({ params, auth, reply }) => followBuild(found(auth, params.build_id), reply),

    ...platformBuildHandlers(sandboxes, launcher),
  };
}
