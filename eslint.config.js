// ESLint: the recommended rules of JavaScript and typescript-eslint, and the direction of imports
// between the layers (README "Architecture"). Each layer may import only what lies below it:
//
//   domain/    the kernel: imports nothing of the project (and no package but ipaddr.js, and node:crypto)
//   db/        the kernel only; the one place drizzle and the Postgres drivers are imported
//   services/  the kernel, db/ and realtime/protocol.ts; no HTTP framework, no driver
//   realtime/  the kernel and its own protocol module
//   functions/ the kernel, services/ and realtime/protocol.ts (db/ only for the drivers' factories);
//              its HTTP kit (functions/http/) imports neither its routes nor its OpenAPI code
//   cli/       the kernel, services/ and db/ (cli/lib's deploy check reads functions/env.ts)
//
// And the size of what a reader must hold (issue 32): no hand-written file over 300 lines and no
// function over 80 without a reason written where the limit is lifted (see SIZE below).
import comments from "@eslint-community/eslint-plugin-eslint-comments/configs";
import js from "@eslint/js";
import importX from "eslint-plugin-import-x";
import globals from "globals";
import tseslint from "typescript-eslint";

/** A relative import of any of these top-level folders (at any depth of ../). */
const folders = (...names) => `^(\\.\\./)+(${names.join("|")})/`;
const DRIVERS = ["drizzle-orm", "drizzle-orm/*", "@neondatabase/serverless", "pg", "@electric-sql/pglite", "@electric-sql/pglite/*"];
const driversMessage = "only db/ (and the local database tooling in cli/lib) talks to drizzle or a Postgres driver";

const restrict = (patterns) => ["error", { patterns }];

/** What db/ may not import. */
const DB_IMPORTS = [
  { regex: folders("services", "realtime", "functions", "cli", "bench", "test", "client"), message: "db/ imports the kernel only" },
  { regex: "^(hono|zod|@hono/)", message: "db/ knows nothing of HTTP or request schemas" },
];

/** What the Worker (functions/) may not import. */
const WORKER_IMPORTS = [
  { regex: folders("cli", "bench", "test", "client"), message: "the Worker imports none of the Node-side tools" },
  {
    regex: "^(\\.\\./)+db/(?!(client|auth-database)\\.ts$)",
    message: "the Worker reaches the data through services/ (db/client.ts and db/auth-database.ts only, for the drivers' factories)",
  },
  { regex: "^(\\.\\./)+realtime/(?!protocol\\.ts$)", message: "the Worker speaks to the room through realtime/protocol.ts only" },
  { group: DRIVERS, message: driversMessage },
];

// Sizes are counted as a reader meets them and as `npm run loc` counts a file: every line, blank and
// comment lines included (skipBlankLines and skipComments false, the strictest reading), so the
// number ESLint reports is the editor's. A function's opening comment sits above it and is not
// counted, which is where an explanation belongs. A file or function over the limit carries an
// `eslint-disable max-lines` (the file's first line) or `eslint-disable-next-line
// max-lines-per-function` (above the function) whose reason after `--` is required
// (require-description), and a disable that no longer lifts anything is an error
// (reportUnusedDisableDirectives), so a reason never outlives its need.
const SIZE = {
  "max-lines": ["error", { max: 300, skipBlankLines: false, skipComments: false }],
  "max-lines-per-function": ["error", { max: 80, skipBlankLines: false, skipComments: false, IIFEs: true }],
};

export default tseslint.config(
  {
    ignores: [
      "node_modules/",
      "console/vendor/",
      "client/schema.d.ts",
      "console/js/lib/forms.generated.js",
      "console/js/lib/domain.generated.js",
      ".data/",
      "**/.wrangler/",
      "test/artifacts/",
      "bench/results/",
      ".stryker-tmp/",
      "reports/",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  comments.recommended,
  {
    linterOptions: { reportUnusedDisableDirectives: "error" },
    languageOptions: { ecmaVersion: 2023, sourceType: "module" },
    rules: {
      ...SIZE,
      "@eslint-community/eslint-comments/require-description": "error",
      // A file's whole-file disable (max-lines) is a statement about the file: it needs no enable.
      "@eslint-community/eslint-comments/disable-enable-pair": ["error", { allowWholeFile: true }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
      "@typescript-eslint/no-explicit-any": "error",
      "no-empty": ["error", { allowEmptyCatch: true }],
    },
  },
  {
    files: ["domain/**/*.ts"],
    rules: {
      "no-restricted-imports": restrict([
        {
          regex: folders("db", "services", "realtime", "functions", "cli", "bench", "test", "client"),
          message: "the kernel imports nothing of the rest",
        },
        {
          regex: "^(?!\\.|ipaddr\\.js$|node:crypto$)",
          message:
            "the kernel imports no package (ipaddr.js classifies addresses for it; node:crypto hashes at once in workerd and Node alike)",
        },
      ]),
    },
  },
  {
    files: ["db/**/*.ts"],
    rules: { "no-restricted-imports": restrict(DB_IMPORTS) },
  },
  {
    files: ["db/statements/**/*.ts"],
    ignores: ["db/statements/engine/sql-tag.ts"],
    rules: {
      "no-restricted-imports": restrict([
        ...DB_IMPORTS,
        {
          group: ["drizzle-orm", "drizzle-orm/sql/sql"],
          importNames: ["sql"],
          message:
            "statements build their fragments with db/statements/engine/sql-tag.ts's sql: drizzle's scans every chunk of every fragment",
        },
      ]),
    },
  },
  {
    // The statement engine (db/statements/engine/) is what every noun's statements stand on: it
    // imports no noun of db/statements/ (a type only, where a rule's violation is shaped by one).
    files: ["db/statements/engine/**/*.ts"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^\\.\\./[\\w-]+\\.ts$",
              allowTypeImports: true,
              message: "db/statements/engine/ imports no noun: the nouns of db/statements/ stand on the engine, not the other way",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["services/**/*.ts"],
    rules: {
      "no-restricted-imports": restrict([
        {
          regex: folders("functions", "cli", "bench", "test", "client"),
          message: "services/ are called by the Worker and the CLI, never the other way",
        },
        { regex: "^(\\.\\./)+realtime/(?!protocol\\.ts$)", message: "services/ speak to the room through realtime/protocol.ts only" },
        { regex: "^(hono|@hono/)", message: "no HTTP framework in services/: they answer values and domain errors" },
        { group: DRIVERS, message: driversMessage },
      ]),
    },
  },
  {
    files: ["realtime/**/*.ts"],
    rules: {
      "no-restricted-imports": restrict([
        {
          regex: folders("db", "services", "functions", "cli", "bench", "test", "client"),
          message: "realtime/ imports the kernel and its protocol module only",
        },
        { group: DRIVERS, message: driversMessage },
      ]),
    },
  },
  {
    files: ["functions/**/*.ts"],
    rules: {
      "no-restricted-imports": restrict(WORKER_IMPORTS),
      // Hono's c.var builds a new object of every variable on each read; c.get reads one.
      "no-restricted-syntax": [
        "error",
        {
          selector: "MemberExpression[object.name='c'][property.name='var']",
          message: 'read a context variable with c.get("name"): c.var copies them all on every read',
        },
      ],
    },
  },
  {
    // The HTTP kit (what a route is, how one runs, the envelope, headers, errors) serves every
    // route and knows none: the routes and the OpenAPI document are built on it, never under it.
    files: ["functions/http/**/*.ts"],
    rules: {
      "no-restricted-imports": restrict([
        ...WORKER_IMPORTS,
        {
          regex: "^\\.\\./(routes|openapi)/",
          message: "the HTTP kit knows no route and no document: functions/routes/ and functions/openapi/ import it, not the other way",
        },
      ]),
    },
  },
  {
    files: ["cli/commands/**/*.ts", "cli/dev/**/*.ts", "cli/*.ts"],
    rules: {
      "no-restricted-imports": restrict([
        { regex: folders("bench", "test", "client"), message: "the CLI imports no tests or benchmarks" },
        { regex: folders("functions"), message: "the CLI goes through services/ and the kernel (domain/), never the Worker" },
        { group: DRIVERS, message: driversMessage },
      ]),
    },
  },
  {
    // The CLI's own library: the local database tooling talks to the drivers; of the Worker, only
    // the deploy check reads which settings it requires (functions/env.ts); of the client, `listen`
    // only the API's generated types.
    files: ["cli/lib/**/*.ts"],
    rules: {
      "no-restricted-imports": restrict([
        { regex: folders("bench", "test"), message: "the CLI imports no tests or benchmarks" },
        // `opsroom listen` reads the API as its clients do, through the generated types only.
        { regex: "^(\\.\\./)+client/(?!schema\\.d\\.ts$)", message: "of the client, the CLI takes only the API's generated types" },
        {
          regex: "^(\\.\\./)+functions/(?!env\\.ts$)",
          message: "the CLI goes through services/ and the kernel (domain/); of the Worker, only the deploy check reads functions/env.ts",
        },
      ]),
    },
  },
  {
    // No import cycles: a module's dependencies are evaluated before it, so a cycle either leaves a
    // binding undefined at start-up or holds only because nothing reads it early (issue 49). The
    // project imports its own files by relative path with their extension, which Node's resolver finds.
    files: ["{domain,db,services,realtime,functions,cli,client,bench}/**/*.ts"],
    plugins: { "import-x": importX },
    settings: {
      "import-x/extensions": [".ts", ".js"],
      "import-x/parsers": { "@typescript-eslint/parser": [".ts"] },
      "import-x/resolver-next": [importX.createNodeResolver({ extensions: [".ts", ".js"] })],
    },
    rules: { "import-x/no-cycle": ["error", { ignoreExternal: true }] },
  },
  {
    // Imports in one order everywhere (issue 49): Node's built-ins, packages, then the project's
    // own files from the farthest folder to the nearest, each group alphabetical, so a file's
    // dependencies read the same way in every file and a merge never fights over their order.
    // `eslint --fix` sorts them; an import kept for its effect alone stays where it is.
    files: ["**/*.ts", "console/**/*.js"],
    plugins: { "import-x": importX },
    rules: {
      "import-x/order": [
        "error",
        {
          groups: ["builtin", "external", "internal", "parent", "sibling", "index"],
          "newlines-between": "never",
          alphabetize: { order: "asc", caseInsensitive: true },
        },
      ],
    },
  },
  {
    // The console runs in the browser; the CLI's entry point and this file in Node.
    files: ["console/**/*.js"],
    languageOptions: { globals: globals.browser },
  },
  {
    files: ["cli/**/*.{js,mjs}", "*.js"],
    languageOptions: { globals: globals.node },
  },
  {
    // Tests read whatever JSON an answer holds: `any` is the honest type for a body under test.
    files: ["test/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    // A test file's functions are describe and it callbacks: a describe's length is the number of
    // its cases, read one at a time, not logic to hold at once. The file's 300 lines still bound it
    // (a longer test file says why in its first line). Test helpers (test/helpers, test/setup) are
    // code like any other and keep both limits.
    files: ["test/**/*.test.ts"],
    rules: { "max-lines-per-function": "off" },
  },
);
