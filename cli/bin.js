#!/usr/bin/env node
// The `opsroom` executable (package.json "bin"): the CLI is TypeScript, run through tsx.
import { register } from "tsx/esm/api";

register();
await import("./opsroom.ts");
