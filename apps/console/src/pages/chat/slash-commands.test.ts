import { describe, expect, it } from "vitest";
import { completionsFor, type SlashCommand } from "./slash-commands.js";

const commands: SlashCommand[] = [
  { invocation: "/notes", description: "Take notes" },
  { invocation: "/sales:call-prep", description: "Prepare a call" },
  { invocation: "/sales:notes-review", description: "Review notes" },
];

describe("slash command completion", () => {
  it("offers the commands a first word starts, then those it is part of", () => {
    expect(completionsFor("/no", commands).map((command) => command.invocation)).toEqual(["/notes", "/sales:notes-review"]);
    expect(completionsFor("/sales:", commands).map((command) => command.invocation)).toEqual(["/sales:call-prep", "/sales:notes-review"]);
    expect(completionsFor("/", commands)).toHaveLength(3);
  });

  it("offers nothing once arguments begin, or for a message that is no command", () => {
    expect(completionsFor("/notes pelican", commands)).toEqual([]);
    expect(completionsFor("please /notes", commands)).toEqual([]);
    expect(completionsFor("", commands)).toEqual([]);
  });
});
