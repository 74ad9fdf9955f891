/**
 * How the server's parts report what happened outside a request: one message and its structured fields. The
 * server writes each call as one JSON line on stderr (server.ts); tests pass a function that keeps or drops them.
 */
export type Logger = (message: string, fields?: Record<string, unknown>) => void;
