import { buildRoutes } from "./builds.ts";
import { documentRoutes } from "./documents.ts";
import { imageRoutes } from "./images.ts";
import { platformRoutes } from "./platform.ts";
import type { RouteDef } from "./route.ts";
import { runtimeRoutes } from "./runtime.ts";
import { sandboxRoutes } from "./sandboxes.ts";

/** Every route the control server serves, by name. */
export const controlRoutes = {
  ...platformRoutes,
  ...sandboxRoutes,
  ...imageRoutes,
  ...buildRoutes,
  ...documentRoutes,
};

/** Every route of the contract. */
export const allRoutes: Record<string, RouteDef> = { ...controlRoutes, ...runtimeRoutes };
