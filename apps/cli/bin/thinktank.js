#!/usr/bin/env node
// The `thinktank` command. Plain node runs the build (dist/, made by `npm run build`, which
// `npm install` runs); under the "development" condition (`node --conditions=development`, as the
// tests and `npm run dev` do) it runs the TypeScript sources through tsx instead.
import fs from "node:fs";
import { fileURLToPath } from "node:url";

// The package's own "." export names src/ under "development" and dist/ otherwise.
const fromSources = import.meta.resolve("@thinktank/cli").endsWith(".ts");
if (fromSources) {
  const { register } = await import("tsx/esm/api");
  register();
  await import("../src/main.ts");
} else {
  const main = new URL("../dist/src/main.js", import.meta.url);
  // `thinktank start` first rebuilds dist/ when a source is newer than it (or it is missing).
  if (process.argv[2] === "start") (await import("./ensure-build.js")).ensureBuild();
  if (!fs.existsSync(fileURLToPath(main))) {
    process.stderr.write("thinktank: not built yet (no apps/cli/dist): run `npm run build` in the repository first\n");
    process.exit(1);
  }
  await import(main.href);
}
