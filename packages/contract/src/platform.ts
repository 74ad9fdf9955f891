import Type, { type Static } from "typebox";
import { closed, Health, nullable, Rfc3339 } from "./common.ts";
import { defineRoutes } from "./route.ts";

/** API keys look like `svc_apiKey_<random>`; only their hash is stored. */
export const API_KEY_PREFIX = "svc_apiKey_";
/** The admin token of a server looks like `svc_admin_<random>`. */
export const ADMIN_TOKEN_PREFIX = "svc_admin_";

export const KeyIntrospection = Type.Object(
  {
    id: Type.String(),
    organizationId: Type.String(),
    projectId: Type.String(),
  },
  { $id: "KeyIntrospection" },
);
export type KeyIntrospection = Static<typeof KeyIntrospection>;

const Name = Type.String({ minLength: 1, maxLength: 63, pattern: "^[A-Za-z0-9][A-Za-z0-9_-]*$" });

export const Project = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    organization_id: Type.String(),
    created_at: Rfc3339,
  },
  { $id: "Project" },
);
export type Project = Static<typeof Project>;

export const CreateProjectRequest = Type.Object({ name: Name }, closed);

export const ApiKeyInfo = Type.Object(
  {
    id: Type.String(),
    name: nullable(Type.String()),
    project_id: Type.String(),
    organization_id: Type.String(),
    /** The first characters of the key, to tell keys apart; never enough to use it. */
    prefix: Type.String(),
    created_at: Rfc3339,
    last_used_at: nullable(Rfc3339),
  },
  { $id: "ApiKeyInfo" },
);
export type ApiKeyInfo = Static<typeof ApiKeyInfo>;

export const CreatedApiKey = Type.Object(
  {
    ...ApiKeyInfo.properties,
    /** The key itself: shown once, at creation; the server keeps only its hash. */
    key: Type.String(),
  },
  { $id: "CreatedApiKey" },
);
export type CreatedApiKey = Static<typeof CreatedApiKey>;

export const CreateApiKeyRequest = Type.Object(
  {
    /** Project name or id; default `default`. */
    project: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  closed,
);

export const ListApiKeysQuery = Type.Object(
  { project: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) },
  closed,
);

export { Health };

export const platformRoutes = defineRoutes({
  introspectKey: {
    method: "POST",
    path: "/platform/v1/keys/introspect",
    summary: "Describe the API key presented in the Authorization header",
    tag: "platform",
    surface: "control",
    auth: "apiKey",
    status: 200,
    response: KeyIntrospection,
    responseKind: "json",
  },
  serverHealth: {
    method: "GET",
    path: "/health",
    summary: "Liveness of the control server",
    tag: "platform",
    surface: "control",
    auth: "none",
    status: 200,
    response: Health,
    responseKind: "json",
  },
  openapi: {
    method: "GET",
    path: "/openapi.json",
    summary: "This OpenAPI 3.1 document",
    tag: "platform",
    surface: "control",
    auth: "none",
    status: 200,
    response: Type.Object({}, { additionalProperties: true }),
    responseKind: "json",
  },
  listProjects: {
    method: "GET",
    path: "/admin/v1/projects",
    summary: "List projects (admin)",
    tag: "admin",
    surface: "control",
    auth: "admin",
    status: 200,
    response: Type.Object({ projects: Type.Array(Project) }),
    responseKind: "json",
  },
  createProject: {
    method: "POST",
    path: "/admin/v1/projects",
    summary: "Create a project in the default organization (admin)",
    tag: "admin",
    surface: "control",
    auth: "admin",
    body: CreateProjectRequest,
    status: 201,
    response: Project,
    responseKind: "json",
    errors: ["PROJECT_EXISTS"],
  },
  listKeys: {
    method: "GET",
    path: "/admin/v1/keys",
    summary: "List API keys, optionally of one project (admin)",
    tag: "admin",
    surface: "control",
    auth: "admin",
    query: ListApiKeysQuery,
    status: 200,
    response: Type.Object({ keys: Type.Array(ApiKeyInfo) }),
    responseKind: "json",
    errors: ["PROJECT_NOT_FOUND"],
  },
  createKey: {
    method: "POST",
    path: "/admin/v1/keys",
    summary: "Create a project-scoped API key; the key is returned once (admin)",
    tag: "admin",
    surface: "control",
    auth: "admin",
    body: CreateApiKeyRequest,
    status: 201,
    response: CreatedApiKey,
    responseKind: "json",
    errors: ["PROJECT_NOT_FOUND"],
  },
  deleteKey: {
    method: "DELETE",
    path: "/admin/v1/keys/{key_id}",
    summary: "Delete an API key; it stops working at once (admin)",
    tag: "admin",
    surface: "control",
    auth: "admin",
    params: Type.Object({ key_id: Type.String({ minLength: 1, maxLength: 100 }) }),
    status: 204,
    responseKind: "empty",
    errors: ["KEY_NOT_FOUND"],
  },
});
