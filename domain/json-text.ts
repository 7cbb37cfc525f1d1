/**
 * JSON text the database built (a page of records, as `json_agg` made it), answered as it is:
 * never parsed into objects by the Worker, never serialised again. Parsing a page of 50 tasks and
 * serialising it back was a fifth of a list's CPU (bench/results/README.md "CPU per call"). `T` is what the
 * text holds, so a reply built from it is checked against the route's schema like any other.
 */
export class JsonText<T> {
  /** The type the text holds; never set at run time. */
  declare readonly of?: T;
  constructor(readonly text: string) {}
}
