export { Client, type ClientOptions, Keys, Projects } from "./client.ts";
export { DEFAULT_API_URL, resolveAdminToken, resolveApiKey, resolveBaseUrl } from "./credentials.ts";
export * from "./errors.ts";
export { Files, Processes, type RunOptions, type RunResult, Sandbox, Sandboxes } from "./sandbox.ts";
export { type CallInput, Transport } from "./transport.ts";
