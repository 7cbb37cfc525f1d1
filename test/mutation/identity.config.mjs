import { stackGroup } from "./stack.mjs";

// Who a socket belongs to (realtime/identity.ts), in partykit's workerd, asking the Worker.
export default stackGroup("identity", {
  mutate: ["realtime/identity.ts"],
  unitFiles: ["test/unit/identity.test.ts"],
  files: ["test/realtime/room.test.ts"],
  testNamePattern: "who may connect|carries only its scopes",
});
