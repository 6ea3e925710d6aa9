// A module loader hook (node:module register) that appends the URL of every module loaded through
// the ES module loader to the file it was given (loaded-modules.ts reads it).
import fs from "node:fs";

let file;

export function initialize(data) {
  file = data.file;
}

export async function load(url, context, nextLoad) {
  fs.appendFileSync(file, `${url}\n`);
  return nextLoad(url, context);
}
