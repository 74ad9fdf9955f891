/**
 * # platform-build-routes
 *
 * The public platform SDK's image builder (`Image(...).build()`, `createSandboxImage`), served as its requests
 * were recorded: it asks `POST .../sandbox-template-builds` for a build, creates the builder sandbox the answer
 * names through the ordinary sandbox API, uploads its context to `.../rootfs-builder/build/context.tar.gz` and
 * unpacks it into `.../build/context`, writes `spec.json` (with the build id), runs `builder.command` with
 * `--spec <file> --metadata-out <file>` appended, reads `metadata.json`, and calls `.../{build}/complete`.
 *
 * Here the builder sandbox only carries the context: `builder.command` packs the unpacked context into one
 * archive and writes the metadata the SDK requires. At completion the server finds the builder sandbox (the one
 * of the project whose `spec.json` names this build), reads the archive, and runs the build as
 * `POST /templates/{name}/build` does (cache included), answering once the template exists.
 */
import { type buildRoutes, type RouteResponse, ServiceError } from "@svc/contract";
import type { Handlers } from "../api/routes.ts";
import type { AuthContext } from "../auth/context.ts";
import { type BuildLauncher, dockerfileSteps, readContext } from "./build-launcher.ts";
import type { BuildRecord } from "./builds.ts";
import { daemonStream, type SandboxLink, sandboxLink } from "./daemon-link.ts";
import type { SandboxDeps } from "./routes.ts";
import type { TemplateRow } from "./templates.ts";

const BUILD_DIR = "/var/lib/tensorlake/rootfs-builder/build";
const CONTEXT_ARCHIVE = `${BUILD_DIR}/svc-context.tar.gz`;
/** A build the SDK never completes is given up after this long. */
const PENDING_MS = 3_600_000;
/** The builder's disk as the SDK sizes it; the template's own disk is the build sandbox's. */
const BUILDER = { image: "default", cpus: 1, memoryMb: 1024, diskMb: 10240 };

/**
 * The builder command, as shell words: packs the context and writes the metadata (`$4` is the file after
 * `--metadata-out`). `snapshot_uri` names the build; the sizes are the SDK's required fields.
 */
function builderCommand(buildId: string): string {
  const metadata = JSON.stringify({
    snapshot_uri: `svc-build://${buildId}`,
    snapshot_format_version: "svc-build-v1",
    snapshot_size_bytes: 0,
    rootfs_disk_bytes: BUILDER.diskMb * 1048576,
    // A build FROM a template is a "diff" build to the SDK, which wants its parent named; the server builds on
    // the template itself.
    parent_manifest_uri: `svc-build://${buildId}/parent`,
  }).replace(/"/g, '\\"');
  const script = [
    "set -e",
    `cd ${BUILD_DIR}`,
    `tar -czf ${CONTEXT_ARCHIVE} -C context .`,
    `printf "${metadata}" > "$4"`,
    'echo "build context handed to the server; the build runs when the SDK completes it"',
  ].join("; ");
  return `/bin/sh -c '${script}' svc-builder`;
}

interface PlatformBuild {
  record: BuildRecord;
  dockerfile: string;
}

async function readFile(link: SandboxLink, path: string): Promise<Buffer | null> {
  const answer = await daemonStream(link, {
    method: "GET",
    pathAndQuery: `/api/v1/files?path=${encodeURIComponent(path)}`,
    idleTimeoutMs: 60_000,
  });
  const bytes = await answer.bytes();
  return answer.status === 200 ? bytes : null;
}

type PlatformBuildHandlers = Pick<
  Handlers<typeof buildRoutes>,
  | "getPlatformTemplateByName"
  | "listPlatformTemplates"
  | "deletePlatformSandboxImage"
  | "createPlatformTemplateBuild"
  | "completePlatformTemplateBuild"
>;

/** A template in the platform SDK's shape. */
function platformTemplate(row: TemplateRow): RouteResponse<typeof buildRoutes.getPlatformTemplateByName> {
  return {
    id: row.id,
    name: row.name,
    snapshotId: row.snapshotId,
    snapshotUri: `svc-template://${row.id}`,
    snapshotFormatVersion: "svc-build-v1",
    snapshotSizeBytes: row.sizeBytes,
    rootfsDiskBytes: null,
    rootfsNodeKind: "base",
    public: false,
  };
}

export function platformBuildHandlers(
  sandboxes: SandboxDeps,
  launcher: BuildLauncher,
): PlatformBuildHandlers {
  const pending = new Map<string, PlatformBuild>();

  /** The scope path must name the key's own organization and project (as introspection reported them). */
  function checkScope(auth: AuthContext, params: { organization: string; project: string }) {
    if (params.organization !== auth.organizationId || params.project !== auth.projectId) {
      throw new ServiceError("PROJECT_NOT_FOUND", "the organization and project are not the key's");
    }
  }

  /** The running sandbox of the project whose spec.json names this build. */
  async function builderOf(auth: AuthContext, build: PlatformBuild) {
    const candidates = (await sandboxes.repo.withStatus(["running"]))
      .filter((row) => row.projectId === auth.projectId && row.createdAt >= build.record.createdAt)
      .sort((a, b) => a.createdAt - b.createdAt);
    for (const row of candidates) {
      const link = sandboxLink(row, sandboxes.secretOf(row.id), sandboxes.dialer);
      const spec = await readFile(link, `${BUILD_DIR}/spec.json`).catch(() => null);
      if (!spec) continue;
      try {
        if ((JSON.parse(spec.toString("utf8")) as { buildId?: unknown }).buildId === build.record.id)
          return link;
      } catch {
        // not a spec of ours
      }
    }
    return null;
  }

  return {
    getPlatformTemplateByName: async ({ params, auth }) => {
      checkScope(auth, params);
      const row = await sandboxes.templates.find(auth.projectId, params.name);
      if (row?.name !== params.name)
        throw new ServiceError("TEMPLATE_NOT_FOUND", `no template ${params.name}`);
      return platformTemplate(row);
    },

    listPlatformTemplates: async ({ params, auth }) => {
      checkScope(auth, params);
      const items = (await sandboxes.templates.list(auth.projectId)).map(platformTemplate);
      return { items, pagination: { next: null } };
    },

    deletePlatformSandboxImage: async ({ params, auth }) => {
      await launcher.deleteTemplate(auth, params.name);
    },

    createPlatformTemplateBuild: async ({ params, body, auth }) => {
      checkScope(auth, params);
      for (const [id, waiting] of pending) {
        if (Date.now() - waiting.record.createdAt < PENDING_MS) continue;
        pending.delete(id);
        waiting.record.end({ error: "the SDK did not complete the build within an hour" });
      }
      dockerfileSteps(body.dockerfile, {});
      if (await sandboxes.templates.find(auth.projectId, body.name)) {
        throw new ServiceError("TEMPLATE_EXISTS", `the project already has a template ${body.name}`);
      }
      const record = await launcher.book.add(auth.projectId, body.name);
      record.line("waiting for the SDK's builder sandbox to hold the context");
      pending.set(record.id, { record, dockerfile: body.dockerfile });
      return {
        buildId: record.id,
        snapshotId: record.id,
        rootfsNodeKind: body.rootfsNodeKind ?? "base",
        builder: { ...BUILDER, command: builderCommand(record.id) },
      };
    },

    completePlatformTemplateBuild: async ({ params, auth }) => {
      checkScope(auth, params);
      const build = pending.get(params.build_id);
      if (!build || build.record.projectId !== auth.projectId) {
        throw new ServiceError("BUILD_NOT_FOUND", `no platform build ${params.build_id} waiting to complete`);
      }
      const link = await builderOf(auth, build);
      const archive = link ? await readFile(link, CONTEXT_ARCHIVE) : null;
      if (!archive) {
        throw new ServiceError(
          "BUILD_FAILED",
          "no running builder sandbox of the project holds this build's context",
        );
      }
      if (archive.length > sandboxes.maxUploadBytes) {
        throw new ServiceError(
          "FILE_TOO_LARGE",
          `the build context is larger than ${sandboxes.maxUploadBytes} bytes`,
        );
      }
      pending.delete(params.build_id);
      const record = await launcher.launch({
        auth,
        name: build.record.templateName,
        dockerfile: build.dockerfile,
        buildArgs: {},
        context: readContext(archive),
        contextTar: archive,
        network: null,
        record: build.record,
      });
      await record.finished();
      if (record.status !== "succeeded" || !record.templateId) {
        const tail = record.log
          .slice(-20)
          .map((l) => l.line)
          .join("\n");
        throw new ServiceError("BUILD_FAILED", `${record.error ?? "the build failed"}\n${tail}`);
      }
      const template = await sandboxes.templates.find(auth.projectId, record.templateId);
      return {
        id: record.templateId,
        templateId: record.templateId,
        name: record.templateName,
        snapshotId: template?.snapshotId ?? null,
        buildId: record.id,
      };
    },
  };
}
