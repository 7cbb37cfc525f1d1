import { z } from "@hono/zod-openapi";

export const Uuid = z.uuid().max(36).openapi({ example: "019a8a0e-7c5e-7b52-9a43-2f6f1c3f4d10" });

// Postgres has no year 0, so a date must be in years 0001 to 9999.
export const DateString = z.iso
  .date()
  .max(10)
  .refine((date) => !date.startsWith("0000"), "the year must be 0001 or later")
  .openapi({ description: "A calendar date, YYYY-MM-DD.", example: "2026-12-15" });

/** Postgres text cannot hold NUL, so it is refused as input rather than failing in the database. */
export const noNul = (text: string) => !text.includes("\u0000");
const NUL_MESSAGE = "must not contain NUL characters";

export const Timestamp = z.string().openapi({ description: "ISO 8601, UTC.", format: "date-time", example: "2026-11-21T23:00:00.000Z" });

/** An instant sent by a client (a filter): ISO 8601 with an offset, in years Postgres reads (0001 on). */
export const InstantQuery = z.iso
  .datetime({ offset: true })
  .max(40)
  .refine((instant) => !instant.startsWith("0000"), "the year must be 0001 or later")
  .openapi({ description: "ISO 8601 with a time zone offset, e.g. 2026-11-21T23:00:00Z.", example: "2026-11-21T23:00:00Z" });

export const Name = z.string().trim().min(1).max(200).refine(noNul, NUL_MESSAGE);

export const Description = z.string().max(10_000).refine(noNul, NUL_MESSAGE).nullable();

/** The id a record has in another system: 1 to 200 characters, unique per organisation and resource. */
export const ExternalId = z.string().min(1).max(200).refine(noNul, NUL_MESSAGE).openapi({
  description: "The record's id in another system, unique per organisation and resource (1 to 200 characters).",
  example: "crm-4471",
});

/** externalId on a record, a create body, a change (null clears it), and a list's filter. */
export const externalIdFields = {
  record: { externalId: ExternalId.nullable() },
  create: { externalId: ExternalId.optional() },
  update: { externalId: ExternalId.nullable().optional() },
  query: { externalId: ExternalId.optional().openapi({ description: "Only the record with this externalId." }) },
};

export const ExternalIdParams = z.object({
  externalId: ExternalId.openapi({ param: { name: "externalId", in: "path" } }),
});

/** Fields every record carries (docs/api.md "Records"). */
export const recordFields = {
  id: Uuid,
  orgId: Uuid.openapi({ description: "The owning organisation." }),
  version: z.number().int().openapi({ description: "+1 on every change; also sent as the ETag.", example: 1 }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
};

export const IdParams = z.object({
  id: Uuid.openapi({ param: { name: "id", in: "path" }, description: "The record's id." }),
});

/** List paging (docs/api.md "Lists"): keyset cursor, stable (createdAt, id) order. */
export const pageQuery = {
  limit: z.coerce.number().int().min(1).max(200).default(50).openapi({ description: "Page size, 1 to 200.", example: 50 }),
  cursor: z.string().min(1).max(200).optional().openapi({ description: "The nextCursor of the previous page." }),
};

/** A comma list of enum values, as in `?status=todo,in_progress`. */
export function commaList<const T extends readonly [string, ...string[]]>(values: T) {
  // ?status=todo,blocked as the document declares it; ?status=todo&status=blocked (a repeated
  // parameter, how many clients send an array) means the same.
  return z
    .union([z.string(), z.array(z.string())])
    .transform((list) => (Array.isArray(list) ? list.join(",") : list).split(",").map((s) => s.trim()))
    .pipe(z.array(z.enum(values)).min(1).max(values.length))
    .openapi({
      description: `Comma-separated, any of: ${values.join(", ")}.`,
      // As a client sends it: one parameter, the values joined by commas (form style, not exploded).
      type: "array",
      maxItems: values.length,
      items: { type: "string", enum: [...values] },
      param: { style: "form", explode: false },
    });
}

/** ?q=: full-text search (db/schema/columns.ts searchVector). */
export const SearchQuery = z.string().trim().min(1).max(200).refine(noNul, NUL_MESSAGE).openapi({
  description:
    'Full-text search, as a search box takes it: words (English stemming: "removals" finds "removal"), "quoted phrases", `or`, and `-word` to leave out. Combines with every filter and sort.',
  example: "removal van",
});

/** ?sort= of a list: its sortable fields, each ascending or, with a leading -, descending. */
export function SortQuery(sortable: Readonly<Record<string, unknown>>) {
  const fields = Object.keys(sortable);
  const one = `-?(${fields.join("|")})`;
  return z
    .string()
    .max(200)
    .regex(new RegExp(`^${one}(,${one})*$`), `must be comma-separated fields of ${fields.join(", ")}, each with an optional leading -`)
    .openapi({
      description: `Comma-separated fields, each ascending or, with a leading -, descending; ties are broken by id, so paging is exact under any sort. Fields: ${fields.join(", ")}. Default: creation order.`,
      example: `${fields[0]},-${fields.at(-1)}`,
    });
}

/**
 * What GET of a record and of a list take beyond filters: `fields` (a sparse field set; id is
 * always answered) and, where the record names others, `expand` (them embedded).
 */
export function viewQuery(fieldNames: readonly string[], expansions: readonly string[]) {
  const fields = commaList(fieldNames as [string, ...string[]]).openapi({
    description: `Answer only these fields of each record (id is always answered), comma-separated, any of: ${fieldNames.join(", ")}.`,
    example: ["id", ...fieldNames.filter((name) => !["id", "orgId"].includes(name)).slice(0, 2)],
  });
  const expand = expansions.length
    ? {
        expand: commaList(expansions as [string, ...string[]])
          .optional()
          .openapi({
            description: `Embed the related records named, comma-separated, any of: ${expansions.join(", ")}: each is the record's own fields (derived ones such as progress are answered when it is read itself), or null. Each needs its own read scope.`,
            example: [...expansions],
          }),
      }
    : {};
  return { fields: fields.optional(), ...expand };
}

/** A record's `progress`: its tasks counted by status. */
export const ProgressSchema = z
  .object({
    total: z.number().int().openapi({ description: "Tasks in all." }),
    done: z.number().int(),
    cancelled: z.number().int(),
    open: z.number().int().openapi({ description: "Neither done nor cancelled." }),
    percentDone: z.number().int().min(0).max(100).openapi({
      description:
        "done / (total - cancelled), in whole percent rounded down: 100 only when every task not cancelled is done; 0 with none.",
    }),
  })
  .openapi("Progress", {
    description:
      "The tasks counted by status, computed in the statement that reads the record: exact for the answer's changeVersion. It moves without the record's version moving (and emits no event of the record's).",
    example: { total: 12, done: 5, cancelled: 2, open: 5, percentDone: 50 },
  });

export const BooleanQuery = z
  .enum(["true", "false"])
  .transform((v) => v === "true")
  .openapi({ type: "string", enum: ["true", "false"] });

type Equals<A, B> = [A] extends [B]
  ? [B] extends [A]
    ? [keyof A] extends [keyof B]
      ? [keyof B] extends [keyof A]
        ? true
        : false
      : false
    : false
  : false;

/**
 * Checks, when it compiles, that a public schema answers exactly the record its table declares
 * (RecordOf in db/statements/engine/resource.ts): a column renamed, dropped or added without a word here
 * fails tsc, so a new column never leaks and a schema never promises a field that is not there.
 *
 *   export const TaskSchema = publicRecord<TaskRecord>()(z.object({ ... }).openapi("Task"));
 */
export function publicRecord<Record>() {
  return <S extends z.ZodType>(
    schema: S & (Equals<z.output<S>, Record> extends true ? unknown : "this schema's fields differ from the table's record"),
  ): S => schema;
}
