import { z } from "@hono/zod-openapi";

/** A JSON Schema object, as tools/list sends it. */
export type JsonSchema = Record<string, unknown> & { properties?: Record<string, unknown>; required?: string[] };

/** The JSON Schema of what a zod schema takes as input (a tool's arguments). */
export const jsonSchemaOf = (schema: z.ZodType): JsonSchema => {
  const { $schema: _, ...json } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  return json;
};
