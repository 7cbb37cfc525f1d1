export * from "./organisations.ts";
export * from "./api-keys.ts";
export * from "./personnel.ts";
export * from "./projects.ts";
export * from "./milestones.ts";
export * from "./tasks.ts";
export * from "./events.ts";
export * from "./idempotency-keys.ts";
