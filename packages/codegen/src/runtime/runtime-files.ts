import fs from "node:fs";

/**
 * The runtime files the generator copies into the code API, read from this package's sources:
 * the build compiles call-mcp-tool.ts and copies nothing, so from dist/src/runtime/ they are
 * three folders up, under src/runtime/.
 */
export function runtimeFiles(): { typescript: string; python: string } {
  const dir = new URL(import.meta.url.includes("/dist/src/") ? "../../../src/runtime/" : "./", import.meta.url);
  return {
    typescript: fs.readFileSync(new URL("typescript/call-mcp-tool.ts", dir), "utf8"),
    python: fs.readFileSync(new URL("python/thinktank_bridge.py", dir), "utf8"),
  };
}
