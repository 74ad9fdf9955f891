import { PTY_TOKEN_HEADER, runtimeRoutes } from "@svc/contract/runtime";
import { type DaemonApp, serve } from "../app.ts";
import type { UpgradeRouter } from "../upgrade.ts";
import type { PtyManager } from "./manager.ts";

/** The PTY routes: sessions over HTTP, and their WebSocket (`/api/v1/pty/{id}/ws`). */
export function registerPtyRoutes(app: DaemonApp, upgrades: UpgradeRouter, ptys: PtyManager): void {
  serve(app, runtimeRoutes.createPtySession, ({ body, reply }) => {
    const session = ptys.create(body);
    reply.code(201);
    return { session_id: session.id, token: session.token };
  });
  serve(app, runtimeRoutes.listPtySessions, () => ({
    sessions: ptys.list().map((session) => session.toRecord()),
  }));
  serve(app, runtimeRoutes.getPtySession, ({ params }) => ptys.get(params.session_id).toRecord());
  serve(app, runtimeRoutes.deletePtySession, async ({ params }) => {
    await ptys.delete(params.session_id);
  });
  serve(app, runtimeRoutes.resizePtySession, ({ params, body }) => {
    ptys.get(params.session_id).resize(body);
  });

  upgrades.add(runtimeRoutes.connectPty, async ({ req, params, query, accept, reject }) => {
    const session = ptys.find(params.session_id ?? "");
    if (!session) return reject("SESSION_NOT_FOUND", `no PTY session ${params.session_id}`);
    const header = req.headers[PTY_TOKEN_HEADER];
    const token = query.get("token") ?? (typeof header === "string" ? header : undefined);
    if (!session.tokenMatches(token)) return reject("INVALID_TOKEN");
    session.attach(await accept());
  });
}
