import { stackGroup } from "./stack.mjs";

// The room's endpoints on the Worker (functions/internal.ts), in workerd.
export default stackGroup("internal", {
  mutate: ["functions/internal.ts"],
  files: ["test/protection/internal-endpoints.test.ts", "test/protection/internal-unconfigured.test.ts"],
});
