export type { Mount } from "./api/mounts.ts";
export { buildApp } from "./app.ts";
export { ADMIN_TOKEN_FILE, API_KEY_FILE } from "./bootstrap.ts";
export { type Config, ConfigError, loadConfig, options as configOptions } from "./config.ts";
export { type RunningServer, type StartOptions, startServer } from "./server.ts";
export { freePort, startTestServer, type TestServer } from "./testing.ts";
