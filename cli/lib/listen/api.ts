import createClient from "openapi-fetch";
import type { paths } from "../../../client/schema.d.ts";
import type { OpsEvent } from "../../../domain/events.ts";
import { CommandError } from "../errors.ts";

// The two calls `listen` makes, through the typed client (client/schema.d.ts + openapi-fetch):
// GET /v1 to learn the organisation and its room, GET /v1/events to catch up after a disconnect.

export interface KeyDescription {
  organisation: string;
  application: string;
  changeVersion: number;
  /** ws://.../parties/v1/<organisation> */
  realtimeUrl: string;
}

/** The feed's filter as query parameters: GET /v1/events and the socket take the same ones. */
export interface ListenFilter {
  types?: string;
  projectId?: string;
  recordId?: string;
  excludeOwn?: "true";
}

export interface ListenApi {
  describeKey(): Promise<KeyDescription>;
  /**
   * Every visible event after `changeVersion`, oldest first, paging to the end, and the
   * changeVersion the answer is exact for (where to follow from, filter or not). Past retention:
   * a ResyncRequired.
   */
  eventsAfter(changeVersion: number): Promise<{ events: OpsEvent[]; changeVersion: number }>;
}

/** GET /v1/events answered 410: the events after that changeVersion are no longer kept. */
export class ResyncRequired extends CommandError {}

export function createListenApi(baseUrl: string, key: string, filter: ListenFilter = {}): ListenApi {
  const client = createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${key}` } });

  /** Network failures and refusals as the CLI's errors, naming what to check. */
  async function call<T>(request: () => Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
    let result;
    try {
      result = await request();
    } catch (error) {
      const code = (error as { cause?: { code?: string } }).cause?.code ?? String(error);
      throw new CommandError(`cannot reach the API at ${baseUrl} (${code}); is it running (npm run dev), or is --api wrong?`);
    }
    if (result.data !== undefined) return result.data;
    const refusal = result.error as { message?: string; error?: { code?: string } } | undefined;
    throw new CommandError(`the API refused: ${result.response.status} ${refusal?.error?.code ?? ""} ${refusal?.message ?? ""}`.trim());
  }

  return {
    async describeKey() {
      const self = await call(() => client.GET("/v1"));
      return {
        organisation: self.organisation,
        application: self.application,
        changeVersion: self.changeVersion,
        realtimeUrl: self.realtime.url,
      };
    },
    async eventsAfter(changeVersion) {
      const events: OpsEvent[] = [];
      let after = changeVersion;
      for (;;) {
        const page = await call(() => client.GET("/v1/events", { params: { query: { after, limit: 200, ...filter } } })).catch(
          (error: unknown) => {
            if (error instanceof CommandError && / 410 resync_required /.test(`${error.message} `)) {
              throw new ResyncRequired(`the events after #${after} are past the API's retention: run listen again to follow from now`);
            }
            throw error;
          },
        );
        events.push(...(page.data as OpsEvent[]));
        if (!page.nextCursor) return { events, changeVersion: page.changeVersion };
        after = Number(page.nextCursor);
      }
    },
  };
}
