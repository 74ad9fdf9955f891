/**
 * # build-runner
 *
 * Runs a template build: a parsed Dockerfile's steps in a build sandbox started through the ordinary create
 * path (`FROM` a template by name, else an image: the built-in one or an OCI reference), with the build's egress
 * policy. `RUN` goes to the sandbox's daemon (as root unless `USER` says otherwise, with the `ENV` and `WORKDIR`
 * so far); `COPY`/`ADD` upload the context tar and copy inside the sandbox, so nothing of the context is
 * unpacked on the host. After each file-system step (`RUN`, `COPY`, `ADD`, `WORKDIR`) the sandbox is
 * snapshotted and the step cached (build-cache.ts); the last snapshot becomes the template, with the `ENV`,
 * `WORKDIR`, `USER`, `ENTRYPOINT` and `CMD` as its process defaults.
 */
import { posix } from "node:path";
import {
  type CreateSandboxRequest,
  PROCESS_DEFAULTS_FILE,
  readSseStream,
  type SandboxNetworkAccessControl,
  ServiceError,
  type TemplateConfig,
} from "@svc/contract";
import type { AuthContext } from "../auth/context.ts";
import type { DockerfileStep } from "../executor/linux/dockerfile.ts";
import type { BuildCache } from "./build-cache.ts";
import { removeCacheSnapshots, stepKey } from "./build-cache.ts";
import type { BuildRecord } from "./builds.ts";
import { type ContextEntry, sourcesDigest } from "./context-tar.ts";
import type { SandboxLink } from "./daemon-link.ts";
import { daemonStream } from "./daemon-link.ts";
import type { SandboxRow } from "./repository.ts";
import type { SnapshotRepository, SnapshotRow } from "./snapshots.ts";
import { type TemplateRepository, type TemplateRow, templateDisk } from "./templates.ts";

/** What a build needs of the sandboxes domain. */
export interface BuildSandboxes {
  /** Creates a sandbox through the ordinary create path (validation, templates, the scheduler). */
  create(auth: AuthContext, body: CreateSandboxRequest): Promise<{ sandbox_id: string }>;
  /** Ends a sandbox through the ordinary delete path. */
  remove(auth: AuthContext, id: string): Promise<void>;
  get(id: string): Promise<SandboxRow | null>;
  link(row: SandboxRow): SandboxLink;
  /** Starts a filesystem snapshot of a running sandbox (its row in progress) and waits for it to settle. */
  snapshot(row: SandboxRow, snapshotId: string): Promise<void>;
}

export interface BuildDeps {
  sandboxes: BuildSandboxes;
  snapshots: SnapshotRepository;
  templates: TemplateRepository;
  cache: BuildCache;
  /** Removes a snapshot's disk (an evicted cache step's). */
  removeSnapshotDisk(snapshotId: string): Promise<void>;
  /** Cached steps a project keeps (the newest); older ones are evicted. */
  cacheSteps: number;
  /** How long a build sandbox may take to start (the first one of a machine builds the default image). */
  startTimeoutMs?: number;
}

export interface BuildInput {
  auth: AuthContext;
  record: BuildRecord;
  steps: readonly DockerfileStep[];
  context: readonly ContextEntry[];
  /** The context as uploaded, sent into the build sandbox for `COPY`. */
  contextTar: Buffer;
  network: SandboxNetworkAccessControl | null;
}

/** A step that failed for a reason of the Dockerfile or its commands (not of the service). */
export class BuildStepError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BuildStepError";
  }
}

/** The last step of a build that sets ENV, WORKDIR or USER: the file the daemon reads its defaults from. */
interface DefaultsStep {
  kind: "defaults";
  line: number;
  defaults: { env?: Record<string, string>; working_dir?: string; user?: string };
}
type PlanStep = DockerfileStep | DefaultsStep;

const FILE_SYSTEM_STEPS = new Set<PlanStep["kind"]>(["run", "copy", "workdir", "defaults"]);
const BUILD_SANDBOX = { cpus: 1, memory_mb: 2048, disk_mb: 10240, timeout_secs: 3600 };
/** How long a build sandbox may wait to start (the first of a machine builds the default image). */
const START_TIMEOUT_MS = 900_000;
/** Where `COPY` finds the context in the build sandbox; the copy step removes it before its snapshot. */
const CONTEXT_TAR = "/tmp/.svc-build-context.tar";

interface Planned {
  step: PlanStep;
  key: string;
  /** Config before the step (what a RUN runs with). */
  before: TemplateConfig;
  /** Config after the step. */
  after: TemplateConfig;
  /** `ARG` values in scope before the step: the environment of a RUN, under its ENV. */
  args: Record<string, string>;
}

function emptyConfig(): TemplateConfig {
  return { env: {}, working_dir: null, user: null, entrypoint: null, cmd: null };
}

function applyConfig(config: TemplateConfig, step: DockerfileStep): TemplateConfig {
  switch (step.kind) {
    case "env":
      return { ...config, env: { ...config.env, ...Object.fromEntries(step.vars) } };
    case "workdir":
      return { ...config, working_dir: posix.resolve(config.working_dir ?? "/", step.path) };
    case "user":
      return { ...config, user: step.user };
    case "entrypoint":
      // As in Docker, a new ENTRYPOINT clears a CMD set before it.
      return { ...config, entrypoint: step.command, cmd: null };
    case "cmd":
      return { ...config, cmd: step.command };
    default:
      return config;
  }
}

/** The process defaults of a config, or null when it sets none. */
function defaultsOf(config: TemplateConfig | null | undefined): DefaultsStep["defaults"] | null {
  if (!config) return null;
  const defaults: DefaultsStep["defaults"] = {
    ...(Object.keys(config.env).length > 0 ? { env: config.env } : {}),
    ...(config.working_dir ? { working_dir: config.working_dir } : {}),
    ...(config.user ? { user: processUser(config.user) } : {}),
  };
  return Object.keys(defaults).length > 0 ? defaults : null;
}

/** A step as its cache key sees it: the instruction without its line number. */
function instruction(step: PlanStep): unknown {
  const { line: _line, ...rest } = step;
  return rest;
}

/** A user the daemon accepts: `name`, `uid` or `uid:gid` (a `name:group` runs as the name). */
function processUser(user: string | null): string {
  if (!user) return "root";
  if (/^\d+(?::\d+)?$/.test(user)) return user;
  return user.split(":")[0];
}

const COPY_SCRIPT = `set -eu
tarfile=$1; dest=$2; owner=$3; mode=$4; add=$5; shift 5
ctx=$(mktemp -d /tmp/.svc-build-context.XXXXXX)
trap 'rm -rf "$ctx" "$tarfile"' EXIT
tar -xf "$tarfile" -C "$ctx" --no-same-owner --no-same-permissions 2>/dev/null || tar -xf "$tarfile" -C "$ctx"
root=$(cd "$ctx" && pwd -P)
todir=0
case "$dest" in */) todir=1 ;; esac
[ "$#" -gt 1 ] && todir=1
if [ "$todir" = 1 ]; then mkdir -p "$dest"; else mkdir -p "$(dirname "$dest")"; fi
IFS=''
for pattern in "$@"; do
  found=0
  for src in "$ctx"/$pattern; do
    [ -e "$src" ] || [ -L "$src" ] || continue
    found=1
    parent=$(cd "$(dirname "$src")" && pwd -P)
    case "$parent/" in "$root"/*) ;; *) echo "COPY source $pattern leaves the build context" >&2; exit 1 ;; esac
    if [ -d "$src" ] && [ ! -L "$src" ]; then
      target=$dest
      mkdir -p "$target"
      cp -a "$src"/. "$target"/
    elif [ "$add" = 1 ] && tar -tf "$src" >/dev/null 2>&1; then
      target=$dest
      mkdir -p "$target"
      tar -xf "$src" -C "$target" --no-same-owner
    elif [ "$todir" = 1 ] || [ -d "$dest" ]; then
      target="$dest/$(basename "$src")"
      cp -a "$src" "$target"
    else
      target=$dest
      cp -a "$src" "$target"
    fi
    [ -z "$owner" ] || chown -R "$owner" "$target"
    [ -z "$mode" ] || chmod -R "$mode" "$target"
  done
  [ "$found" = 1 ] || { echo "COPY source $pattern is not in the build context" >&2; exit 1; }
done
`;

/** Runs a build to its template; throws BuildStepError (the Dockerfile's fault) or another Error. */
export async function runBuild(deps: BuildDeps, input: BuildInput): Promise<TemplateRow> {
  const { auth, record } = input;
  const projectId = auth.projectId;
  const [from, ...rest] = input.steps;
  if (from?.kind !== "from") throw new BuildStepError("a Dockerfile starts with FROM");
  record.steps = rest.length;

  // FROM: a template of the project by name, else an image.
  const baseTemplate = await deps.templates.find(projectId, from.image);
  const baseCreate: CreateSandboxRequest = baseTemplate
    ? { template_id: baseTemplate.id }
    : { image: from.image };
  const baseKey = stepKey(
    `project ${projectId}`,
    baseTemplate
      ? { from: "template", id: baseTemplate.id, disk: templateDisk(baseTemplate) }
      : { from: from.image },
  );

  // The plan: every step's key and config; a COPY's key covers the files it takes.
  const plan: Planned[] = [];
  let key = baseKey;
  // A template's process defaults carry on into what is built on it, as a parent image's do.
  let config = baseTemplate?.config ?? emptyConfig();
  let args: Record<string, string> = {};
  for (const step of rest) {
    let inputs = "";
    if (step.kind === "copy") {
      try {
        inputs = sourcesDigest(input.context, step.sources);
      } catch (error) {
        throw new BuildStepError(`line ${step.line}: ${(error as Error).message}`);
      }
    }
    key = stepKey(key, instruction(step), inputs);
    const after = applyConfig(config, step);
    plan.push({ step, key, before: config, after, args });
    config = after;
    if (step.kind === "arg") args = { ...args, ...Object.fromEntries(step.vars) };
  }
  const defaults = defaultsOf(config);
  if (defaults && JSON.stringify(defaults) !== JSON.stringify(defaultsOf(baseTemplate?.config))) {
    const step: DefaultsStep = { kind: "defaults", line: 0, defaults };
    key = stepKey(key, step);
    plan.push({ step, key, before: config, after: config, args });
  }

  /** Caches a step's snapshot; the project's oldest steps beyond its bound are evicted. */
  const cachePut = async (stepKeyOf: string, snapshotId: string) => {
    await deps.cache.put(projectId, stepKeyOf, snapshotId);
    const evicted = await deps.cache.evict(projectId, deps.cacheSteps);
    await removeCacheSnapshots(deps.cache, deps.snapshots, deps.removeSnapshotDisk, evicted);
  };

  const completed = async (snapshotId: string | null): Promise<SnapshotRow | null> => {
    if (!snapshotId) return null;
    const snapshot = await deps.snapshots.get(projectId, snapshotId);
    if (snapshot?.status === "completed") return snapshot;
    await deps.cache.forgetSnapshot(snapshotId);
    return null;
  };

  // Resume after the newest cached file-system step; a base with a snapshot of its own needs no sandbox.
  let resumeAt = -1;
  let resumeSnapshot: SnapshotRow | null = null;
  for (let i = plan.length - 1; i >= 0 && !resumeSnapshot; i--) {
    if (!FILE_SYSTEM_STEPS.has(plan[i].step.kind)) continue;
    resumeSnapshot = await completed(await deps.cache.get(projectId, plan[i].key));
    if (resumeSnapshot) resumeAt = i;
  }
  if (!resumeSnapshot) {
    resumeSnapshot =
      (await completed(baseTemplate?.source === "snapshot" ? baseTemplate.snapshotId : null)) ??
      (await completed(await deps.cache.get(projectId, baseKey)));
  }
  const total = rest.length + 1;
  record.line(`Step 1/${total} : FROM ${from.image}${resumeAt < 0 && resumeSnapshot ? " (cached)" : ""}`);
  record.cachedSteps = Math.min(resumeAt + 1, rest.length);
  for (let i = 0; i <= resumeAt; i++) record.line(`${heading(plan[i].step, i, total)} (cached)`);
  const todo = plan.slice(resumeAt + 1);
  let final = resumeSnapshot;

  if (todo.some((p) => FILE_SYSTEM_STEPS.has(p.step.kind)) || !final) {
    const start: CreateSandboxRequest = final ? { snapshot_id: final.id } : baseCreate;
    const sandbox = await startBuildSandbox(deps, input, start);
    try {
      if (!final) {
        final = await snapshotOf(deps, projectId, sandbox.id);
        await cachePut(baseKey, final.id);
      }
      for (const [offset, planned] of todo.entries()) {
        record.line(heading(planned.step, resumeAt + offset + 1, total));
        if (!FILE_SYSTEM_STEPS.has(planned.step.kind)) continue;
        await runStep(deps, input, sandbox.id, planned);
        final = await snapshotOf(deps, projectId, sandbox.id);
        await cachePut(planned.key, final.id);
      }
    } finally {
      await deps.sandboxes.remove(auth, sandbox.id).catch(() => undefined);
      record.sandboxId = null;
      record.changed();
    }
  } else {
    for (const [offset, planned] of todo.entries()) {
      record.line(heading(planned.step, resumeAt + offset + 1, total));
    }
    record.cachedSteps = rest.length;
  }

  const template = await deps.templates.create({
    projectId,
    name: record.templateName,
    baseImage: final.baseImage,
    pinnedImage: final.pinnedImage,
    source: "snapshot",
    snapshotId: final.id,
    sizeBytes: final.sizeBytes,
    config,
  });
  if (!template)
    throw new ServiceError("TEMPLATE_EXISTS", `the project already has a template ${record.templateName}`);
  // The cached steps it was made through stay while it does (removed with the last template using them).
  const chain: string[] = [final.id];
  for (const k of [baseKey, ...plan.map((p) => p.key)]) {
    const id = await deps.cache.get(projectId, k);
    if (id) chain.push(id);
  }
  await deps.cache.use(template.id, chain);
  record.line(`Template ${template.name} (${template.id}) made from snapshot ${final.id}`);
  return template;
}

/** `Step 3/5 : RUN make`: the plan's step `index` (FROM is step 1). */
function heading(step: PlanStep, index: number, total: number): string {
  return step.kind === "defaults" ? describe(step) : `Step ${index + 2}/${total} : ${describe(step)}`;
}

function describe(step: PlanStep): string {
  switch (step.kind) {
    case "defaults":
      return `Process defaults ${JSON.stringify(step.defaults)}`;
    case "run":
      return `RUN ${step.shell ? step.command[2] : JSON.stringify(step.command)}`;
    case "copy":
      return `${step.add ? "ADD" : "COPY"} ${[...step.sources, step.dest].join(" ")}`;
    case "env":
      return `ENV ${step.vars.map(([k, v]) => `${k}=${v}`).join(" ")}`;
    case "arg":
      return `ARG ${step.vars.map(([k, v]) => `${k}=${v}`).join(" ")}`;
    case "workdir":
      return `WORKDIR ${step.path}`;
    case "user":
      return `USER ${step.user}`;
    case "entrypoint":
      return `ENTRYPOINT ${JSON.stringify(step.command)}`;
    case "cmd":
      return `CMD ${JSON.stringify(step.command)}`;
    default:
      return step.kind;
  }
}

async function startBuildSandbox(
  deps: BuildDeps,
  input: BuildInput,
  start: CreateSandboxRequest,
): Promise<SandboxRow> {
  const created = await deps.sandboxes.create(input.auth, {
    ...start,
    resources: {
      cpus: BUILD_SANDBOX.cpus,
      memory_mb: BUILD_SANDBOX.memory_mb,
      disk_mb: BUILD_SANDBOX.disk_mb,
    },
    timeout_secs: BUILD_SANDBOX.timeout_secs,
    // A build runs its steps, never its base image's (or template's) ENTRYPOINT/CMD.
    entrypoint: [],
    // A host with no room ends the build sandbox (and so the build) rather than keeping it waiting for ever.
    max_pending_secs: Math.ceil((deps.startTimeoutMs ?? START_TIMEOUT_MS) / 1000),
    ...(input.network ? { network: input.network } : {}),
  });
  // Stored with the record, so a server that dies mid-build removes it when it starts again.
  input.record.sandboxId = created.sandbox_id;
  input.record.line(`Build sandbox ${created.sandbox_id} starting`);
  const deadline = Date.now() + (deps.startTimeoutMs ?? START_TIMEOUT_MS) + 60_000;
  for (;;) {
    const row = await deps.sandboxes.get(created.sandbox_id);
    if (row?.status === "running") return row;
    if (!row || row.status === "terminated") {
      throw new BuildStepError(
        `the build sandbox did not start: ${row?.terminationReason ?? "gone"}${row?.errorDetails ? ` (${row.errorDetails})` : ""}`,
      );
    }
    if (Date.now() > deadline) {
      await deps.sandboxes.remove(input.auth, created.sandbox_id).catch(() => undefined);
      throw new Error("the build sandbox did not start in time");
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function snapshotOf(deps: BuildDeps, projectId: string, sandboxId: string): Promise<SnapshotRow> {
  const row = await deps.sandboxes.get(sandboxId);
  if (row?.status !== "running") throw new Error(`the build sandbox is ${row?.status ?? "gone"}`);
  const snapshot = await deps.snapshots.create({
    projectId,
    sandboxId,
    baseImage: row.image ?? "default",
    snapshotType: "filesystem",
    status: "in_progress",
    kind: "build_cache",
  });
  await deps.sandboxes.snapshot(row, snapshot.id);
  const taken = await deps.snapshots.get(projectId, snapshot.id);
  if (taken?.status !== "completed") {
    await deps.snapshots.remove(snapshot.id);
    throw new Error(`the snapshot of the build sandbox failed: ${taken?.error ?? "unknown"}`);
  }
  return taken;
}

async function runStep(
  deps: BuildDeps,
  input: BuildInput,
  sandboxId: string,
  planned: Planned,
): Promise<void> {
  const row = await deps.sandboxes.get(sandboxId);
  if (row?.status !== "running") throw new Error(`the build sandbox is ${row?.status ?? "gone"}`);
  const link = deps.sandboxes.link(row);
  const { step, before } = planned;
  // PATH and the rest of the base environment are the daemon's (an image's own ENV included).
  const env = { ...planned.args, ...before.env };
  let command: string[];
  let user = processUser(before.user);
  const workingDir = before.working_dir ?? "/";
  if (step.kind === "run") {
    command = step.command;
  } else if (step.kind === "workdir") {
    const path = planned.after.working_dir ?? "/";
    command = ["/bin/sh", "-c", 'mkdir -p "$1"', "svc-workdir", path];
    user = "root";
  } else if (step.kind === "defaults") {
    command = [
      "/bin/sh",
      "-c",
      'mkdir -p "$(dirname "$1")" && printf "%s" "$2" > "$1"',
      "svc-defaults",
      PROCESS_DEFAULTS_FILE,
      JSON.stringify(step.defaults),
    ];
    user = "root";
  } else if (step.kind === "copy") {
    await uploadFile(link, CONTEXT_TAR, input.contextTar);
    const dest =
      step.dest.endsWith("/") || step.dest === "."
        ? `${posix.resolve(workingDir, step.dest)}/`
        : posix.resolve(workingDir, step.dest);
    const sources = step.sources.map((source) => posix.normalize(source.replace(/^\/+/, "")) || ".");
    command = [
      "/bin/sh",
      "-c",
      COPY_SCRIPT,
      "svc-copy",
      CONTEXT_TAR,
      dest,
      step.chown ?? "",
      step.chmod ?? "",
      step.add ? "1" : "0",
      ...sources,
    ];
    user = "root";
  } else {
    return;
  }
  const exit = await runProcess(
    link,
    {
      command: command[0],
      args: command.slice(1),
      env,
      working_dir: step.kind === "run" ? workingDir : "/",
      user,
    },
    (line, stream) => input.record.line(line, stream),
  );
  if (exit !== 0) throw new BuildStepError(`line ${step.line}: ${describe(step)} ended with ${exit}`);
}

async function uploadFile(link: SandboxLink, path: string, bytes: Buffer): Promise<void> {
  const pathAndQuery = `/api/v1/files?path=${encodeURIComponent(path)}`;
  const answer = await daemonStream(link, {
    method: "PUT",
    pathAndQuery,
    headers: { "content-type": "application/octet-stream" },
    body: bytes,
    idleTimeoutMs: 60_000,
  });
  const text = await answer.text();
  if (answer.status < 200 || answer.status >= 300)
    throw new Error(`writing ${path} in the build sandbox: ${answer.status} ${text}`);
}

/** Runs a process to its end through the daemon's run stream; its lines go to `onLine`. Answers the exit code (or `signal N`). */
async function runProcess(
  link: SandboxLink,
  request: {
    command: string;
    args: string[];
    env: Record<string, string>;
    working_dir: string;
    user: string;
  },
  onLine: (line: string, stream: "stdout" | "stderr") => void,
): Promise<number | string> {
  const answer = await daemonStream(link, {
    method: "POST",
    pathAndQuery: "/api/v1/processes/run",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify(request),
  });
  if (answer.status !== 200) {
    throw new BuildStepError(`the command could not start: ${answer.status} ${await answer.text()}`);
  }
  let exit: number | string = "no exit status";
  for await (const message of readSseStream(answer.body)) {
    const event = JSON.parse(message.data) as Record<string, unknown>;
    if (typeof event.line === "string") onLine(event.line, event.stream === "stderr" ? "stderr" : "stdout");
    else if (typeof event.exit_code === "number") exit = event.exit_code;
    else if (typeof event.signal === "number")
      exit = `signal ${event.signal}${event.oom_killed ? " (out of memory)" : ""}`;
  }
  return exit;
}
