import { runtimeRoutes } from "@svc/contract/runtime";
import { type DaemonApp, serve } from "../app.ts";
import type { SshdManager } from "./sshd.ts";

/** `POST /api/v1/ssh/enable`, `POST /api/v1/ssh/disable`, `GET /api/v1/ssh/status` (forwarded auth). */
export function registerSshRoutes(app: DaemonApp, sshd: SshdManager): void {
  serve(app, runtimeRoutes.enableSsh, ({ body }) => sshd.enable(body.proxy_pubkey, body.backend_user));
  serve(app, runtimeRoutes.disableSsh, () => sshd.disable());
  serve(app, runtimeRoutes.getSshStatus, () => sshd.status());
}
