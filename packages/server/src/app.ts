import {
  allRoutes,
  buildOpenApi,
  buildRoutes,
  documentRoutes,
  imageRoutes,
  platformRoutes,
  sandboxRoutes,
  validatorCompiler,
} from "@svc/contract";
import Fastify, { type FastifyInstance, LogController } from "fastify";
import { installErrorHandling } from "./api/errors.ts";
import { acceptEmptyJsonBodies } from "./api/json-body.ts";
import { installMounts, type Mount } from "./api/mounts.ts";
import { type Authenticator, registerRoutes } from "./api/routes.ts";
import { authenticateKey } from "./auth/authenticate.ts";
import { platformHandlers } from "./auth/platform-routes.ts";
import type { Config } from "./config.ts";
import { installConsole } from "./console/routes.ts";
import { createDocuments, type DocumentsOptions, modelProvidersOf } from "./documents/index.ts";
import { WebhookDispatcher, webhookHandlers } from "./documents/webhooks/index.ts";
import { fileSystemHandlers, installFileSystemBodies } from "./filesystems/routes.ts";
import { hostIdOf, rolesOf } from "./hosts/roles.ts";
import { imageHandlers } from "./images/routes.ts";
import { buildLauncher } from "./sandboxes/build-launcher.ts";
import { buildHandlers } from "./sandboxes/build-routes.ts";
import { type SandboxDeps, sandboxHandlers } from "./sandboxes/routes.ts";
import type { Store } from "./store/store.ts";

export interface ServedRoute {
  method: string;
  /** Fastify's colon form: `/sandboxes/:sandbox_id`. */
  url: string;
  /** A route that is not the contract's (the console's static files): not in OpenAPI. */
  outsideContract?: true;
}

declare module "fastify" {
  interface FastifyInstance {
    /** Every method and path this instance serves, as registered. */
    servedRoutes: ServedRoute[];
  }
}

export interface AppDeps {
  config: Config;
  store: Store;
  /** SHA-256 hex of the admin token; null closes the admin routes on this host. */
  adminTokenHash: string | null;
  sandboxes: SandboxDeps;
  /** Settings of the documents service (uploads, parse workers); defaults for what is left out. */
  documents?: DocumentsOptions;
  /** Handlers served at path prefixes beside the contract's routes (api/mounts.ts). */
  mounts?: readonly Mount[];
}

/** The control API as a Fastify instance, not listening: `listen` is the caller's, `inject` serves tests. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: deps.config.logLevel === "silent" ? false : { level: deps.config.logLevel },
    bodyLimit: deps.config.bodyLimitBytes,
    return503OnClosing: true,
    logController: new LogController({ disableRequestLogging: true }),
    forceCloseConnections: "idle",
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
  });
  app.setValidatorCompiler(validatorCompiler);
  const served: ServedRoute[] = [];
  app.addHook("onRoute", (route) => {
    const outside = (route.config as { outsideContract?: boolean } | undefined)?.outsideContract === true;
    for (const method of [route.method].flat())
      if (method !== "HEAD")
        served.push({ method, url: route.url, ...(outside ? { outsideContract: true } : {}) });
  });
  app.decorate("servedRoutes", served);
  installErrorHandling(app);
  // JSON is the only body type of the JSON routes; raw and multipart routes add their own parsers.
  app.removeContentTypeParser("text/plain");
  acceptEmptyJsonBodies(app);

  const authenticator: Authenticator = {
    apiKey: (key) => authenticateKey(deps.store, key),
    adminTokenHash: () => deps.adminTokenHash,
    ownsNamespace: async (auth, namespace) =>
      namespace === auth.projectId || (await deps.store.projects.get(auth.projectId))?.name === namespace,
  };
  const openapi = buildOpenApi(allRoutes);
  registerRoutes(app, platformRoutes, platformHandlers(deps.store, openapi), authenticator);
  // Contract routes whose domains are not served yet answer 501 after authentication and validation.
  installFileSystemBodies(app);
  const sandboxLifecycle = sandboxHandlers(deps.sandboxes);
  registerRoutes(
    app,
    sandboxRoutes,
    {
      ...sandboxLifecycle,
      ...fileSystemHandlers({
        ...deps.sandboxes.fileSystems,
        sandboxes: deps.sandboxes.repo,
        maxBytes: deps.config.maxFileBytes,
      }),
    },
    authenticator,
  );
  registerRoutes(app, imageRoutes, imageHandlers(deps.sandboxes.images), authenticator);
  const builds = buildLauncher(deps.sandboxes, sandboxLifecycle, {
    hostId: hostIdOf(deps.config),
    cacheSteps: deps.config.buildCacheSteps,
  });
  registerRoutes(app, buildRoutes, buildHandlers(deps.sandboxes, builds), authenticator);
  // The sandboxes were reconciled before the app was built: a build sandbox of an interrupted build is removed.
  // A failure here is logged: the server serves, and the next start tries again.
  app.addHook("onReady", () =>
    builds
      .recover()
      .catch((error: Error) => app.log.error({ error: error.message }, "build recovery failed")),
  );
  app.addHook("onClose", () => builds.book.flush());
  const { urlGuard, testHooks, ...documentSettings } = deps.documents ?? {};
  const webhooks = new WebhookDispatcher({
    db: deps.store.db,
    maxAttempts: deps.config.webhookMaxAttempts,
    ...urlGuard,
    log: (message, fields) => app.log.warn(fields, message),
  });
  const documents = createDocuments({
    settings: {
      maxFileBytes: deps.config.maxFileBytes,
      workers: deps.config.parseWorkers,
      jobTimeoutSecs: deps.config.parseJobTimeoutSecs,
      workerMemoryMb: deps.config.parseWorkerMemoryMb,
      ...documentSettings,
    },
    urlGuard,
    testHooks,
    db: deps.store.db,
    dataDir: deps.config.dataDir,
    modelProviders: modelProvidersOf(deps.config),
    log: app.log,
    onWebhookQueued: () => webhooks.wake(),
  });
  documents.install(app);
  // Deliveries are the worker role's (every host by default).
  if (rolesOf(deps.config).has("worker")) app.addHook("onReady", async () => webhooks.start());
  app.addHook("onClose", async () => webhooks.stop());
  registerRoutes(
    app,
    documentRoutes,
    { ...documents.handlers, ...webhookHandlers(deps.store) },
    authenticator,
  );
  installMounts(app, deps.mounts ?? []);
  installConsole(app, deps.config.consoleDir);
  await app.ready();
  return app;
}
