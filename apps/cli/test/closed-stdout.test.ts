// A reader that stops early (`thinktank skills list | head -3`) closes the pipe: the command ends
// as it would have, without an unhandled EPIPE and its stack trace on stderr.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { makeTempDir, repositoryRoot } from "@thinktank/testing";
import { afterAll, describe, expect, it } from "vitest";

const bin = path.join(repositoryRoot(), "apps/cli/bin/thinktank.js");
const project = makeTempDir("tt-cli-epipe-");
fs.writeFileSync(path.join(project.dir, "extensions_config.json"), '{"mcpServers": {}, "skills": {}, "plugins": {}, "tools": {}}\n');
fs.mkdirSync(path.join(project.dir, "skills", "public", "notes"), { recursive: true });
fs.writeFileSync(path.join(project.dir, "skills", "public", "notes", "SKILL.md"), "---\nname: notes\ndescription: Take notes. Use when asked to write something down.\n---\n# Notes\n");
afterAll(() => project.cleanup());

/** Runs the bin with its stdout pipe closed by the reader before anything is written. */
function runWithClosedStdout(argv: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [bin, ...argv], { cwd: project.dir, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout.destroy();
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stderr })));
}

describe("stdout closed by the reader", () => {
  it.each([[["--help"]], [["skills", "list"]]])("thinktank %j exits 0 without a stack trace", async (argv) => {
    const run = await runWithClosedStdout(argv);
    expect(run.stderr).not.toContain("EPIPE");
    expect(run).toEqual({ code: 0, stderr: "" });
  }, 60_000);
});
