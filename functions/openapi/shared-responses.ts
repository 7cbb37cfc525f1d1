// The error responses of the OpenAPI document, each written once under `components.responses` and
// referred to by every operation that answers it. Operations answer about 30 distinct error
// responses (a status, the codes it can carry, its headers) some 930 times; written inline, they
// were 44 % of the document and of the client generated from it.

interface Document {
  paths?: Record<string, Record<string, unknown>>;
  components?: { responses?: Record<string, unknown> };
}

const pascal = (code: string) => code.replace(/(^|_)([a-z])/g, (_, __, letter: string) => letter.toUpperCase());

interface Response {
  description?: string;
  headers?: Record<string, unknown>;
}

/**
 * The response's name: its codes (from its description's parenthesis), marked where it carries no
 * rate limit (the public document's); a number follows where two still differ.
 */
function baseName(status: string, response: Response): string {
  const codes = /\(([^)]*)\)$/.exec(response.description ?? "")?.[1]?.split(", ") ?? [];
  const name = codes.length > 0 ? codes.map(pascal).join("Or") : `Error${status}`;
  return response.headers && "RateLimit-Limit" in response.headers ? name : `${name}NotRateLimited`;
}

/** Moves every error response (4xx, 5xx) of every operation to `components.responses`, in place. */
export function shareErrorResponses(document: Document): void {
  const byText = new Map<string, string>();
  const shared: Record<string, unknown> = {};
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      const responses = (operation as { responses?: Record<string, Response> }).responses;
      if (!responses) continue;
      for (const [status, response] of Object.entries(responses)) {
        if (Number(status) < 400 || "$ref" in response) continue;
        const text = JSON.stringify(response);
        let name = byText.get(text);
        if (!name) {
          const base = baseName(status, response);
          name = base;
          for (let n = 2; name in shared; n++) name = `${base}${n}`;
          shared[name] = response;
          byText.set(text, name);
        }
        responses[status] = { $ref: `#/components/responses/${name}` } as never;
      }
    }
  }
  document.components = { ...document.components, responses: { ...document.components?.responses, ...shared } };
}
