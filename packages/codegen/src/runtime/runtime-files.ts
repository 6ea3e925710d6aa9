import fs from "node:fs";

/** The runtime files the generator copies into the code API, read from this package's sources. */
export function runtimeFiles(): { typescript: string; python: string } {
  return {
    typescript: fs.readFileSync(new URL("./typescript/call-mcp-tool.ts", import.meta.url), "utf8"),
    python: fs.readFileSync(new URL("./python/thinktank_bridge.py", import.meta.url), "utf8"),
  };
}
