import { readFileSync } from "node:fs";
import path from "node:path";
import { nullable } from "@svc/contract";
import { Ajv } from "ajv";
import Type, { type Static, type TSchema } from "typebox";
import { DOCUMENTS_DEFAULTS } from "./documents/settings.ts";
import { ALL_ROLES, checkRoles } from "./hosts/roles.ts";

/**
 * One option of the server's configuration: its key in the config file, its environment variable, its
 * command-line flag, its schema and default. The README's configuration table lists exactly these.
 */
interface OptionDef {
  env: string;
  flag: string;
  schema: TSchema;
  default: unknown;
  description: string;
}

/** One named model provider of `modelProviders` (README, "Model providers"). */
export const ModelProviderConfig = Type.Object(
  {
    /** `openai`: the chat-completions protocol (OpenAI, vLLM, Ollama, llama.cpp); `anthropic`: the messages protocol. */
    kind: Type.Enum(["openai", "anthropic"]),
    /** Base URL of the API, e.g. `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`, `https://api.anthropic.com/v1`. */
    baseUrl: Type.String({ pattern: "^https?://[^\\s]+$" }),
    model: Type.String({ minLength: 1, maxLength: 200 }),
    /** Name of the environment variable that holds the API key; unset for servers without keys. */
    apiKeyEnv: Type.Optional(nullable(Type.String({ pattern: "^[A-Za-z_][A-Za-z0-9_]*$" }))),
    /** Longest wait for one HTTP attempt (default 120). */
    timeoutSecs: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600 })),
    /** Attempts after the first on 429, 5xx and network errors (default 3). */
    retries: Type.Optional(Type.Integer({ minimum: 0, maximum: 10 })),
    /** Whether the model reads images (default false). */
    vision: Type.Optional(Type.Boolean()),
    /** Output tokens asked for per call (default 4096). */
    maxTokens: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  },
  { additionalProperties: false },
);
export type ModelProviderConfig = Static<typeof ModelProviderConfig>;

/** Names of configured providers: what a request's model_provider, classificationProvider and enrichmentProvider name. */
export const PROVIDER_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;

export const options = {
  dataDir: {
    env: "SVC_DATA_DIR",
    flag: "--data-dir",
    schema: Type.String({ minLength: 1 }),
    default: "./.svc",
    description: "Data directory: the SQLite database, the local API key and admin token files, blobs",
  },
  host: {
    env: "SVC_HOST",
    flag: "--host",
    schema: Type.String({ minLength: 1 }),
    default: "127.0.0.1",
    description: "Address the control API listens on (0.0.0.0 to serve other machines)",
  },
  port: {
    env: "SVC_PORT",
    flag: "--port",
    schema: Type.Integer({ minimum: 0, maximum: 65535 }),
    default: 8900,
    description: "Port of the control API (0 picks a free port)",
  },
  databaseUrl: {
    env: "SVC_DATABASE_URL",
    flag: "--database-url",
    schema: nullable(Type.String({ pattern: "^postgres(ql)?://" })),
    default: null,
    description: "PostgreSQL URL (postgres://user:pass@host/db); unset means SQLite in the data directory",
  },
  adminToken: {
    env: "SVC_ADMIN_TOKEN",
    flag: "--admin-token",
    schema: nullable(Type.String({ minLength: 20 })),
    default: null,
    description:
      "Admin token for key and project management; unset means one is generated on first start into <data dir>/admin-token",
  },
  consoleDir: {
    env: "SVC_CONSOLE_DIR",
    flag: "--console-dir",
    schema: nullable(Type.String({ minLength: 1 })),
    default: null,
    description:
      "Folder of the built web console, served at / on the control API port; unset: the console package's dist",
  },
  bodyLimitBytes: {
    env: "SVC_BODY_LIMIT_BYTES",
    flag: "--body-limit-bytes",
    schema: Type.Integer({ minimum: 1024, maximum: 1073741824 }),
    default: 10 * 1024 * 1024,
    description: "Largest JSON request body accepted (413 PAYLOAD_TOO_LARGE beyond)",
  },
  proxyHost: {
    env: "SVC_PROXY_HOST",
    flag: "--proxy-host",
    schema: Type.String({ minLength: 1 }),
    default: "127.0.0.1",
    description: "Address the sandbox proxy listens on",
  },
  proxyPort: {
    env: "SVC_PROXY_PORT",
    flag: "--proxy-port",
    schema: Type.Integer({ minimum: 0, maximum: 65535 }),
    default: 9443,
    description: "Port of the sandbox proxy (0 picks a free port)",
  },
  proxyDomain: {
    env: "SVC_PROXY_DOMAIN",
    flag: "--proxy-domain",
    schema: Type.String({ minLength: 1, pattern: "^[A-Za-z0-9.-]+$" }),
    default: "sandbox.localhost",
    description: "Domain of sandbox host names: <id-or-name>.<domain> and <port>-<id-or-name>.<domain>",
  },
  proxyPublicUrl: {
    env: "SVC_PROXY_PUBLIC_URL",
    flag: "--proxy-public-url",
    schema: nullable(Type.String({ minLength: 1, pattern: "^https?://[^/?#]+(/[^?#]*)?$" })),
    default: null,
    description:
      "Base URL clients reach the proxy at, for path-form sandbox URLs <url>/sandboxes/<id>; unset: http://127.0.0.1:<proxyPort> when proxyDomain is *.localhost, else host names <id>.<proxyDomain>",
  },
  proxyTlsCert: {
    env: "SVC_PROXY_TLS_CERT",
    flag: "--proxy-tls-cert",
    schema: nullable(Type.String({ minLength: 1 })),
    default: null,
    description:
      "PEM certificate file: with proxyTlsKey, the proxy serves HTTPS and sandbox URLs are https://",
  },
  proxyTlsKey: {
    env: "SVC_PROXY_TLS_KEY",
    flag: "--proxy-tls-key",
    schema: nullable(Type.String({ minLength: 1 })),
    default: null,
    description: "PEM private key file of proxyTlsCert",
  },
  sshHost: {
    env: "SVC_SSH_HOST",
    flag: "--ssh-host",
    schema: Type.String({ minLength: 1 }),
    default: "127.0.0.1",
    description: "Address the SSH gateway listens on",
  },
  sshPort: {
    env: "SVC_SSH_PORT",
    flag: "--ssh-port",
    schema: Type.Integer({ minimum: 0, maximum: 65535 }),
    default: 2222,
    description:
      "Port of the SSH gateway: ssh -p <port> <sandbox-id-or-name>@<host>, API key as password (0: off)",
  },
  executor: {
    env: "SVC_EXECUTOR",
    flag: "--executor",
    schema: Type.Enum(["local", "none"]),
    default: "local",
    description: "local: run sandboxes on this host (needs root); none: this server runs no sandboxes",
  },
  cpuOvercommit: {
    env: "SVC_CPU_OVERCOMMIT",
    flag: "--cpu-overcommit",
    schema: Type.Number({ minimum: 0.1, maximum: 100 }),
    default: 4,
    description: "Sandbox CPUs placed per host CPU (CPU is shared by time; quotas still cap each sandbox)",
  },
  memoryOvercommit: {
    env: "SVC_MEMORY_OVERCOMMIT",
    flag: "--memory-overcommit",
    schema: Type.Number({ minimum: 0.1, maximum: 100 }),
    default: 1.5,
    description:
      "Sandbox memory placed per byte of host memory (idle sandboxes use far less than their limit)",
  },
  sandboxMaxTimeoutSecs: {
    env: "SVC_SANDBOX_MAX_TIMEOUT_SECS",
    flag: "--sandbox-max-timeout-secs",
    schema: Type.Integer({ minimum: 0, maximum: 31536000 }),
    default: 0,
    description: "Longest sandbox lifetime; timeout_secs 0 means this value; 0 here means no limit",
  },

  maxFileBytes: {
    env: "SVC_MAX_FILE_BYTES",
    flag: "--max-file-bytes",
    schema: Type.Integer({ minimum: 1, maximum: 1099511627776 }),
    default: DOCUMENTS_DEFAULTS.maxFileBytes,
    description: "Largest uploaded or fetched document (413 FILE_TOO_LARGE beyond)",
  },
  parseWorkers: {
    env: "SVC_PARSE_WORKERS",
    flag: "--parse-workers",
    schema: Type.Integer({ minimum: 0, maximum: 256 }),
    default: DOCUMENTS_DEFAULTS.workers,
    description: "Parse workers in this process (0: serve the documents API, run no jobs here)",
  },
  parseJobTimeoutSecs: {
    env: "SVC_PARSE_JOB_TIMEOUT_SECS",
    flag: "--parse-job-timeout-secs",
    schema: Type.Integer({ minimum: 1, maximum: 86400 }),
    default: DOCUMENTS_DEFAULTS.jobTimeoutSecs,
    description: "Longest one parse may run before the job ends failure",
  },
  parseWorkerMemoryMb: {
    env: "SVC_PARSE_WORKER_MEMORY_MB",
    flag: "--parse-worker-memory-mb",
    schema: Type.Integer({ minimum: 16, maximum: 65536 }),
    default: DOCUMENTS_DEFAULTS.workerMemoryMb,
    description:
      "Heap limit of each parse worker thread; a document that exceeds it fails its job, not the server",
  },
  webhookMaxAttempts: {
    env: "SVC_WEBHOOK_MAX_ATTEMPTS",
    flag: "--webhook-max-attempts",
    schema: Type.Integer({ minimum: 1, maximum: 100 }),
    default: 8,
    description:
      "Delivery attempts of one webhook event (backoff 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h...)",
  },
  roles: {
    env: "SVC_ROLES",
    flag: "--roles",
    schema: Type.String({ minLength: 1 }),
    default: ALL_ROLES.join(","),
    description:
      "Roles this process runs, comma-separated: api, proxy (and SSH gateway), scheduler, executor, worker; a subset needs databaseUrl",
  },
  hostId: {
    env: "SVC_HOST_ID",
    flag: "--host-id",
    schema: nullable(Type.String({ pattern: "^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$" })),
    default: null,
    description:
      "This host's name among the hosts of one database (its executor is local-<hostId>); unset: the machine's hostname",
  },
  relayHost: {
    env: "SVC_RELAY_HOST",
    flag: "--relay-host",
    schema: Type.String({ minLength: 1 }),
    default: "127.0.0.1",
    description:
      "With databaseUrl and the executor role: address of the host relay, where other hosts' proxies reach this host's sandboxes",
  },
  relayPort: {
    env: "SVC_RELAY_PORT",
    flag: "--relay-port",
    schema: Type.Integer({ minimum: 0, maximum: 65535 }),
    default: 9510,
    description: "Port of the host relay (0 picks a free port)",
  },
  relayAdvertise: {
    env: "SVC_RELAY_ADVERTISE",
    flag: "--relay-advertise",
    schema: nullable(Type.String({ minLength: 1, pattern: "^[A-Za-z0-9.:\\[\\]-]+$" })),
    default: null,
    description:
      "Address other hosts reach the relay at; unset: relayHost (which then must not be 0.0.0.0 or ::)",
  },
  buildCacheSteps: {
    env: "SVC_BUILD_CACHE_STEPS",
    flag: "--build-cache-steps",
    schema: Type.Integer({ minimum: 1, maximum: 100000 }),
    default: 200,
    description:
      "Cached template build steps a project keeps (the newest); older ones are evicted with their snapshots unless a template uses them",
  },
  executorLostSecs: {
    env: "SVC_EXECUTOR_LOST_SECS",
    flag: "--executor-lost-secs",
    schema: Type.Integer({ minimum: 2, maximum: 3600 }),
    default: 20,
    description:
      "With databaseUrl: an executor whose heartbeat is this old is lost; its sandboxes end executor_lost",
  },
  daemonUnresponsiveSecs: {
    env: "SVC_DAEMON_UNRESPONSIVE_SECS",
    flag: "--daemon-unresponsive-secs",
    schema: Type.Integer({ minimum: 10, maximum: 86400 }),
    default: 300,
    description:
      "A sandbox whose daemon process still runs but has not answered its health checks for this long ends daemon_unreachable (a daemon that is gone ends after two failed checks)",
  },
  imageGraceSecs: {
    env: "SVC_IMAGE_GRACE_SECS",
    flag: "--image-grace-secs",
    schema: Type.Integer({ minimum: 60, maximum: 31_536_000 }),
    default: 86400,
    description:
      "An unpacked OCI image tree that no sandbox has mounted and no uploaded image, live sandbox, pool or template names is removed once it has not been used for this long (swept hourly and after an image is deleted)",
  },
  imageCacheDir: {
    env: "SVC_IMAGE_CACHE_DIR",
    flag: "--image-cache-dir",
    schema: Type.String({ minLength: 1 }),
    default: "/var/cache/svc",
    description:
      "Where the built-in sandbox image is built once per machine, keyed by its recipe, shared by every server on it",
  },
  allowedRegistries: {
    env: "SVC_ALLOWED_REGISTRIES",
    flag: "--allowed-registries",
    schema: Type.Union([Type.Array(Type.String({ minLength: 1 })), Type.Null()]),
    default: null,
    description:
      "OCI registries (host or host:port, comma-separated) that sandbox images may be pulled from although they are at a loopback or private address (plain HTTP allowed); others must be public",
  },
  secretKeyFile: {
    env: "SVC_SECRET_KEY_FILE",
    flag: "--secret-key-file",
    schema: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
    default: null,
    description:
      "File of the 32-byte key (base64url) that encrypts stored secrets such as registry passwords; unset: <data dir>/secret-key, made at first start (give every host of a deployment the same file)",
  },
  modelProviders: {
    env: "SVC_MODEL_PROVIDERS",
    flag: "--model-providers",
    schema: nullable(Type.Record(Type.String(), ModelProviderConfig)),
    default: null,
    description:
      "Named model providers, a JSON object {name: {kind, baseUrl, model, apiKeyEnv?, timeoutSecs?, retries?, vision?, maxTokens?}}; a request's model_provider (gpt_4o_mini, sonnet, gemini3, their aliases, or any name here) uses the provider of that name; unset: only the offline provider",
  },
  classificationProvider: {
    env: "SVC_CLASSIFICATION_PROVIDER",
    flag: "--classification-provider",
    schema: nullable(Type.String({ minLength: 1 })),
    default: null,
    description: "The modelProviders entry that classifies pages; unset: the offline classifier",
  },
  enrichmentProvider: {
    env: "SVC_ENRICHMENT_PROVIDER",
    flag: "--enrichment-provider",
    schema: nullable(Type.String({ minLength: 1 })),
    default: null,
    description:
      "The modelProviders entry that writes table and figure summaries and reads raster charts (with vision); unset: the offline methods",
  },
  visionProvider: {
    env: "SVC_VISION_PROVIDER",
    flag: "--vision-provider",
    schema: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
    default: null,
    description:
      "The modelProviders entry (vision: true) that transcribes pages OCR reads with low confidence (handwriting, poor scans); unset: OCR only",
  },
  logLevel: {
    env: "SVC_LOG_LEVEL",
    flag: "--log-level",
    schema: Type.Enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]),
    default: "info",
    description: "Log level of the server's JSON log on stderr",
  },
} as const satisfies Record<string, OptionDef>;

export type Config = { -readonly [K in keyof typeof options]: Static<(typeof options)[K]["schema"]> };

export class ConfigError extends Error {
  override name = "ConfigError";
}

const ajv = new Ajv({ strict: false, allErrors: false });

/** Reads a raw value of an option from the environment or a flag: numbers and null are parsed. */
function fromText(def: OptionDef, text: string): unknown {
  const json = def.schema as { type?: string; anyOf?: { type?: string }[] };
  if (json.anyOf?.some((branch) => branch.type === "object") && text.trim().startsWith("{")) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  if (json.anyOf?.some((branch) => branch.type === "array") && text !== "")
    return text
      .split(",")
      .map((item) => item.trim())
      .filter(Boolean);
  if (json.type === "integer" || json.type === "number")
    return /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text;
  if (json.anyOf && text === "") return null;
  return text;
}

export interface ConfigSources {
  env?: NodeJS.ProcessEnv;
  /** Command-line arguments after the command name, e.g. ["--port", "9000"]. */
  argv?: readonly string[];
  /** Values given in code (tests); they win over everything else. */
  overrides?: Partial<Config>;
}

/**
 * The one validated config object, read once at start. Precedence: overrides, flags, environment,
 * the JSON file named by SVC_CONFIG or --config, defaults. An invalid value stops the start with a message
 * naming the option and where it came from.
 */
export function loadConfig(sources: ConfigSources = {}): Config {
  const env = sources.env ?? process.env;
  const argv = [...(sources.argv ?? [])];
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith("--")) throw new ConfigError(`unexpected argument ${arg}`);
    const eq = arg.indexOf("=");
    if (eq > 0) flags.set(arg.slice(0, eq), arg.slice(eq + 1));
    else {
      const value = argv[i + 1];
      if (value === undefined) throw new ConfigError(`${arg} needs a value`);
      flags.set(arg, value);
      i++;
    }
  }
  const known = new Set<string>(["--config", ...Object.values(options).map((o) => o.flag)]);
  for (const flag of flags.keys()) if (!known.has(flag)) throw new ConfigError(`unknown option ${flag}`);

  const file = flags.get("--config") ?? env.SVC_CONFIG;
  let fileValues: Record<string, unknown> = {};
  if (file) {
    try {
      fileValues = JSON.parse(readFileSync(file, "utf8"));
    } catch (error) {
      throw new ConfigError(`cannot read config file ${file}: ${(error as Error).message}`);
    }
    for (const key of Object.keys(fileValues)) {
      if (!(key in options)) throw new ConfigError(`unknown option ${key} in ${file}`);
    }
  }

  const config: Record<string, unknown> = {};
  for (const [key, def] of Object.entries(options) as [string, OptionDef][]) {
    let value: unknown = def.default;
    let from = "default";
    if (key in fileValues) [value, from] = [fileValues[key], `${file}`];
    const envValue = env[def.env];
    if (envValue !== undefined && envValue !== "") [value, from] = [fromText(def, envValue), def.env];
    const flagValue = flags.get(def.flag);
    if (flagValue !== undefined) [value, from] = [fromText(def, flagValue), def.flag];
    const override = sources.overrides?.[key as keyof Config];
    if (override !== undefined) [value, from] = [override, "overrides"];
    if (!ajv.validate(def.schema, value)) {
      throw new ConfigError(
        `${key} (${from}) ${ajv.errors?.[0]?.message ?? "is not valid"}: ${JSON.stringify(value)}`,
      );
    }
    config[key] = value;
  }
  const result = config as Config;
  result.dataDir = path.resolve(result.dataDir);
  const clash = checkRoles(result);
  if (clash) throw new ConfigError(clash);
  checkModelProviders(result, env);
  return result;
}

/**
 * The model provider settings are consistent: names are plain, `tensorlake` (the offline provider) is not
 * redefined, classificationProvider, enrichmentProvider and visionProvider name configured providers (the last one
 * with vision), and every apiKeyEnv is set.
 */
function checkModelProviders(config: Config, env: NodeJS.ProcessEnv): void {
  const providers = config.modelProviders ?? {};
  for (const [name, provider] of Object.entries(providers)) {
    if (!PROVIDER_NAME_PATTERN.test(name)) {
      throw new ConfigError(
        `modelProviders: the name ${JSON.stringify(name)} may use letters, digits, _ . : - only`,
      );
    }
    if (name === "tensorlake") {
      throw new ConfigError("modelProviders: tensorlake is the offline provider and cannot be redefined");
    }
    if (provider.apiKeyEnv && !env[provider.apiKeyEnv]) {
      throw new ConfigError(
        `modelProviders.${name}: the environment variable ${provider.apiKeyEnv} is not set`,
      );
    }
  }
  for (const key of ["classificationProvider", "enrichmentProvider", "visionProvider"] as const) {
    const name = config[key];
    if (name !== null && !Object.hasOwn(providers, name)) {
      throw new ConfigError(`${key} names ${JSON.stringify(name)}, which modelProviders does not define`);
    }
  }
  if (config.visionProvider !== null && providers[config.visionProvider].vision !== true) {
    throw new ConfigError(
      `visionProvider names ${JSON.stringify(config.visionProvider)}, which is not configured for images (set vision: true)`,
    );
  }
}
