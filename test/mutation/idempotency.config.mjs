import { stackGroup } from "./stack.mjs";

// Idempotency-Key on the Worker: the header's check and the request's fingerprint (the
// Idempotency-Key lines of json-body.ts; the rest of that file is the body's size and type), and
// the replay and remember CTEs (db/statements/engine/idempotency.ts), in workerd against the test database.
export default stackGroup("idempotency", {
  mutate: ["db/statements/engine/idempotency.ts", "functions/middleware/json-body.ts:63-69"],
  unitFiles: ["test/unit/middleware.test.ts"],
  files: ["test/protection/idempotency.test.ts"],
});
