import { defineConfig } from "drizzle-kit";

// Migrations are generated from db/schema (npm run db:generate) and committed; never hand-edited.
export default defineConfig({
  dialect: "postgresql",
  schema: "./db/schema/index.ts",
  out: "./db/migrations",
  casing: "snake_case",
});
