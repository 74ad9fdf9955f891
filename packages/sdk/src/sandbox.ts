import {
  type CreateSandboxRequest,
  type FileSystemMount,
  type FollowOutputEvent,
  type Process,
  type ProcessOutput,
  type ProcessUser,
  type RunStreamEvent,
  readSseStream,
  runStreamFrame,
  runtimeRoutes,
  type Sandbox as SandboxRecord,
  type SandboxStartTimeline,
  type StartProcessRequest,
  sandboxRoutes,
  type UpdateSandboxRequest,
} from "@svc/contract";
import { ClientError, SandboxTerminatedError, TimeoutError } from "./errors.ts";
import { openPty, type PtyOptions, type PtyTerminal } from "./pty.ts";
import type { Transport } from "./transport.ts";
import { Tunnel } from "./tunnel.ts";

/** Options of `sandbox.run()`. */
export interface RunOptions {
  args?: string[];
  env?: Record<string, string>;
  workingDir?: string;
  user?: ProcessUser;
  /** Seconds; the process and its descendants are killed when it runs longer. */
  timeout?: number;
  /** Called with each line as it arrives. */
  onStdout?: (line: string) => void;
  onStderr?: (line: string) => void;
  signal?: AbortSignal;
}

/** The outcome of `sandbox.run()`. */
export interface RunResult {
  pid: number;
  exitCode: number | null;
  signal: number | null;
  oomKilled: boolean;
  stdout: string;
  stderr: string;
}

/** How the SDK reaches sandboxes: through the proxy, naming the sandbox in a header when the host cannot. */
export interface RuntimeConnector {
  /** A transport to the daemon of a sandbox, given its record. */
  transportFor(record: SandboxRecord): Transport;
}

/**
 * A handle on one sandbox: its record, and its runtime API (processes, files) through the proxy.
 *
 * @example
 * const sandbox = await client.sandboxes.create({ resources: { cpus: 1, memory_mb: 512 } });
 * await sandbox.waitUntilRunning();
 * const { stdout } = await sandbox.run("uname", { args: ["-a"] });
 * await sandbox.delete();
 */
export class Sandbox {
  readonly id: string;
  record: SandboxRecord | undefined;
  readonly processes: Processes;
  readonly files: Files;
  readonly #control: Transport;
  readonly #connector: RuntimeConnector;
  #runtime: Transport | undefined;

  constructor(id: string, control: Transport, connector: RuntimeConnector, record?: SandboxRecord) {
    this.id = id;
    this.record = record;
    this.#control = control;
    this.#connector = connector;
    this.processes = new Processes(() => this.runtime());
    this.files = new Files(() => this.runtime());
  }

  /** The transport to this sandbox's daemon (needs the record: call refresh() or waitUntilRunning() first). */
  runtime(): Transport {
    if (!this.record)
      throw new ClientError("the sandbox record is not loaded: call refresh() first", "NO_RECORD");
    this.#runtime ??= this.#connector.transportFor(this.record);
    return this.#runtime;
  }

  /**
   * Reloads the record.
   *
   * @example
   * const { status } = await sandbox.refresh();
   */
  async refresh(): Promise<SandboxRecord> {
    this.record = await this.#control.call(sandboxRoutes.getSandbox, { params: { sandbox_id: this.id } });
    return this.record;
  }

  /**
   * Polls until the sandbox runs; throws when it ends terminated (with its termination reason) or on timeout.
   *
   * @example
   * await sandbox.waitUntilRunning({ timeoutMs: 60_000 });
   */
  async waitUntilRunning(options: { timeoutMs?: number; intervalMs?: number } = {}): Promise<SandboxRecord> {
    const deadline = Date.now() + (options.timeoutMs ?? 120_000);
    let interval = options.intervalMs ?? 20;
    for (;;) {
      const record = await this.refresh();
      if (record.status === "running") return record;
      if (record.status === "terminated") {
        throw new SandboxTerminatedError(
          `sandbox ${this.id} ended before running: ${record.termination_reason ?? record.outcome ?? "terminated"}${record.error_details ? ` (${record.error_details})` : ""}`,
          record.termination_reason ?? null,
        );
      }
      if (Date.now() > deadline) {
        throw new TimeoutError(
          `sandbox ${this.id} is still ${record.status} (${record.pending_reason ?? ""})`,
        );
      }
      await new Promise((r) => setTimeout(r, interval));
      interval = Math.min(interval * 2, 500);
    }
  }

  /**
   * Updates name, exposed ports, unauthenticated access or the network policy.
   *
   * @example
   * await sandbox.update({ exposed_ports: [8080] });
   */
  async update(changes: UpdateSandboxRequest): Promise<SandboxRecord> {
    this.record = await this.#control.call(sandboxRoutes.updateSandbox, {
      params: { sandbox_id: this.id },
      body: changes,
    });
    return this.record;
  }

  /**
   * Mounts a named file system at an absolute path (read-only when asked; pinned to a permanent snapshot, which
   * must be read-only). The record lists it at once; the mount is usable a moment later. A file system that does
   * not exist ends the sandbox (`termination_reason` FileSystemNotFound).
   *
   * @example
   * await sandbox.mount({ file_system_id: "datasets", mount_path: "/data", read_only: true });
   */
  async mount(mount: FileSystemMount): Promise<SandboxRecord> {
    this.record = await this.#control.call(sandboxRoutes.attachFileSystem, {
      params: { sandbox_id: this.id },
      body: mount,
    });
    return this.record;
  }

  /**
   * Unmounts the file system at a path.
   *
   * @example
   * await sandbox.unmount("/data");
   */
  async unmount(mountPath: string): Promise<SandboxRecord> {
    this.record = await this.#control.call(sandboxRoutes.detachFileSystem, {
      params: { sandbox_id: this.id },
      body: { mount_path: mountPath },
    });
    return this.record;
  }

  /**
   * Where the sandbox's start spent its time: the wait for an executor, then each step the executor took (image,
   * cgroups, disk, network, launch, the daemon's own start-up) in ms from when it began. Empty steps until the
   * start has ended.
   *
   * @example
   * const { steps } = await sandbox.startTimeline();
   * for (const s of steps) console.log(s.step, s.to_ms - s.from_ms);
   */
  startTimeline(): Promise<SandboxStartTimeline> {
    return this.#control.call(sandboxRoutes.getSandboxStartTimeline, { params: { sandbox_id: this.id } });
  }

  /**
   * Suspends the sandbox (named sandboxes only): every process frozen, no CPU used, memory and files kept.
   *
   * @example
   * await sandbox.suspend();
   */
  async suspend(): Promise<SandboxRecord> {
    this.record = await this.#control.call(sandboxRoutes.suspendSandbox, { params: { sandbox_id: this.id } });
    return this.record;
  }

  /**
   * Resumes a suspended sandbox where it stopped.
   *
   * @example
   * await sandbox.resume();
   */
  async resume(): Promise<SandboxRecord> {
    this.record = await this.#control.call(sandboxRoutes.resumeSandbox, { params: { sandbox_id: this.id } });
    return this.record;
  }

  /**
   * Takes a filesystem snapshot (the sandbox frozen while its disk is copied); wait for it with
   * `client.snapshots.wait(id)`, then create sandboxes with `snapshot_id`.
   *
   * @example
   * const { snapshot_id } = await sandbox.snapshot();
   */
  snapshot(): Promise<{ snapshot_id: string; status: string }> {
    return this.#control.call(sandboxRoutes.snapshotSandbox, { params: { sandbox_id: this.id }, body: {} });
  }

  /**
   * Terminates the sandbox (idempotent).
   *
   * @example
   * await sandbox.delete();
   */
  async delete(): Promise<SandboxRecord> {
    this.record = await this.#control.call(sandboxRoutes.deleteSandbox, { params: { sandbox_id: this.id } });
    return this.record;
  }

  /**
   * Opens an interactive terminal: a PTY session running `command` (default `sh`), attached over a WebSocket.
   *
   * @example
   * const term = await sandbox.pty({ command: "bash", rows: 40, cols: 120 });
   * term.onData((data) => process.stdout.write(data));
   * term.write("exit 3\n");
   * await term.exited; // 3
   */
  pty(options: PtyOptions = {}): Promise<PtyTerminal> {
    return openPty(this.runtime(), options);
  }

  /**
   * A TCP port inside the sandbox, reached through a tunnel WebSocket: `connect()` gives a stream,
   * `listen(localPort)` a local TCP listener.
   *
   * @example
   * const server = await sandbox.tunnel(5432).listen(15432);
   */
  tunnel(port: number): Tunnel {
    return new Tunnel(this.runtime(), port);
  }

  /**
   * Runs a command to completion, streaming its output; resolves with exit code and collected output.
   *
   * @example
   * const result = await sandbox.run("sh", { args: ["-c", "echo hi; exit 3"] });
   * // result.exitCode === 3, result.stdout === "hi\n"
   */
  async run(command: string, options: RunOptions = {}): Promise<RunResult> {
    const response = await this.runtime().send(runtimeRoutes.runProcess, {
      body: {
        command,
        args: options.args ?? [],
        env: options.env ?? {},
        ...(options.workingDir !== undefined ? { working_dir: options.workingDir } : {}),
        ...(options.user !== undefined ? { user: options.user } : {}),
        ...(options.timeout !== undefined ? { timeout: options.timeout } : {}),
      },
      signal: options.signal,
    });
    const result: RunResult = {
      pid: 0,
      exitCode: null,
      signal: null,
      oomKilled: false,
      stdout: "",
      stderr: "",
    };
    let ended = false;
    for await (const message of readSseStream(response.body as unknown as AsyncIterable<Uint8Array>)) {
      const frame = runStreamFrame(JSON.parse(message.data) as RunStreamEvent);
      switch (frame.kind) {
        case "start":
          result.pid = frame.event.pid;
          break;
        case "output":
          if (frame.event.stream === "stderr") {
            result.stderr += `${frame.event.line}\n`;
            options.onStderr?.(frame.event.line);
          } else {
            result.stdout += `${frame.event.line}\n`;
            options.onStdout?.(frame.event.line);
          }
          break;
        case "exit":
          ended = true;
          result.exitCode = "exit_code" in frame.event ? frame.event.exit_code : null;
          result.signal = "signal" in frame.event ? frame.event.signal : null;
          result.oomKilled = "oom_killed" in frame.event && frame.event.oom_killed === true;
          break;
      }
    }
    if (!ended) throw new ClientError("the run stream ended before the process did", "STREAM_ENDED");
    return result;
  }
}

/** Long-lived processes of a sandbox. */
export class Processes {
  readonly #runtime: () => Transport;
  constructor(runtime: () => Transport) {
    this.#runtime = runtime;
  }

  /**
   * Starts a process and returns its record at once.
   *
   * @example
   * const proc = await sandbox.processes.start({ command: "python3", args: ["-m", "http.server", "8080"] });
   */
  start(request: StartProcessRequest): Promise<Process> {
    return this.#runtime().call(runtimeRoutes.startProcess, { body: request });
  }

  /**
   * The sandbox's processes.
   *
   * @example
   * const running = (await sandbox.processes.list()).filter((p) => p.status === "running");
   */
  async list(): Promise<Process[]> {
    return (await this.#runtime().call(runtimeRoutes.listProcesses)).processes;
  }

  /**
   * One process by pid.
   *
   * @example
   * const { status, exit_code } = await sandbox.processes.get(proc.pid);
   */
  get(pid: number): Promise<Process> {
    return this.#runtime().call(runtimeRoutes.getProcess, { params: { pid } });
  }

  /**
   * Kills the process and its whole process group.
   *
   * @example
   * await sandbox.processes.kill(proc.pid);
   */
  async kill(pid: number): Promise<void> {
    await this.#runtime().call(runtimeRoutes.killProcess, { params: { pid } });
  }

  /**
   * Sends a signal by number or name.
   *
   * @example
   * await sandbox.processes.signal(proc.pid, "SIGTERM");
   */
  async signal(pid: number, signal: number | string): Promise<void> {
    await this.#runtime().call(runtimeRoutes.signalProcess, { params: { pid }, body: { signal } });
  }

  /**
   * Writes bytes to the process's stdin (started with stdin_mode "pipe").
   *
   * @example
   * await sandbox.processes.writeStdin(proc.pid, "hello\n");
   */
  async writeStdin(pid: number, data: string | Uint8Array): Promise<void> {
    await this.#runtime().call(runtimeRoutes.writeProcessStdin, {
      params: { pid },
      rawBody: data as RequestInit["body"],
    });
  }

  /**
   * Closes the process's stdin.
   *
   * @example
   * await sandbox.processes.closeStdin(proc.pid);
   */
  async closeStdin(pid: number): Promise<void> {
    await this.#runtime().call(runtimeRoutes.closeProcessStdin, { params: { pid } });
  }

  /**
   * Captured output lines so far: combined, or one stream.
   *
   * @example
   * const { lines } = await sandbox.processes.output(proc.pid, "stdout");
   */
  output(pid: number, stream: "combined" | "stdout" | "stderr" = "combined"): Promise<ProcessOutput> {
    const route =
      stream === "stdout"
        ? runtimeRoutes.getProcessStdout
        : stream === "stderr"
          ? runtimeRoutes.getProcessStderr
          : runtimeRoutes.getProcessOutput;
    return this.#runtime().call(route, { params: { pid } });
  }

  /**
   * Follows output from the beginning, then live, until the process's output ends.
   *
   * @example
   * for await (const { line, stream } of sandbox.processes.follow(proc.pid)) console.log(stream, line);
   */
  async *follow(
    pid: number,
    options: { stream?: "combined" | "stdout" | "stderr"; signal?: AbortSignal } = {},
  ): AsyncGenerator<FollowOutputEvent> {
    const route =
      options.stream === "stdout"
        ? runtimeRoutes.followProcessStdout
        : options.stream === "stderr"
          ? runtimeRoutes.followProcessStderr
          : runtimeRoutes.followProcessOutput;
    const response = await this.#runtime().send(route, { params: { pid }, signal: options.signal });
    for await (const message of readSseStream(response.body as unknown as AsyncIterable<Uint8Array>)) {
      if (message.event === "eof") return;
      if (message.event === "output") yield JSON.parse(message.data) as FollowOutputEvent;
    }
  }
}

/** Files of a sandbox (acting as the sandbox's default user). */
export class Files {
  readonly #runtime: () => Transport;
  constructor(runtime: () => Transport) {
    this.#runtime = runtime;
  }

  /**
   * Reads a whole file.
   *
   * @example
   * const text = new TextDecoder().decode(await sandbox.files.read("/etc/hostname"));
   */
  async read(path: string): Promise<Uint8Array> {
    const response = await this.#runtime().send(runtimeRoutes.readSandboxFile, { query: { path } });
    return new Uint8Array(await response.arrayBuffer());
  }

  /**
   * Reads a file as a stream, for large files.
   *
   * @example
   * const stream = await sandbox.files.readStream("/tmp/big.bin");
   */
  async readStream(path: string): Promise<ReadableStream<Uint8Array>> {
    const response = await this.#runtime().send(runtimeRoutes.readSandboxFile, { query: { path } });
    if (!response.body) throw new ClientError("the file response has no body", "EMPTY_BODY");
    return response.body as ReadableStream<Uint8Array>;
  }

  /**
   * Writes a file (parents are created); data may be a stream for large files.
   *
   * @example
   * await sandbox.files.write("/home/svc-user/hello.txt", "hello\n");
   */
  async write(path: string, data: string | Uint8Array | ReadableStream<Uint8Array>): Promise<void> {
    await this.#runtime().call(runtimeRoutes.writeSandboxFile, { query: { path }, rawBody: data as never });
  }

  /**
   * Lists a directory.
   *
   * @example
   * const names = (await sandbox.files.list("/tmp")).map((e) => e.name);
   */
  async list(path: string): Promise<{ name: string; is_dir: boolean; size: number; modified_at: number }[]> {
    return (await this.#runtime().call(runtimeRoutes.listSandboxDirectory, { query: { path } })).entries;
  }

  /**
   * Deletes a file.
   *
   * @example
   * await sandbox.files.delete("/tmp/old.log");
   */
  async delete(path: string): Promise<void> {
    await this.#runtime().call(runtimeRoutes.deleteSandboxFile, { query: { path } });
  }
}

/** The project's sandboxes. */
export class Sandboxes {
  readonly #control: Transport;
  readonly #connector: RuntimeConnector;
  constructor(control: Transport, connector: RuntimeConnector) {
    this.#control = control;
    this.#connector = connector;
  }

  /**
   * Creates a sandbox; it starts pending: call waitUntilRunning() before using its runtime.
   *
   * @example
   * const sandbox = await client.sandboxes.create({ name: "build", resources: { cpus: 2, memory_mb: 2048 } });
   */
  async create(request: CreateSandboxRequest = {}): Promise<Sandbox> {
    const created = await this.#control.call(sandboxRoutes.createSandbox, { body: request });
    return new Sandbox(created.sandbox_id, this.#control, this.#connector);
  }

  /**
   * A handle on an existing sandbox, by id or name, with its record loaded.
   *
   * @example
   * const sandbox = await client.sandboxes.get("build");
   */
  async get(idOrName: string): Promise<Sandbox> {
    const record = await this.#control.call(sandboxRoutes.getSandbox, { params: { sandbox_id: idOrName } });
    return new Sandbox(record.id, this.#control, this.#connector, record);
  }

  /**
   * One page of the project's sandboxes, newest first.
   *
   * @example
   * const { sandboxes, next_cursor } = await client.sandboxes.list({ status: "running" });
   */
  list(
    query: { status?: "running"; limit?: number; cursor?: string; direction?: "forward" | "backward" } = {},
  ) {
    return this.#control.call(sandboxRoutes.listSandboxes, { query });
  }
}
