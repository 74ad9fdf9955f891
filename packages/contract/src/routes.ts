import { platformRoutes } from "./platform.ts";
import type { RouteDef } from "./route.ts";
import { sandboxRoutes } from "./sandboxes.ts";

/** Every route the control server serves, by name. */
export const controlRoutes = { ...platformRoutes, ...sandboxRoutes };

/** Every route of the in-sandbox runtime daemon, by name (reached through the proxy). */
export const runtimeRoutes = {};

/** Every route of the contract. */
export const allRoutes: Record<string, RouteDef> = { ...controlRoutes, ...runtimeRoutes };
