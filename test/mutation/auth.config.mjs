import { stackGroup } from "./stack.mjs";

// The key and scope check on the Worker: the Authorization header (bearer.ts) and the CTEs every
// statement starts with (db/statements/engine/caller.ts), in workerd against the test database.
export default stackGroup("auth", {
  mutate: [
    "functions/middleware/bearer.ts",
    "functions/middleware/credentials.ts",
    "functions/auth/session-cookie.ts",
    "db/statements/engine/caller.ts",
  ],
  unitFiles: ["test/unit/middleware.test.ts"],
  files: ["test/api/requests.test.ts", "test/api/organisation.test.ts", "test/protection/callers.test.ts"],
});
