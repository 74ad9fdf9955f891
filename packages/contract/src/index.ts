export * from "./common.ts";
export * from "./errors.ts";
export * from "./openapi.ts";
export * from "./platform.ts";
export * from "./route.ts";
export * from "./routes.ts";
export * from "./sandboxes.ts";
