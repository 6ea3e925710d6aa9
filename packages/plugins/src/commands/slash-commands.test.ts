import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadPlugin } from "../load-plugin.js";
import type { LoadedPlugin } from "../plugin-types.js";
import { expandCommandBody } from "./expand-command-body.js";
import { SlashCommands } from "./slash-commands.js";
import { splitArguments } from "./split-arguments.js";

describe("splitArguments", () => {
  it("keeps quoted arguments whole and drops the quotes", () => {
    expect(splitArguments(`Acme "New York" 'Q3 2025' plain`)).toEqual(["Acme", "New York", "Q3 2025", "plain"]);
    expect(splitArguments(`a"b c"d`)).toEqual(["ab cd"]);
    expect(splitArguments(`"say \\"hi\\"" ''`)).toEqual(['say "hi"', ""]);
    expect(splitArguments(`"unclosed rest of it`)).toEqual(["unclosed rest of it"]);
    expect(splitArguments("  \n ")).toEqual([]);
  });
});

describe("expandCommandBody", () => {
  it("puts the raw string in $ARGUMENTS and positional arguments in $1..$9", () => {
    const body = "Research $1 for $2. All: $ARGUMENTS";
    expect(expandCommandBody(body, `Acme "next week"`, ["Acme", "next week"]).text).toBe(`Research Acme for next week. All: Acme "next week"`);
  });

  it("leaves placeholders without an argument literal, and amounts alone", () => {
    const body = "Budget $1.2M, $1,000 and $5M for $1; keep $3 and $10 and $1st";
    expect(expandCommandBody(body, "Acme", ["Acme"]).text).toBe("Budget $1.2M, $1,000 and $5M for Acme; keep $3 and $10 and $1st");
  });

  it("never expands text that an argument brought in", () => {
    expect(expandCommandBody("Q: $ARGUMENTS / first: $1", "costs $1 and $ARGUMENTS", ["costs", "$1"]).text).toBe("Q: costs $1 and $ARGUMENTS / first: costs");
  });

  it("appends the arguments when no placeholder took them", () => {
    expect(expandCommandBody("Summarise the channel.\n", "#general", ["#general"]).text).toBe("Summarise the channel.\n\nARGUMENTS: #general");
    expect(expandCommandBody("Only $2 here", "one", ["one"]).text).toBe("Only $2 here\n\nARGUMENTS: one");
    expect(expandCommandBody("No args", "", []).text).toBe("No args");
  });

  it("replaces ${CLAUDE_PLUGIN_ROOT} with the plugin folder the model sees", () => {
    expect(expandCommandBody("cp ${CLAUDE_PLUGIN_ROOT}/x .", "", [], "/mnt/skills/plugins/p").text).toBe("cp /mnt/skills/plugins/p/x .");
    expect(expandCommandBody("cp ${CLAUDE_PLUGIN_ROOT}/x .", "", []).text).toBe("cp ${CLAUDE_PLUGIN_ROOT}/x .");
  });
});

describe("SlashCommands", () => {
  let cleanup = (): void => {};
  let plugins: LoadedPlugin[] = [];
  beforeAll(() => {
    const temp = makeTempDir();
    cleanup = temp.cleanup;
    writeTree(temp.dir, {
      "sales/commands/call-prep.md": "---\ndescription: Prepare a call\nargument-hint: <company>\n---\nPrepare for a call with $1 ($ARGUMENTS).",
      "sales/commands/forecast.md": "Forecast for $ARGUMENTS",
      "sales/skills/account-research/SKILL.md": "---\nname: account-research\ndescription: Research an account\n---\nResearch $ARGUMENTS deeply.",
      "sales/skills/hidden/SKILL.md": "---\nname: hidden\ndescription: Model only\nuser-invocable: false\n---\nsecret",
      "brand/commands/discover-brand.md": "---\ndescription: Command wins\n---\nCommand body $ARGUMENTS",
      "brand/skills/discover-brand/SKILL.md": "---\nname: discover-brand\ndescription: Skill\n---\nSkill body",
      "brand/agents/discover-brand.md": "---\nname: discover-brand\ndescription: Agent\n---\n",
      "other/commands/forecast.md": "Other forecast",
      "zoom/skills/ui-toolkit/SKILL.md": "---\nname: ui-toolkit/web\ndescription: UI\n---\nUI for $1",
    });
    plugins = ["sales", "brand", "other", "zoom"].map((name) => loadPlugin(`${temp.dir}/${name}`));
  });
  afterAll(() => cleanup());

  it("expands /<plugin>:<command> args and records which command ran", () => {
    const result = new SlashCommands(plugins).resolve(`/sales:call-prep "Acme Corp" tomorrow`);
    expect(result.kind).toBe("expanded");
    if (result.kind !== "expanded") return;
    expect(result.text).toBe(`Prepare for a call with Acme Corp ("Acme Corp" tomorrow).`);
    expect(result.command).toEqual({
      kind: "command",
      name: "call-prep",
      invocation: "/sales:call-prep",
      plugin: "sales",
      typed: "/sales:call-prep",
      arguments: { raw: `"Acme Corp" tomorrow`, positional: ["Acme Corp", "tomorrow"] },
    });
    expect(new SlashCommands(plugins).entries.find((e) => e.invocation === "/sales:call-prep")).toMatchObject({ file: "commands/call-prep.md", argumentHint: "<company>" });
  });

  it("expands user-invocable skills the same way, names with '/' included", () => {
    const commands = new SlashCommands(plugins);
    const skill = commands.resolve("/sales:account-research Stripe");
    expect(skill.kind === "expanded" && skill.text).toBe("Research Stripe deeply.");
    expect(skill.kind === "expanded" && skill.command).toMatchObject({ kind: "skill", identity: "plugin:sales:account-research" });
    const slashed = commands.resolve("/zoom:ui-toolkit/web React");
    expect(slashed.kind === "expanded" && slashed.text).toBe("UI for React");
  });

  it("accepts /<command> when exactly one plugin has it, and says which when several do", () => {
    const commands = new SlashCommands(plugins);
    const unique = commands.resolve("/call-prep Acme");
    expect(unique.kind === "expanded" && unique.command.plugin).toBe("sales");
    const ambiguous = commands.resolve("/forecast Q3");
    expect(ambiguous).toEqual({
      kind: "error",
      error: { code: "COMMAND_AMBIGUOUS", message: "/forecast names 2 commands; use one of /sales:forecast, /other:forecast", suggestions: ["/sales:forecast", "/other:forecast"] },
    });
  });

  it("lets a command shadow a skill of the same name in one plugin (agents are not commands)", () => {
    const commands = new SlashCommands(plugins);
    const result = commands.resolve("/brand:discover-brand Acme");
    expect(result.kind === "expanded" && result.command.kind).toBe("command");
    expect(result.kind === "expanded" && result.text).toBe("Command body Acme");
    expect(commands.entries.filter((e) => e.plugin === "brand").map((e) => e.name)).toEqual(["discover-brand"]);
  });

  it("answers unknown commands with near matches", () => {
    const commands = new SlashCommands(plugins);
    const typo = commands.resolve("/sales:call-perp Acme");
    expect(typo.kind === "error" && typo.error).toMatchObject({ code: "COMMAND_NOT_FOUND", suggestions: ["/sales:call-prep"] });
    expect(typo.kind === "error" && typo.error.message).toBe("unknown command /sales:call-perp; did you mean /sales:call-prep?");
    const bare = commands.resolve("/forcast");
    expect(bare.kind === "error" && bare.error.suggestions).toEqual(["/other:forecast", "/sales:forecast"]);
    const nothing = commands.resolve("/zzzzzzzz");
    expect(nothing.kind === "error" && nothing.error).toEqual({ code: "COMMAND_NOT_FOUND", message: "unknown command /zzzzzzzz", suggestions: [] });
    const hidden = commands.resolve("/sales:hidden");
    expect(hidden.kind === "error" && hidden.error.message).toContain("user-invocable: false");
  });

  it("passes other messages through untouched", () => {
    const commands = new SlashCommands(plugins);
    for (const message of ["hello", "/usr/bin/env is broken", "/ nothing", "please run /sales:call-prep", "//x"]) {
      expect(commands.resolve(message)).toEqual({ kind: "none" });
    }
  });
});
