import { readFile } from "node:fs/promises";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { CallToolResult, ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import { type Documents, parseResultMarkdown, type RunResult, type Sandbox, SvcError } from "@svc/sdk";
import { z } from "zod";
import { type McpSession, type Progress, ToolFailure } from "./session.ts";

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
type ParseResult = Awaited<ReturnType<Documents["get"]>>;

/** How long a parse or an extraction may take before the tool gives up waiting (the job goes on). */
const DOCUMENT_WAIT_MS = 600_000;

/** The tools' names, as agents call them. */
export const TOOL_NAMES = [
  "sandbox_create",
  "sandbox_list",
  "sandbox_run",
  "run_code",
  "sandbox_read_file",
  "sandbox_write_file",
  "sandbox_terminate",
  "document_parse",
  "document_extract",
] as const;

/** The progress reporter of a call: notifications when the client sent a progress token, else nothing. */
function progressOf(extra: Extra): Progress {
  const token = extra._meta?.progressToken;
  let step = 0;
  return async (message) => {
    if (token === undefined) return;
    step += 1;
    await extra
      .sendNotification({
        method: "notifications/progress",
        params: { progressToken: token, progress: step, message },
      })
      .catch(() => undefined);
  };
}

function text(value: string): CallToolResult {
  return { content: [{ type: "text", text: value }] };
}

function json(value: unknown): CallToolResult {
  return text(JSON.stringify(value, null, 2));
}

/** The catalog codes of errors reading a local file (document_parse's `path`, over stdio). */
const LOCAL_FILE_ERRORS: Record<string, string> = {
  ENOENT: "NOT_FOUND",
  EACCES: "PERMISSION_DENIED",
  EISDIR: "IS_DIRECTORY",
  ENOTDIR: "NOT_A_DIRECTORY",
};

/** Runs a tool body; an error becomes a tool error whose text starts with its catalog code. */
function tool<A>(body: (args: A, extra: Extra) => Promise<CallToolResult>) {
  return async (args: A, extra: Extra): Promise<CallToolResult> => {
    try {
      return await body(args, extra);
    } catch (error) {
      const code =
        error instanceof SvcError || error instanceof ToolFailure
          ? error.code
          : (LOCAL_FILE_ERRORS[(error as NodeJS.ErrnoException).code ?? ""] ?? "INTERNAL_ERROR");
      return { isError: true, content: [{ type: "text", text: `${code}: ${(error as Error).message}` }] };
    }
  };
}

/** A run's outcome as a model reads it. */
function runView(result: RunResult) {
  return {
    exit_code: result.exitCode,
    ...(result.signal !== null ? { signal: result.signal } : {}),
    ...(result.oomKilled ? { oom_killed: true } : {}),
    stdout: result.stdout,
    stderr: result.stderr,
  };
}

/** Runs a command in a sandbox, each output line a progress notification. */
async function runIn(
  sandbox: Sandbox,
  command: string,
  options: { args: string[]; env?: Record<string, string>; workingDir?: string; timeout?: number },
  progress: Progress,
  signal: AbortSignal,
): Promise<CallToolResult> {
  const result = await sandbox.run(command, {
    ...options,
    signal,
    onStdout: (line) => void progress(`stdout: ${line}`),
    onStderr: (line) => void progress(`stderr: ${line}`),
  });
  return json(runView(result));
}

/** How `run_code` runs each language: a command line that takes the code as its last argument. */
const LANGUAGES = {
  python: { command: "python3", args: ["-c"] },
  // Node from the image when it has one, else the one the service binds into every sandbox for its daemon.
  javascript: {
    command: "bash",
    args: [
      "-c",
      'if command -v node >/dev/null; then exec node -e "$1"; else exec /opt/svc/node/node -e "$1"; fi',
      "run_code",
    ],
  },
  bash: { command: "bash", args: ["-c"] },
} as const;

const sandboxRef = z
  .string()
  .min(1)
  .describe("The sandbox's id (sbx-...) or name, as sandbox_create or sandbox_list give it");

/** Where a document comes from: exactly one of these. */
const documentSource = (localFiles: boolean) => ({
  ...(localFiles
    ? {
        path: z
          .string()
          .min(1)
          .optional()
          .describe("A local file to parse (a path on the machine this MCP server runs on)"),
      }
    : {}),
  url: z
    .string()
    .url()
    .optional()
    .describe("A public http(s) URL of the document; the server fetches it (private addresses are refused)"),
  content_base64: z
    .string()
    .min(1)
    .optional()
    .describe("The document's bytes, base64-encoded (give file_name so its format is known)"),
  text: z.string().min(1).optional().describe("The document as text (markdown, HTML, CSV, email...)"),
  file_name: z
    .string()
    .min(1)
    .optional()
    .describe("With content_base64: the file's name, whose extension tells the format (report.pdf)"),
  mime_type: z
    .string()
    .optional()
    .describe("The media type when the name does not tell it (application/pdf, text/html...)"),
  pages: z
    .string()
    .optional()
    .describe("Pages to read: '1-3,5' (1-based, ranges inclusive); all pages when left out"),
});

interface SourceArgs {
  path?: string;
  url?: string;
  content_base64?: string;
  text?: string;
  file_name?: string;
  mime_type?: string;
  pages?: string;
}

/** Starts a parse job from the one source given, and waits for its result with progress. */
async function parseDocument(
  session: McpSession,
  args: SourceArgs,
  request: Record<string, unknown>,
  progress: Progress,
  signal: AbortSignal,
): Promise<ParseResult> {
  const sources = (["path", "url", "content_base64", "text"] as const).filter((k) => args[k] !== undefined);
  const allowed = session.localFiles ? "path, url, content_base64 or text" : "url, content_base64 or text";
  if (sources.length !== 1) {
    throw new ToolFailure("INVALID_REQUEST", `give exactly one source of the document: ${allowed}`);
  }
  const documents = session.client.documents;
  const body = {
    ...request,
    ...(args.pages ? { page_range: args.pages } : {}),
    ...(args.mime_type ? { mime_type: args.mime_type } : {}),
  };
  const wait = {
    signal,
    timeoutMs: DOCUMENT_WAIT_MS,
    onUpdate: (r: ParseResult) =>
      void progress(
        `${r.status}${r.parsed_pages_count ? `: ${r.parsed_pages_count}${r.total_pages ? ` of ${r.total_pages}` : ""} pages` : ""}`,
      ),
  };
  let fileId: string | undefined;
  if (args.path !== undefined) {
    if (!session.localFiles) throw new ToolFailure("INVALID_REQUEST", "local paths are read only over stdio");
    const bytes = await readFile(args.path);
    const name = args.file_name ?? args.path.split("/").pop() ?? "document";
    fileId = (await documents.files.upload(bytes, { fileName: name, contentType: args.mime_type, signal }))
      .file_id;
  } else if (args.content_base64 !== undefined) {
    const bytes = Buffer.from(args.content_base64, "base64");
    if (bytes.length === 0) throw new ToolFailure("INVALID_FILE", "content_base64 decodes to no bytes");
    fileId = (
      await documents.files.upload(bytes, {
        fileName: args.file_name ?? "document",
        contentType: args.mime_type,
        signal,
      })
    ).file_id;
  }
  if (fileId) await progress(`uploaded as ${fileId}`);
  const job = await documents.parse({
    ...body,
    ...(fileId ? { file_id: fileId } : args.url ? { file_url: args.url } : { raw_text: args.text }),
  } as Parameters<typeof documents.parse>[0]);
  await progress(`parse job ${job.parse_id} queued`);
  const result = await documents.wait(job.parse_id, wait);
  // A job that failed carries no catalog code, only its reason: the tool error starts with the job's status.
  if (result.status === "failure") {
    throw new ToolFailure("failure", `${result.error ?? "the parse failed"} (parse ${job.parse_id})`);
  }
  return result;
}

/** Registers every tool on an MCP server, acting for one session. */
export function registerTools(server: McpServer, session: McpSession): void {
  server.registerTool(
    "sandbox_create",
    {
      title: "Create a sandbox",
      description:
        "Creates an isolated Linux sandbox (Debian, with bash, python3, git, curl) and waits until it runs. " +
        "It is ended when this MCP session closes unless keep is true.",
      inputSchema: {
        name: z
          .string()
          .optional()
          .describe("A name to find it by later (letters, digits, - and _), unique among live sandboxes"),
        image: z
          .string()
          .optional()
          .describe("Image or template to start from; the default Debian image if left out"),
        cpus: z.number().positive().optional().describe("CPUs (default 1)"),
        memory_mb: z.number().int().positive().optional().describe("Memory in MiB (default 1024)"),
        disk_mb: z.number().int().positive().optional().describe("Disk in MiB (default 10240)"),
        timeout_secs: z
          .number()
          .int()
          .min(0)
          .optional()
          .describe("Seconds after which the sandbox ends by itself (0 = the server's maximum)"),
        keep: z
          .boolean()
          .optional()
          .describe(
            "Keep the sandbox after this session closes (default false: it is ended with the session)",
          ),
      },
      annotations: { openWorldHint: false },
    },
    tool(async (args, extra) => {
      const resources = {
        ...(args.cpus !== undefined ? { cpus: args.cpus } : {}),
        ...(args.memory_mb !== undefined ? { memory_mb: args.memory_mb } : {}),
        ...(args.disk_mb !== undefined ? { disk_mb: args.disk_mb } : {}),
      };
      const sandbox = await session.createSandbox(
        {
          ...(args.name ? { name: args.name } : {}),
          ...(args.image ? { image: args.image } : {}),
          ...(Object.keys(resources).length ? { resources } : {}),
          ...(args.timeout_secs !== undefined ? { timeout_secs: args.timeout_secs } : {}),
        },
        { keep: args.keep === true, progress: progressOf(extra), signal: extra.signal },
      );
      const record = sandbox.record;
      return json({
        sandbox_id: sandbox.id,
        name: record?.name ?? null,
        status: record?.status,
        resources: record?.resources,
        kept_after_session: args.keep === true,
      });
    }),
  );

  server.registerTool(
    "sandbox_list",
    {
      title: "List sandboxes",
      description: "Lists the project's sandboxes, newest first: id, name, status, resources, creation time.",
      inputSchema: {
        all: z
          .boolean()
          .optional()
          .describe("Also list ended and pending sandboxes (default: running ones only)"),
      },
      annotations: { readOnlyHint: true },
    },
    tool(async (args) => {
      const page = await session.client.sandboxes.list(
        args.all ? { limit: 100 } : { status: "running", limit: 100 },
      );
      const owned = new Set(session.owned());
      return json(
        page.sandboxes.map((s) => ({
          sandbox_id: s.id,
          name: s.name ?? null,
          status: s.status,
          resources: s.resources,
          created_at: s.created_at,
          ended_with_this_session: owned.has(s.id),
        })),
      );
    }),
  );

  server.registerTool(
    "sandbox_run",
    {
      title: "Run a command in a sandbox",
      description:
        "Runs a program in a sandbox to completion and returns its exit code, stdout and stderr. The command is " +
        "executed directly (no shell): for pipes or redirection, run bash with args ['-c', '...'].",
      inputSchema: {
        sandbox: sandboxRef,
        command: z.string().min(1).describe("The program to run: a name on PATH or an absolute path"),
        args: z.array(z.string()).optional().describe("Its arguments, each one element"),
        working_dir: z.string().optional().describe("Directory to run in (default the user's home)"),
        env: z.record(z.string(), z.string()).optional().describe("Environment variables to add"),
        timeout_secs: z
          .number()
          .positive()
          .optional()
          .describe("Kill the program and its children after this many seconds"),
      },
    },
    tool(async (args, extra) => {
      const sandbox = await session.sandbox(args.sandbox);
      return runIn(
        sandbox,
        args.command,
        { args: args.args ?? [], env: args.env, workingDir: args.working_dir, timeout: args.timeout_secs },
        progressOf(extra),
        extra.signal,
      );
    }),
  );

  server.registerTool(
    "run_code",
    {
      title: "Run code",
      description:
        "Runs a snippet of Python 3, JavaScript (Node) or bash and returns exit code, stdout and stderr. " +
        "The first call makes a sandbox for this session; later calls reuse it, so files written by one call " +
        "are there for the next. The sandbox is ended when the session closes.",
      inputSchema: {
        language: z.enum(["python", "javascript", "bash"]).describe("The language of the code"),
        code: z.string().min(1).describe("The program text; print what you want to see"),
        timeout_secs: z.number().positive().optional().describe("Kill the program after this many seconds"),
      },
    },
    tool(async (args, extra) => {
      const progress = progressOf(extra);
      const sandbox = await session.codeSandbox(progress, extra.signal);
      const { command, args: prefix } = LANGUAGES[args.language];
      return runIn(
        sandbox,
        command,
        { args: [...prefix, args.code], timeout: args.timeout_secs },
        progress,
        extra.signal,
      );
    }),
  );

  server.registerTool(
    "sandbox_read_file",
    {
      title: "Read a file of a sandbox",
      description:
        "Reads a file of a sandbox. Text comes back as is; bytes that are not UTF-8 come back base64-encoded " +
        "(the answer says which).",
      inputSchema: {
        sandbox: sandboxRef,
        path: z.string().min(1).describe("Absolute path, or relative to the user's home"),
        encoding: z
          .enum(["utf8", "base64"])
          .optional()
          .describe("base64 to always get the bytes base64-encoded (default utf8 when the file is text)"),
      },
      annotations: { readOnlyHint: true },
    },
    tool(async (args) => {
      const bytes = await (await session.sandbox(args.sandbox)).files.read(args.path);
      if (args.encoding !== "base64") {
        try {
          return text(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
        } catch {
          // Not text: base64 below.
        }
      }
      return text(`base64:${Buffer.from(bytes).toString("base64")}`);
    }),
  );

  server.registerTool(
    "sandbox_write_file",
    {
      title: "Write a file into a sandbox",
      description:
        "Writes a file into a sandbox, making its parent directories; an existing file is replaced.",
      inputSchema: {
        sandbox: sandboxRef,
        path: z.string().min(1).describe("Absolute path, or relative to the user's home"),
        content: z.string().describe("The file's content: text, or base64 with encoding base64"),
        encoding: z.enum(["utf8", "base64"]).optional().describe("How content is given (default utf8)"),
      },
    },
    tool(async (args) => {
      const bytes =
        args.encoding === "base64" ? Buffer.from(args.content, "base64") : Buffer.from(args.content, "utf8");
      await (await session.sandbox(args.sandbox)).files.write(args.path, bytes);
      return text(`wrote ${bytes.length} bytes to ${args.path}`);
    }),
  );

  server.registerTool(
    "sandbox_terminate",
    {
      title: "End a sandbox",
      description:
        "Ends a sandbox: its processes stop and its files are gone (unless on a mounted file system).",
      inputSchema: { sandbox: sandboxRef },
      annotations: { destructiveHint: true, idempotentHint: true },
    },
    tool(async (args) => {
      const sandbox = await session.client.sandboxes.get(args.sandbox);
      const record = await sandbox.delete();
      session.ended(sandbox.id);
      return json({ sandbox_id: record.id, status: record.status, outcome: record.outcome ?? null });
    }),
  );

  server.registerTool(
    "document_parse",
    {
      title: "Parse a document",
      description:
        "Reads a document (PDF, Office, images with OCR, HTML, email, spreadsheets...) and returns it as " +
        "markdown: headings, paragraphs, tables. Give exactly one source.",
      inputSchema: documentSource(session.localFiles),
    },
    tool(async (args: SourceArgs, extra) => {
      const result = await parseDocument(session, args, {}, progressOf(extra), extra.signal);
      return text(parseResultMarkdown(result));
    }),
  );

  server.registerTool(
    "document_extract",
    {
      title: "Extract data from a document",
      description:
        "Extracts structured data from a document into the shape of a JSON schema, with citations (page, " +
        "box and source text of each value). Give exactly one source.",
      inputSchema: {
        ...documentSource(session.localFiles),
        schema: z
          .record(z.string(), z.unknown())
          .describe(
            "A JSON schema with an object at the root, e.g. {type:'object', properties:{total:{type:'number'}}}",
          ),
        schema_name: z.string().min(1).optional().describe("A name for the schema (default 'data')"),
        prompt: z.string().optional().describe("Extra guidance for the extraction"),
      },
    },
    tool(async (args, extra) => {
      const { schema, schema_name, prompt, ...source } = args as SourceArgs & {
        schema: Record<string, unknown>;
        schema_name?: string;
        prompt?: string;
      };
      const result = await parseDocument(
        session,
        source,
        {
          structured_extraction_options: [
            {
              schema_name: schema_name ?? "data",
              json_schema: schema,
              provide_citations: true,
              ...(prompt ? { prompt } : {}),
            },
          ],
        },
        progressOf(extra),
        extra.signal,
      );
      return json(
        (result.structured_data ?? []).map((entry) => ({
          schema_name: entry.schema_name,
          data: entry.data,
          page_numbers: entry.page_numbers,
          citations: entry.citations ?? [],
        })),
      );
    }),
  );
}
