import { z } from "@hono/zod-openapi";
import { EVENT_ACTIONS, type EventResource } from "../../domain/events.ts";
import { AttachmentSchema } from "./attachments.ts";
import { ChecklistItemSchema } from "./checklist-items.ts";
import { CommentSchema } from "./comments.ts";
import { eventFields } from "./events.ts";
import { FinancialEntrySchema } from "./financial-entries.ts";
import { IssueSchema } from "./issues.ts";
import { LabelSchema } from "./labels.ts";
import { MilestoneSchema } from "./milestones.ts";
import { PersonSchema } from "./personnel.ts";
import { ProjectSchema } from "./projects.ts";
import { RiskSchema } from "./risks.ts";
import { TaskSchema } from "./tasks.ts";

// Events as a union discriminated by `type`: each of the 30 types (<resource>.created, .updated,
// .deleted) with its record as `data` and, on updates, `changes` keyed by the record's own fields,
// each with its `from` and `to` of that field's type. GET /v1/events, a record's history, the
// socket's messages and the document's `webhooks` section all use these.

/** The record of each resource events are about (domain/events.ts EVENT_SCOPES: tsc holds them to the same list). */
const RECORDS = {
  project: { schema: ProjectSchema, name: "Project" },
  milestone: { schema: MilestoneSchema, name: "Milestone" },
  task: { schema: TaskSchema, name: "Task" },
  label: { schema: LabelSchema, name: "Label" },
  comment: { schema: CommentSchema, name: "Comment" },
  checklistItem: { schema: ChecklistItemSchema, name: "ChecklistItem" },
  personnel: { schema: PersonSchema, name: "Person" },
  risk: { schema: RiskSchema, name: "Risk" },
  issue: { schema: IssueSchema, name: "Issue" },
  financialEntry: { schema: FinancialEntrySchema, name: "FinancialEntry" },
  attachment: { schema: AttachmentSchema, name: "Attachment" },
} as const satisfies Record<EventResource, { schema: z.ZodType; name: string }>;

/** `changes` of an update: each field that moved, with its value before and after. */
function changesOf(record: z.ZodObject) {
  const fields = Object.fromEntries(
    Object.entries(record.shape).map(([key, schema]) => [key, z.object({ from: schema as z.ZodType, to: schema as z.ZodType })]),
  );
  return z.object(fields).partial();
}

function eventsOf(resource: EventResource) {
  const { schema, name } = RECORDS[resource];
  const record = schema as unknown as z.ZodObject;
  return EVENT_ACTIONS.map((action) =>
    z
      .object({
        ...eventFields,
        type: z.literal(`${resource}.${action}`),
        data: record.openapi({ description: action === "deleted" ? `The ${name} as it was.` : `The ${name} after the change.` }),
        changes:
          action === "updated"
            ? changesOf(record).openapi({ description: "Each field that moved, with its value before and after." })
            : z.null(),
      })
      .openapi(`${name}${action[0]!.toUpperCase()}${action.slice(1)}Event`),
  );
}

const ALL = (Object.keys(RECORDS) as EventResource[]).flatMap(eventsOf);

/** Any event, discriminated by `type`. */
export const EventSchema = z.discriminatedUnion("type", ALL as unknown as [z.ZodObject, ...z.ZodObject[]]).openapi("Event");

/** The events of one resource (a record's history). */
export function resourceEventSchema(resource: string) {
  if (!(resource in RECORDS)) throw new Error(`no events for ${resource}`);
  return z.discriminatedUnion("type", eventsOf(resource as EventResource) as unknown as [z.ZodObject, ...z.ZodObject[]]);
}

/** Every event type with its schema: the document's `webhooks` section. */
export const EVENT_TYPES: { type: string; schema: z.ZodObject }[] = ALL.map((schema) => ({
  type: (schema.shape.type as z.ZodLiteral<string>).value,
  schema,
}));
