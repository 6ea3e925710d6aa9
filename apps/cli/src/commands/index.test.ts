import { describe, expect, it } from "vitest";
import { commands } from "./index.js";

describe("the command list", () => {
  // The help text is repeated in index.ts so that `thinktank --help` loads no command module.
  it.each(commands.map((command) => [command.name, command] as const))("%s: the help text in index.ts is the module's", async (_name, command) => {
    const loaded = await command.load();
    expect({ name: command.name, summary: command.summary, usage: command.usage, group: command.group }).toEqual({ name: loaded.name, summary: loaded.summary, usage: loaded.usage, group: loaded.group });
  });
});
