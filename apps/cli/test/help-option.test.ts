import fs from "node:fs";
import path from "node:path";
import { makeTempDir } from "@thinktank/testing";
import { afterAll, describe, expect, it } from "vitest";
import { commands } from "../src/commands/index.js";
import { runCaptured } from "./support/run-captured.js";

/** Every command line a user may end with `--help` (or `-h`): its usage on stdout, exit 0, nothing done. */
const project = makeTempDir("tt-cli-help-");
afterAll(() => project.cleanup());

const subcommandLines = commands.flatMap((command) =>
  command.group ? command.usage.map((usage) => usage.split(" ").slice(0, 2)) : [[command.name]],
);

describe("--help after any command", () => {
  it.each(subcommandLines.flatMap((words) => [[...words, "--help"], [...words, "-h"]]).map((argv) => [argv.join(" "), argv] as const))(
    "thinktank %s prints its usage and exits 0",
    async (_line, argv) => {
      const before = fs.readdirSync(project.dir);
      const run = await runCaptured(argv, { cwd: project.dir });
      expect(run).toMatchObject({ code: 0, stderr: "" });
      const words = argv.slice(0, -1).join(" ");
      expect(run.stdout).toMatch(/^Usage:/);
      expect(run.stdout).toContain(`thinktank ${words}`);
      // Nothing ran: no data folder, no build, no connection.
      expect(fs.readdirSync(project.dir)).toEqual(before);
    },
  );

  it("takes --help after `--` as an argument, not as a request for help", async () => {
    const run = await runCaptured(["exec", "--", "--help"], { cwd: project.dir });
    expect(run.code).not.toBe(0);
    expect(run.stdout).not.toMatch(/^Usage:/);
    expect(fs.existsSync(path.join(project.dir, "--help"))).toBe(false);
  });
});
