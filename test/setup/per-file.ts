import { afterAll } from "vitest";
import { closeTestDatabase } from "../helpers/database.ts";

// Each test file gets its own module instances, so its own pool: close it when the file is done.
afterAll(async () => {
  await closeTestDatabase();
});
