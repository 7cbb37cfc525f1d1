import { describe, expect, it } from "vitest";
import { AUDIT_ACTIONS } from "../../domain/audit.ts";

// The console's audit log filter (console/js/lib/audit-actions.js, plain JavaScript the page loads
// as it is) lists the kernel's actions, all of them, in order.
const CONSOLE_MODULE: string = "../../console/js/lib/audit-actions.js";

describe("the console's audit actions", () => {
  it("are the kernel's", async () => {
    const { AUDIT_ACTIONS: listed } = (await import(CONSOLE_MODULE)) as { AUDIT_ACTIONS: string[] };
    expect(listed).toEqual(AUDIT_ACTIONS);
  });
});
