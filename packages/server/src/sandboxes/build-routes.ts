/**
 * # build-routes
 *
 * The template build API: submit a Dockerfile with its context tar, read and follow builds (their log as SSE),
 * and the platform SDK's image builder (platform-build-routes.ts).
 */
import type { Readable } from "node:stream";
import {
  BuildEventName,
  type buildRoutes,
  type CreateTemplateBuildQuery,
  encodeSseComment,
  encodeSseEvent,
  type SandboxNetworkAccessControl,
  ServiceError,
  SSE_HEADERS,
} from "@svc/contract";
import type { FastifyReply } from "fastify";
import { limitBytes } from "../api/body-limit.ts";
import type { Handlers } from "../api/routes.ts";
import type { AuthContext } from "../auth/context.ts";
import { checkNetworkPolicy } from "../executor/linux/egress-policy.ts";
import { type BuildLauncher, readContext } from "./build-launcher.ts";
import type { BuildBook, BuildRecord } from "./builds.ts";
import { contextPath } from "./context-tar.ts";
import { platformBuildHandlers } from "./platform-build-routes.ts";
import type { SandboxDeps } from "./routes.ts";

/** A follower of a build's log gets a comment this often while nothing happens, to keep proxies open. */
const KEEPALIVE_MS = 15_000;

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

/** How often a follower reads again a build that another host runs. */
const POLL_MS = 1000;

/**
 * Streams a build's log: the lines so far, then live ones, then `end` with the record. A build another host
 * runs is read again from the store until it ends.
 */
function followBuild(book: BuildBook, record: BuildRecord, reply: FastifyReply): FastifyReply {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, SSE_HEADERS);
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
  let reading = false;
  const poll = book.isLive(record)
    ? null
    : setInterval(() => {
        if (reading) return;
        reading = true;
        book
          .refresh(record)
          .catch(() => undefined)
          .finally(() => {
            reading = false;
          });
      }, POLL_MS);
  poll?.unref();
  function stop() {
    if (closed) return;
    closed = true;
    clearInterval(keepalive);
    if (poll) clearInterval(poll);
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
  const found = async (auth: AuthContext, id: string) => {
    const record = await book.get(auth.projectId, id);
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
      const record = await launcher.launch({
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

    listTemplateBuilds: async ({ auth }) => ({
      builds: (await book.list(auth.projectId)).map((b) => b.view()),
    }),

    getTemplateBuild: async ({ params, auth }) => (await found(auth, params.build_id)).view(),

    followTemplateBuild: async ({ params, auth, reply }) =>
      followBuild(book, await found(auth, params.build_id), reply),

    ...platformBuildHandlers(sandboxes, launcher),
  };
}
