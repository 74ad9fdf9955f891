import Type, { type TSchema } from "typebox";

/** The one error body (see errors.ts). */
export const ErrorBodySchema = Type.Object(
  {
    error: Type.String(),
    code: Type.String(),
    message: Type.String(),
    /** Documents API only: the catalog code, when `code` carries the Python SDK's code instead. */
    details: Type.Optional(Type.Object({ code: Type.String() })),
  },
  {
    $id: "ErrorBody",
    description:
      "Every error of every API: `error` and `message` carry the same text. The documents API's `code` is one " +
      "of the Python SDK's codes, with the catalog code in `details.code` when they differ.",
  },
);

/** Milliseconds since the Unix epoch. */
export const EpochMs = Type.Integer({ minimum: 0, description: "milliseconds since the Unix epoch" });

/** RFC 3339 date-time string. */
export const Rfc3339 = Type.String({ format: "date-time" });

/** Object schemas of requests reject fields they do not know, so a typo is a 400 and not a silent default. */
export const closed = { additionalProperties: false } as const;

/** Sorting direction of cursor pagination. */
export const Direction = Type.Union([Type.Literal("forward"), Type.Literal("backward")]);

export const Empty = Type.Object({}, closed);

/** The schema or `null`: a field that is always present but may be empty. */
export const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** The management port of the daemon: always routable, never a user port. */
export const MANAGEMENT_PORT = 9501;

export const Port = Type.Integer({ minimum: 1, maximum: 65535 });

export const Health = Type.Object({ healthy: Type.Boolean() }, { $id: "Health" });

/**
 * A plain JSON Schema copy of a TypeBox schema without `$id`s: validators register ids globally, and the
 * same named schema nested in many routes would clash. Ids name schemas for readers only.
 */
export function jsonSchema(schema: unknown): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema ?? {}), (key, value) => (key === "$id" ? undefined : value));
}
