import { type buildOpenApi, type platformRoutes, ServiceError } from "@svc/contract";
import type { Handlers } from "../api/routes.ts";
import type { Store } from "../store/store.ts";

/** Handlers of the platform routes: key introspection, health, the OpenAPI document, admin keys and projects. */
export function platformHandlers(
  store: Store,
  openapi: ReturnType<typeof buildOpenApi>,
): Handlers<typeof platformRoutes> {
  async function projectOf(ref: string | undefined) {
    const project = await store.projects.get(ref ?? "default");
    if (!project) throw new ServiceError("PROJECT_NOT_FOUND", `no project ${ref ?? "default"}`);
    return project;
  }
  return {
    introspectKey: ({ auth }) => ({
      id: auth.keyId,
      organizationId: auth.organizationId,
      projectId: auth.projectId,
    }),
    serverHealth: () => ({ healthy: true }),
    openapi: () => openapi,
    listProjects: async () => ({ projects: await store.projects.list() }),
    createProject: async ({ body }) => {
      const org = await store.projects.ensureOrganization("default");
      return store.projects.create(org.id, body.name);
    },
    listKeys: async ({ query }) => {
      const project = query.project ? await projectOf(query.project) : undefined;
      return { keys: await store.apiKeys.list(project?.id) };
    },
    createKey: async ({ body }) => {
      const project = await projectOf(body.project);
      const { info, key } = await store.apiKeys.create({ projectId: project.id, name: body.name });
      return { ...info, key };
    },
    deleteKey: async ({ params }) => {
      if (!(await store.apiKeys.delete(params.key_id))) {
        throw new ServiceError("KEY_NOT_FOUND", `no API key ${params.key_id}`);
      }
    },
  };
}
