export {
  type Citation,
  type EnrichmentOptions,
  MODEL_PROVIDERS,
  type PageClass,
  type PageClassConfig,
  type StructuredData,
  type StructuredExtractionOptions,
} from "@svc/contract";
export { Client, type ClientOptions, Keys, Projects } from "./client.ts";
export { DEFAULT_API_URL, resolveAdminToken, resolveApiKey, resolveBaseUrl } from "./credentials.ts";
export {
  Datasets,
  DocumentFiles,
  Documents,
  type FileData,
  type ParseFileOptions,
  type ParseOptions,
  pagesOfClass,
  parseResultMarkdown,
  type StructuredDataOf,
  structuredDataOf,
  type UploadOptions,
  type WaitOptions,
  Webhooks,
} from "./documents.ts";
export * from "./errors.ts";
export { type FileSystemEntry, FileSystems } from "./file-systems.ts";
export { Images, RegistryCredentials } from "./images.ts";
export { Pools } from "./pools.ts";
export { type PtyOptions, PtyTerminal } from "./pty.ts";
export { Files, Processes, type RunOptions, type RunResult, Sandbox, Sandboxes } from "./sandbox.ts";
export { Snapshots } from "./snapshots.ts";
export { Templates } from "./templates.ts";
export { type CallInput, Transport } from "./transport.ts";
export { Tunnel, TunnelStream } from "./tunnel.ts";
