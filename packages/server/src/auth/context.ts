/** Who is calling: a project API key. Handlers of apiKey routes receive it. */
export interface AuthContext {
  keyId: string;
  projectId: string;
  organizationId: string;
}
