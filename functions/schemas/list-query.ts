import { z } from "@hono/zod-openapi";
import { ME, type ListFilter, type ResourceDeclaration } from "../../domain/resources.ts";
import { BooleanQuery, DateString, InstantQuery, Uuid, commaList, externalIdFields, pageQuery } from "./common.ts";

// A list's query from its resource's declaration (domain/resources.ts): paging, ?externalId=, and
// each declared filter, validated as its kind says. The statements turn the same filters into SQL
// (db/statements/engine/filters.ts), so the two cannot disagree on a filter's name or what it takes.

function filterSchema(filter: ListFilter): z.ZodType {
  switch (filter.kind) {
    case "id":
    case "holds":
      return Uuid.optional().openapi({ description: filter.description });
    case "person":
      return z
        .union([Uuid, z.literal(ME)])
        .optional()
        .openapi({ description: filter.description, type: "string", maxLength: 36 });
    case "oneOf":
      return commaList(filter.values).optional();
    case "before":
    case "after":
      return DateString.optional().openapi({ description: filter.description });
    case "since":
      return InstantQuery.optional().openapi({ description: filter.description });
    case "flag":
      return BooleanQuery.optional().openapi({ description: filter.description, type: "string", enum: ["true", "false"] });
  }
}

/** The query of GET <collection>: a page, ?externalId= and the resource's filters, nothing else. */
export function listQuery(declaration: ResourceDeclaration) {
  const filters = Object.fromEntries(Object.entries(declaration.filters).map(([name, filter]) => [name, filterSchema(filter)]));
  return z.strictObject({ ...pageQuery, ...externalIdFields.query, ...filters });
}
