import Type, { type Static } from "typebox";
import { closed, EpochMs, Health, MANAGEMENT_PORT, nullable, Port } from "./common.ts";
import { defineRoutes } from "./route.ts";

/**
 * The runtime API: what the in-sandbox daemon serves on {@link RUNTIME_PORT} under `/api/v1/`, reached through
 * the sandbox proxy, which authenticates the caller and adds the forwarded-auth header (forwarded-auth.ts).
 * Timestamps are milliseconds since the Unix epoch.
 */

/** The daemon's port inside the sandbox: the management port, always routable. */
export const RUNTIME_PORT = MANAGEMENT_PORT;
export const RUNTIME_API_PREFIX = "/api/v1";

/** Most PTY sessions one sandbox may hold; one more answers 429 TOO_MANY_SESSIONS. */
export const MAX_PTY_SESSIONS = 64;
export const PTY_MIN_ROWS = 1;
export const PTY_MAX_ROWS = 500;
export const PTY_DEFAULT_ROWS = 24;
export const PTY_MIN_COLS = 1;
export const PTY_MAX_COLS = 1000;
export const PTY_DEFAULT_COLS = 80;

/** Header that may carry the PTY token instead of the `token` query parameter. */
export const PTY_TOKEN_HEADER = "x-pty-token";
/** The user processes run as when a start request names none. */
export const DEFAULT_PROCESS_USER = "svc-user";
/**
 * A file in a sandbox's root that gives its processes defaults, `{env?, working_dir?, user?}` (a template built
 * from a Dockerfile holds one from its ENV, WORKDIR and USER). The daemon reads it when it starts; a request's
 * own env, working_dir and user win over it.
 */
export const PROCESS_DEFAULTS_FILE = "/etc/svc/process-defaults.json";
/** WebSocket close code of a tunnel that received a text frame (only binary frames are relayed). */
export const TUNNEL_CLOSE_TEXT_FRAME = 1003;
/** Port of the in-sandbox sshd (loopback only), which the service's SSH gateway reaches through a TCP tunnel. */
export const SANDBOX_SSHD_PORT = 2022;

export interface PtySize {
  rows: number;
  cols: number;
}

function clampDimension(
  value: number | null | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (typeof value !== "number" || Number.isNaN(value))
    return Math.min(max, Math.max(min, Math.trunc(fallback)));
  return Math.min(max, Math.max(min, Math.trunc(value)));
}

/**
 * Brings a requested terminal size into bounds: rows to 1..500, cols to 1..1000. A missing value takes the
 * fallback (the session's current size on resize; 24×80 on create). Out-of-range values are clamped, never
 * rejected.
 */
export function clampPtySize(
  size: { rows?: number | null; cols?: number | null },
  fallback: PtySize = { rows: PTY_DEFAULT_ROWS, cols: PTY_DEFAULT_COLS },
): PtySize {
  return {
    rows: clampDimension(size.rows, fallback.rows, PTY_MIN_ROWS, PTY_MAX_ROWS),
    cols: clampDimension(size.cols, fallback.cols, PTY_MIN_COLS, PTY_MAX_COLS),
  };
}

// Bounds that reject huge inputs at the schema, before the daemon does any work.
const NO_NUL = "^[^\\u0000]*$";
const MAX_PATH = 4096;
/** Linux MAX_ARG_STRLEN: the longest single argument or environment string exec accepts. */
const MAX_ARG = 131072;
const MAX_ARGS = 4096;
const MAX_ENV = 4096;
/** Largest uid or gid; 4294967295 is (uid_t)-1, "no id". */
const MAX_ID = 4294967294;
/** Largest Linux pid (PID_MAX_LIMIT). */
const MAX_PID = 4194304;

const Command = Type.String({ minLength: 1, maxLength: MAX_PATH, pattern: NO_NUL });
const Args = Type.Array(Type.String({ maxLength: MAX_ARG, pattern: NO_NUL }), { maxItems: MAX_ARGS });
export const ProcessEnv = Type.Record(Type.String(), Type.String({ maxLength: MAX_ARG, pattern: NO_NUL }), {
  maxProperties: MAX_ENV,
  propertyNames: { minLength: 1, maxLength: 1024, pattern: "^[^=\\u0000]+$" },
  description: "Added to the process environment",
});
const WorkingDir = Type.String({ minLength: 1, maxLength: MAX_PATH, pattern: NO_NUL });

const UserId = Type.Integer({ minimum: 0, maximum: MAX_ID });
const UserName = Type.String({ minLength: 1, maxLength: 32, pattern: "^[A-Za-z_][A-Za-z0-9_.-]*\\$?$" });

/**
 * Who a process runs as: a user name (`svc-user`), a UID (`"1000"`), `"uid:gid"` (`"1000:1000"`), or an object
 * `{uid, gid?}`; the public SDKs also send `{name, gid?}`. A missing gid is the user's primary group, or the
 * uid itself when the uid has no passwd entry. A user that does not exist answers 400 INVALID_USER.
 */
export const ProcessUser = Type.Union(
  [
    Type.String({
      minLength: 1,
      maxLength: 32,
      pattern: "^(?:[A-Za-z_][A-Za-z0-9_.-]*\\$?|[0-9]{1,10}(?::[0-9]{1,10})?)$",
    }),
    Type.Object({ uid: UserId, gid: Type.Optional(UserId) }, closed),
    Type.Object({ name: UserName, gid: Type.Optional(UserId) }, closed),
  ],
  { $id: "ProcessUser" },
);
export type ProcessUser = Static<typeof ProcessUser>;

export type ParsedProcessUser =
  | { kind: "name"; name: string; gid?: number }
  | { kind: "ids"; uid: number; gid?: number };

/**
 * Sorts a {@link ProcessUser} into a name to look up or numeric ids; undefined when it is in none of the forms
 * (or an id is out of range), which the daemon answers with INVALID_USER.
 */
export function parseProcessUser(user: unknown): ParsedProcessUser | undefined {
  const isId = (value: unknown): value is number =>
    typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= MAX_ID;
  if (typeof user === "string") {
    const ids = /^([0-9]{1,10})(?::([0-9]{1,10}))?$/.exec(user);
    if (ids) {
      const uid = Number(ids[1]);
      const gid = ids[2] === undefined ? undefined : Number(ids[2]);
      if (!isId(uid) || (gid !== undefined && !isId(gid))) return undefined;
      return gid === undefined ? { kind: "ids", uid } : { kind: "ids", uid, gid };
    }
    return user.length <= 32 && /^[A-Za-z_][A-Za-z0-9_.-]*\$?$/.test(user)
      ? { kind: "name", name: user }
      : undefined;
  }
  if (typeof user !== "object" || user === null || Array.isArray(user)) return undefined;
  const { uid, gid, name, ...rest } = user as Record<string, unknown>;
  if (Object.keys(rest).length > 0 || (gid !== undefined && !isId(gid))) return undefined;
  if (uid !== undefined && name === undefined && isId(uid)) {
    return gid === undefined ? { kind: "ids", uid } : { kind: "ids", uid, gid };
  }
  if (name !== undefined && uid === undefined && typeof name === "string") {
    const parsed = parseProcessUser(name);
    if (parsed?.kind !== "name") return undefined;
    return gid === undefined ? parsed : { ...parsed, gid };
  }
  return undefined;
}

/** Integer seconds; a process still running after that many seconds is killed (SIGKILL). */
export const ProcessTimeout = Type.Integer({ minimum: 1, maximum: 31536000 });

export const StdinMode = Type.Enum(["closed", "pipe"]);
export type StdinMode = Static<typeof StdinMode>;
export const OutputMode = Type.Enum(["capture", "discard"]);
export type OutputMode = Static<typeof OutputMode>;

export const StartProcessRequest = Type.Object(
  {
    command: Command,
    args: Type.Optional(Args),
    env: Type.Optional(ProcessEnv),
    working_dir: Type.Optional(WorkingDir),
    /** Default {@link DEFAULT_PROCESS_USER}. */
    user: Type.Optional(ProcessUser),
    stdin_mode: Type.Optional(Type.Enum(["closed", "pipe"], { default: "closed" })),
    stdout_mode: Type.Optional(Type.Enum(["capture", "discard"], { default: "capture" })),
    stderr_mode: Type.Optional(Type.Enum(["capture", "discard"], { default: "capture" })),
  },
  { ...closed, $id: "StartProcessRequest" },
);
export type StartProcessRequest = Static<typeof StartProcessRequest>;

/**
 * `POST /api/v1/processes/run`: stdin is always closed and stdout and stderr always captured; the three mode
 * fields are accepted (clients send them) and ignored.
 */
export const RunProcessRequest = Type.Object(
  {
    command: Command,
    args: Type.Optional(Args),
    env: Type.Optional(ProcessEnv),
    working_dir: Type.Optional(WorkingDir),
    user: Type.Optional(ProcessUser),
    timeout: Type.Optional(ProcessTimeout),
    stdin_mode: Type.Optional(StdinMode),
    stdout_mode: Type.Optional(OutputMode),
    stderr_mode: Type.Optional(OutputMode),
  },
  { ...closed, $id: "RunProcessRequest" },
);
export type RunProcessRequest = Static<typeof RunProcessRequest>;

export const ProcessStatus = Type.Enum(["running", "exited", "signaled", "oom_killed"], {
  $id: "ProcessStatus",
});
export type ProcessStatus = Static<typeof ProcessStatus>;

export const Process = Type.Object(
  {
    /** Daemon-local identifier; route paths use pid. */
    handle: Type.Integer({ minimum: 0 }),
    pid: Type.Integer({ minimum: 1 }),
    status: ProcessStatus,
    stdin_writable: Type.Boolean(),
    command: Type.String(),
    args: Type.Array(Type.String()),
    started_at: EpochMs,
    exit_code: nullable(Type.Integer()),
    signal: nullable(Type.Integer()),
    ended_at: nullable(EpochMs),
    /** The kernel's out-of-memory killer ended the process (then status is `oom_killed` and signal 9). */
    oom_killed: Type.Boolean(),
  },
  { $id: "Process" },
);
export type Process = Static<typeof Process>;

export const ProcessOutput = Type.Object(
  {
    pid: Type.Integer({ minimum: 1 }),
    lines: Type.Array(Type.String()),
    line_count: Type.Integer({ minimum: 0 }),
  },
  { $id: "ProcessOutput" },
);
export type ProcessOutput = Static<typeof ProcessOutput>;

/**
 * A signal number (1..64) or a name, with or without the `SIG` prefix, in any case (`SIGTERM`, `TERM`, `term`,
 * `SIGRTMIN+2`). An unknown name answers 400 INVALID_SIGNAL.
 */
export const SignalValue = Type.Union([
  Type.Integer({ minimum: 1, maximum: 64 }),
  Type.String({ minLength: 1, maxLength: 16, pattern: "^[A-Za-z][A-Za-z0-9+-]*$" }),
]);
export const SignalRequest = Type.Object({ signal: SignalValue }, closed);
export type SignalRequest = Static<typeof SignalRequest>;
export const SignalResponse = Type.Object({ success: Type.Boolean() });

export const OutputStream = Type.Enum(["stdout", "stderr"]);
export type OutputStream = Static<typeof OutputStream>;

// Stream events. The run stream sends plain `data:` frames (no event names): start, then output lines, then exit.

export const RunStartEvent = Type.Object({
  handle: Type.Integer({ minimum: 0 }),
  pid: Type.Integer({ minimum: 1 }),
  started_at: EpochMs,
});
export type RunStartEvent = Static<typeof RunStartEvent>;

export const RunOutputEvent = Type.Object({ line: Type.String(), timestamp: EpochMs, stream: OutputStream });
export type RunOutputEvent = Static<typeof RunOutputEvent>;

/** The last frame: an exit code, or the signal that ended the process (9 with oom_killed for the OOM killer). */
export const RunExitEvent = Type.Union([
  Type.Object({ exit_code: Type.Integer() }),
  Type.Object({ signal: Type.Integer({ minimum: 1, maximum: 64 }), oom_killed: Type.Boolean() }),
]);
export type RunExitEvent = Static<typeof RunExitEvent>;

export const RunStreamEvent = Type.Union([RunStartEvent, RunOutputEvent, RunExitEvent], {
  $id: "RunStreamEvent",
});
export type RunStreamEvent = Static<typeof RunStreamEvent>;

/** A run stream event with its kind: a reader switches on `kind` and gets the event's own type. */
export type RunStreamFrame =
  | { kind: "start"; event: RunStartEvent }
  | { kind: "output"; event: RunOutputEvent }
  | { kind: "exit"; event: RunExitEvent };

/**
 * The kind of a run stream event, told by the field only that kind has (the frames carry no event names).
 *
 * @example
 * const frame = runStreamFrame(JSON.parse(message.data));
 * if (frame.kind === "output") console.log(frame.event.stream, frame.event.line);
 */
export function runStreamFrame(event: RunStreamEvent): RunStreamFrame {
  if ("handle" in event) return { kind: "start", event };
  if ("line" in event) return { kind: "output", event };
  return { kind: "exit", event };
}

export function runStreamEventKind(event: RunStreamEvent): RunStreamFrame["kind"] {
  return runStreamFrame(event).kind;
}

/** Event names of the follow streams: captured lines are replayed first, then live ones, then `eof`. */
export const FollowEventName = { output: "output", eof: "eof" } as const;

/** `stream` only on `/output/follow`; replayed lines may carry timestamp 0. */
export const FollowOutputEvent = Type.Object({
  line: Type.String(),
  timestamp: EpochMs,
  stream: Type.Optional(OutputStream),
});
export type FollowOutputEvent = Static<typeof FollowOutputEvent>;
export const FollowEofEvent = Type.Object({}, closed);
export type FollowEofEvent = Static<typeof FollowEofEvent>;
export const FollowEvent = Type.Union([FollowOutputEvent, FollowEofEvent], { $id: "FollowEvent" });

// PTY

const PtyDimension = (fallback: number, min: number, max: number) =>
  Type.Integer({ default: fallback, description: `clamped to ${min}..${max}, never rejected` });

export const CreatePtySessionRequest = Type.Object(
  {
    command: Command,
    args: Type.Optional(Args),
    env: Type.Optional(ProcessEnv),
    working_dir: Type.Optional(WorkingDir),
    rows: Type.Optional(PtyDimension(PTY_DEFAULT_ROWS, PTY_MIN_ROWS, PTY_MAX_ROWS)),
    cols: Type.Optional(PtyDimension(PTY_DEFAULT_COLS, PTY_MIN_COLS, PTY_MAX_COLS)),
  },
  { ...closed, $id: "CreatePtySessionRequest" },
);
export type CreatePtySessionRequest = Static<typeof CreatePtySessionRequest>;

/** A missing dimension keeps its current value. */
export const ResizePtyRequest = Type.Object(
  {
    rows: Type.Optional(Type.Integer({ description: `clamped to ${PTY_MIN_ROWS}..${PTY_MAX_ROWS}` })),
    cols: Type.Optional(Type.Integer({ description: `clamped to ${PTY_MIN_COLS}..${PTY_MAX_COLS}` })),
  },
  { ...closed, $id: "ResizePtyRequest" },
);
export type ResizePtyRequest = Static<typeof ResizePtyRequest>;

export const PtySessionCreated = Type.Object(
  {
    session_id: Type.String(),
    /** The secret a WebSocket must present (query `token` or header `X-PTY-Token`); shown only here. */
    token: Type.String(),
  },
  { $id: "PtySessionCreated" },
);
export type PtySessionCreated = Static<typeof PtySessionCreated>;

export const PtySessionStatus = Type.Enum(["running", "exited"]);

/** A session outlives its WebSocket: reconnecting with the token resumes it and replays recent output. */
export const PtySession = Type.Object(
  {
    session_id: Type.String(),
    command: Type.String(),
    args: Type.Array(Type.String()),
    pid: Type.Integer({ minimum: 1 }),
    status: PtySessionStatus,
    exit_code: nullable(Type.Integer()),
    rows: Type.Integer({ minimum: PTY_MIN_ROWS, maximum: PTY_MAX_ROWS }),
    cols: Type.Integer({ minimum: PTY_MIN_COLS, maximum: PTY_MAX_COLS }),
    /** WebSockets attached now. */
    client_count: Type.Integer({ minimum: 0 }),
    created_at: EpochMs,
  },
  { $id: "PtySession" },
);
export type PtySession = Static<typeof PtySession>;

// Files

/** Absolute, or relative to the sandbox user's home. A `..` segment answers 403 PATH_TRAVERSAL. */
export const FilePathQuery = Type.Object(
  { path: Type.String({ minLength: 1, maxLength: MAX_PATH, pattern: NO_NUL }) },
  closed,
);

export const DirectoryEntry = Type.Object(
  {
    name: Type.String(),
    is_dir: Type.Boolean(),
    size: Type.Integer({ minimum: 0 }),
    modified_at: EpochMs,
  },
  { $id: "DirectoryEntry" },
);
export type DirectoryEntry = Static<typeof DirectoryEntry>;

export const DirectoryListing = Type.Object(
  { path: Type.String(), entries: Type.Array(DirectoryEntry) },
  { $id: "DirectoryListing" },
);
export type DirectoryListing = Static<typeof DirectoryListing>;

// SSH, info

export const EnableSshRequest = Type.Object(
  {
    /** The SSH proxy's backend public key, one authorized_keys line. */
    proxy_pubkey: Type.String({ minLength: 1, maxLength: 16384, pattern: "^[^\\r\\n\\u0000]+$" }),
    /** Default {@link DEFAULT_PROCESS_USER}. */
    backend_user: Type.Optional(UserName),
  },
  { ...closed, $id: "EnableSshRequest" },
);
export type EnableSshRequest = Static<typeof EnableSshRequest>;

export const SshStatus = Type.Object(
  {
    enabled: Type.Boolean(),
    pid: nullable(Type.Integer({ minimum: 1 })),
    /** `SHA256:…`; still present after disable. */
    host_key_fingerprint: Type.String(),
  },
  { $id: "SshStatus" },
);
export type SshStatus = Static<typeof SshStatus>;

export const RuntimeInfo = Type.Object(
  {
    version: Type.String(),
    uptime_secs: Type.Integer({ minimum: 0 }),
    running_processes: Type.Integer({ minimum: 0 }),
    total_processes: Type.Integer({ minimum: 0 }),
  },
  { $id: "RuntimeInfo" },
);
export type RuntimeInfo = Static<typeof RuntimeInfo>;

// Path and query parameters

export const PidParams = Type.Object({ pid: Type.Integer({ minimum: 1, maximum: MAX_PID }) });
export const PtySessionParams = Type.Object({ session_id: Type.String({ minLength: 1, maxLength: 128 }) });
export const PtyConnectQuery = Type.Object(
  { token: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })) },
  closed,
);
/** A missing, non-numeric or 0 port answers 400 INVALID_PORT. */
export const TunnelQuery = Type.Object({ port: Port }, closed);

/** Most log records one logs request returns. */
export const MAX_LOG_RECORDS = 10_000;

export const LogsQuery = Type.Object(
  {
    /** The first N records (oldest first); with `skip`, a page of them. */
    head: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LOG_RECORDS })),
    /** The last N records; the default is the last MAX_LOG_RECORDS. */
    tail: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LOG_RECORDS })),
    /** Records to pass over before `head` starts. */
    skip: Type.Optional(Type.Integer({ minimum: 0 })),
    /** Only these processes: pids, comma-separated. */
    pids: Type.Optional(Type.String({ pattern: "^\\d{1,10}(,\\d{1,10}){0,999}$" })),
    stream: Type.Optional(OutputStream),
    /** Only lines containing this text. */
    contains: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
  },
  closed,
);

/** One output line of a process, as a log record. */
export const LogRecord = Type.Object({
  pid: Type.Integer(),
  /** The line's number in its process's output, from 0. */
  seq: Type.Integer({ minimum: 0 }),
  command: Type.String(),
  stream: OutputStream,
  timestamp: EpochMs,
  line: Type.String(),
});

/** What the logs hold of one process. */
export const LogProcess = Type.Object({
  pid: Type.Integer(),
  command: Type.String(),
  first_seen: EpochMs,
  last_seen: EpochMs,
  line_count: Type.Integer({ minimum: 0 }),
});

export const LogsResponse = Type.Object({
  /** In time order. */
  records: Type.Array(LogRecord),
  /** How many records matched before head, tail and skip. */
  matched: Type.Integer({ minimum: 0 }),
  /** Every process with output, whatever the filters. */
  processes: Type.Array(LogProcess),
});
export type LogsResponse = Static<typeof LogsResponse>;

const forwarded = { surface: "runtime", auth: "forwarded" } as const;
const processErrors = ["PROCESS_NOT_FOUND"] as const;
const spawnErrors = ["INVALID_USER", "INVALID_WORKING_DIR", "SPAWN_FAILED"] as const;

/**
 * Every route of the runtime daemon. For `sse` routes, `response` is the schema of one event's `data`.
 */
export const runtimeRoutes = defineRoutes({
  runProcess: {
    ...forwarded,
    method: "POST",
    path: "/api/v1/processes/run",
    summary: "Run a process to its end, streaming start, output lines and exit as SSE data frames",
    tag: "processes",
    body: RunProcessRequest,
    status: 200,
    response: RunStreamEvent,
    responseKind: "sse",
    errors: spawnErrors,
  },
  startProcess: {
    ...forwarded,
    method: "POST",
    path: "/api/v1/processes",
    summary: "Start a process in the background",
    tag: "processes",
    body: StartProcessRequest,
    status: 201,
    response: Process,
    responseKind: "json",
    errors: spawnErrors,
  },
  listProcesses: {
    ...forwarded,
    method: "GET",
    path: "/api/v1/processes",
    summary: "List the daemon's processes, running and ended",
    tag: "processes",
    status: 200,
    response: Type.Object({ processes: Type.Array(Process) }),
    responseKind: "json",
  },
  getProcess: {
    ...forwarded,
    method: "GET",
    path: "/api/v1/processes/{pid}",
    summary: "Get a process by its operating-system pid",
    tag: "processes",
    params: PidParams,
    status: 200,
    response: Process,
    responseKind: "json",
    errors: processErrors,
  },
  killProcess: {
    ...forwarded,
    method: "DELETE",
    path: "/api/v1/processes/{pid}",
    summary: "Kill a process: SIGKILL to its whole process group",
    tag: "processes",
    params: PidParams,
    status: 204,
    responseKind: "empty",
    errors: processErrors,
  },
  signalProcess: {
    ...forwarded,
    method: "POST",
    path: "/api/v1/processes/{pid}/signal",
    summary: "Send a signal, by number or name, to a process",
    tag: "processes",
    params: PidParams,
    body: SignalRequest,
    status: 200,
    response: SignalResponse,
    responseKind: "json",
    errors: [...processErrors, "INVALID_SIGNAL"],
  },
  writeProcessStdin: {
    ...forwarded,
    method: "POST",
    path: "/api/v1/processes/{pid}/stdin",
    summary: "Write the raw request body to a process's stdin pipe",
    tag: "processes",
    params: PidParams,
    bodyKind: "raw",
    status: 204,
    responseKind: "empty",
    errors: [...processErrors, "STDIN_NOT_WRITABLE"],
  },
  closeProcessStdin: {
    ...forwarded,
    method: "POST",
    path: "/api/v1/processes/{pid}/stdin/close",
    summary: "Close a process's stdin pipe (EOF)",
    tag: "processes",
    params: PidParams,
    status: 204,
    responseKind: "empty",
    errors: [...processErrors, "STDIN_NOT_WRITABLE"],
  },
  getProcessStdout: {
    ...forwarded,
    method: "GET",
    path: "/api/v1/processes/{pid}/stdout",
    summary: "Captured stdout lines",
    tag: "processes",
    params: PidParams,
    status: 200,
    response: ProcessOutput,
    responseKind: "json",
    errors: processErrors,
  },
  getProcessStderr: {
    ...forwarded,
    method: "GET",
    path: "/api/v1/processes/{pid}/stderr",
    summary: "Captured stderr lines",
    tag: "processes",
    params: PidParams,
    status: 200,
    response: ProcessOutput,
    responseKind: "json",
    errors: processErrors,
  },
  getProcessOutput: {
    ...forwarded,
    method: "GET",
    path: "/api/v1/processes/{pid}/output",
    summary: "Captured stdout and stderr lines, combined in arrival order, without stream tags",
    tag: "processes",
    params: PidParams,
    status: 200,
    response: ProcessOutput,
    responseKind: "json",
    errors: processErrors,
  },
  followProcessStdout: {
    ...forwarded,
    method: "GET",
    path: "/api/v1/processes/{pid}/stdout/follow",
    summary: "SSE: captured stdout replayed, then live lines, then eof",
    tag: "processes",
    params: PidParams,
    status: 200,
    response: FollowEvent,
    responseKind: "sse",
    errors: processErrors,
  },
  followProcessStderr: {
    ...forwarded,
    method: "GET",
    path: "/api/v1/processes/{pid}/stderr/follow",
    summary: "SSE: captured stderr replayed, then live lines, then eof",
    tag: "processes",
    params: PidParams,
    status: 200,
    response: FollowEvent,
    responseKind: "sse",
    errors: processErrors,
  },
  followProcessOutput: {
    ...forwarded,
    method: "GET",
    path: "/api/v1/processes/{pid}/output/follow",
    summary: "SSE: captured stdout and stderr replayed, then live lines tagged with their stream, then eof",
    tag: "processes",
    params: PidParams,
    status: 200,
    response: FollowEvent,
    responseKind: "sse",
    errors: processErrors,
  },

  createPtySession: {
    ...forwarded,
    method: "POST",
    path: "/api/v1/pty",
    summary: "Create a PTY session; rows and cols are clamped to their bounds",
    tag: "pty",
    body: CreatePtySessionRequest,
    status: 201,
    response: PtySessionCreated,
    responseKind: "json",
    errors: ["TOO_MANY_SESSIONS", "INVALID_WORKING_DIR", "SPAWN_FAILED"],
  },
  listPtySessions: {
    ...forwarded,
    method: "GET",
    path: "/api/v1/pty",
    summary: "List the PTY sessions",
    tag: "pty",
    status: 200,
    response: Type.Object({ sessions: Type.Array(PtySession) }),
    responseKind: "json",
  },
  getPtySession: {
    ...forwarded,
    method: "GET",
    path: "/api/v1/pty/{session_id}",
    summary: "Get a PTY session",
    tag: "pty",
    params: PtySessionParams,
    status: 200,
    response: PtySession,
    responseKind: "json",
    errors: ["SESSION_NOT_FOUND"],
  },
  deletePtySession: {
    ...forwarded,
    method: "DELETE",
    path: "/api/v1/pty/{session_id}",
    summary: "End a PTY session; attached WebSockets close with 1001",
    tag: "pty",
    params: PtySessionParams,
    status: 204,
    responseKind: "empty",
    errors: ["SESSION_NOT_FOUND"],
  },
  resizePtySession: {
    ...forwarded,
    method: "POST",
    path: "/api/v1/pty/{session_id}/resize",
    summary: "Resize a PTY session; rows and cols are clamped to their bounds",
    tag: "pty",
    params: PtySessionParams,
    body: ResizePtyRequest,
    status: 204,
    responseKind: "empty",
    errors: ["SESSION_NOT_FOUND"],
  },
  connectPty: {
    ...forwarded,
    method: "GET",
    path: "/api/v1/pty/{session_id}/ws",
    summary: "WebSocket of a PTY session (binary frames, pty-frames.ts); token in the query or X-PTY-Token",
    tag: "pty",
    params: PtySessionParams,
    query: PtyConnectQuery,
    status: 101,
    responseKind: "websocket",
    errors: ["SESSION_NOT_FOUND", "INVALID_TOKEN"],
  },

  readSandboxFile: {
    ...forwarded,
    method: "GET",
    path: "/api/v1/files",
    summary: "Read a file's bytes (application/octet-stream)",
    tag: "files",
    query: FilePathQuery,
    status: 200,
    responseKind: "bytes",
    errors: ["NOT_FOUND", "PATH_TRAVERSAL", "IS_DIRECTORY", "PERMISSION_DENIED"],
  },
  writeSandboxFile: {
    ...forwarded,
    method: "PUT",
    path: "/api/v1/files",
    summary: "Write the raw request body to a file, creating parent directories",
    tag: "files",
    query: FilePathQuery,
    bodyKind: "raw",
    status: 204,
    responseKind: "empty",
    errors: ["PATH_TRAVERSAL", "IS_DIRECTORY", "NOT_A_DIRECTORY", "PERMISSION_DENIED", "NO_SPACE"],
  },
  deleteSandboxFile: {
    ...forwarded,
    method: "DELETE",
    path: "/api/v1/files",
    summary: "Delete a file",
    tag: "files",
    query: FilePathQuery,
    status: 204,
    responseKind: "empty",
    errors: ["NOT_FOUND", "PATH_TRAVERSAL", "IS_DIRECTORY", "PERMISSION_DENIED"],
  },
  listSandboxDirectory: {
    ...forwarded,
    method: "GET",
    path: "/api/v1/files/list",
    summary: "List a directory's entries",
    tag: "files",
    query: FilePathQuery,
    status: 200,
    response: DirectoryListing,
    responseKind: "json",
    errors: ["NOT_FOUND", "PATH_TRAVERSAL", "NOT_A_DIRECTORY", "PERMISSION_DENIED"],
  },

  enableSsh: {
    ...forwarded,
    method: "POST",
    path: "/api/v1/ssh/enable",
    summary: "Start the SSH daemon for the SSH proxy's key",
    tag: "ssh",
    body: EnableSshRequest,
    status: 200,
    response: SshStatus,
    responseKind: "json",
    errors: ["INVALID_USER", "SSH_FAILED"],
  },
  disableSsh: {
    ...forwarded,
    method: "POST",
    path: "/api/v1/ssh/disable",
    summary: "Stop the SSH daemon",
    tag: "ssh",
    status: 200,
    response: SshStatus,
    responseKind: "json",
  },
  getSshStatus: {
    ...forwarded,
    method: "GET",
    path: "/api/v1/ssh/status",
    summary: "State of the SSH daemon",
    tag: "ssh",
    status: 200,
    response: SshStatus,
    responseKind: "json",
  },

  runtimeInfo: {
    ...forwarded,
    method: "GET",
    path: "/api/v1/info",
    summary: "Daemon version, uptime and process counts",
    tag: "info",
    status: 200,
    response: RuntimeInfo,
    responseKind: "json",
  },
  getLogs: {
    ...forwarded,
    method: "GET",
    path: "/api/v1/logs",
    summary:
      "Every process's output lines as time-ordered log records, filtered; and which processes have output",
    tag: "info",
    query: LogsQuery,
    status: 200,
    response: LogsResponse,
    responseKind: "json",
  },
  runtimeHealth: {
    method: "GET",
    path: "/api/v1/health",
    summary: "Liveness of the daemon",
    tag: "info",
    surface: "runtime",
    auth: "none",
    status: 200,
    response: Health,
    responseKind: "json",
  },

  openTcpTunnel: {
    ...forwarded,
    method: "GET",
    path: "/api/v1/tunnels/tcp",
    summary: "WebSocket relaying binary frames to and from 127.0.0.1:<port> in the sandbox",
    tag: "tunnels",
    query: TunnelQuery,
    status: 101,
    responseKind: "websocket",
    errors: ["INVALID_PORT", "CONNECTION_FAILED"],
  },
});
