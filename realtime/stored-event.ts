import type { OpsEvent } from "../domain/events.ts";

// Events as the room keeps them in storage (issue 45 row 9). A Durable Object value is at most
// 128 KiB (131,072 bytes) as V8 serialises it: a string holding any character above U+00FF takes
// two bytes a character. An update event carries each changed field three times (the record after
// the change in `data`, and `from` and `to` in `changes`), so a risk whose description and
// mitigation (10,000 characters each) both change to long text held six copies: about 121 KB
// stored, 7% short of the limit, in a fan-out entry, a pending entry and each webhook's job.
//
// A change's `to` is the field's value in `data`, so it is stored as a marker and put back on
// reading: four copies (about 82 KB, a margin of 37%; test/realtime/event-size.test.ts). Its place
// among the change's keys is kept, so a webhook's body is byte for byte the event it was given
// (Postgres's jsonb puts "to" before "from"). A `to` that differs from `data` (none does today) is
// kept as it is, and so is an event stored before this form.

/** Stands for "the field's value in `data`": no text from Postgres holds U+0000. */
const AS_IN_DATA = "\u0000as-in-data";

declare const stored: unique symbol;
/** An event as stored: the same fields, some changes' `to` replaced by the marker (made only by storedForm). */
export type StoredEvent = OpsEvent & { readonly [stored]: true };

const sameJson = (a: unknown, b: unknown) => a !== undefined && JSON.stringify(a) === JSON.stringify(b);

/** `event` with each change's `to` replaced, its keys in their order. */
function mapTo(event: OpsEvent, replace: (field: string, to: unknown) => unknown): OpsEvent {
  if (!event.changes) return event;
  const changes = Object.fromEntries(
    Object.entries(event.changes).map(([field, change]) => [
      field,
      Object.fromEntries(Object.entries(change).map(([key, value]) => [key, key === "to" ? replace(field, value) : value])),
    ]),
  ) as OpsEvent["changes"];
  return { ...event, changes };
}

/** The form the room stores `event` in. */
export function storedForm(event: OpsEvent): StoredEvent {
  return mapTo(event, (field, to) => (sameJson(to, event.data[field]) ? AS_IN_DATA : to)) as StoredEvent;
}

/** The event a stored value holds. */
export function eventOf(value: StoredEvent): OpsEvent {
  return mapTo(value, (field, to) => (to === AS_IN_DATA ? value.data[field] : to));
}
