import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import type { RequestSurface } from "../request/request-context.js";
import { subagentSurface } from "./subagent-surface.js";

const named = (name: string) => tool(async () => name, { name, description: name, schema: { type: "object", properties: {} } });
const lead: RequestSurface = {
  systemPrompt: "ignored",
  sections: [
    { id: "role", text: "LEAD-ROLE", order: 0 },
    { id: "skills", text: "<skill_system>S</skill_system>", order: 10 },
    { id: "skill_contexts", text: "VIEW-HINT", order: 11 },
    { id: "commands", text: "COMMANDS", order: 20 },
    { id: "subagents", text: "<subagent_system>A</subagent_system>", order: 25 },
    { id: "code", text: "CODE-MODE", order: 30, inherit: true },
    { id: "environment", text: "ENV", order: 1000 },
  ],
  tools: ["read_file", "write_file", "bash", "view_skill", "search_skills", "request_human_input", "task", "notion__search"].map(named),
  surfaceFor: (skill) => ({ systemPrompt: `SPECIALIST ${skill}`, tools: ["skill_tool", "leave_skill", "read_file", "write_file", "task"].map(named), skill }),
  skillContextFor: () => undefined,
  resolveCommand: () => ({ kind: "none" }),
};
const names = (surface: { tools: readonly { name: string }[] }) => surface.tools.map((entry) => entry.name);

describe("subagentSurface", () => {
  it("no tools list: the lead's tools but task and request_human_input, the skills surface, no lead role, commands or uploads", async () => {
    const surface = subagentSurface(lead, { tools: undefined }, { prompt: "AGENT-BODY" });
    expect(names(surface)).toEqual(["read_file", "write_file", "bash", "view_skill", "search_skills", "notion__search"]);
    expect(surface.systemPrompt).toBe("AGENT-BODY\n\n<skill_system>S</skill_system>\n\nVIEW-HINT\n\nCODE-MODE\n\nENV");
    expect(surface.resolveCommand).toBeUndefined();
    expect(surface.skillContextFor).toBeDefined();
    expect(names((await surface.surfaceFor?.("public:x")) ?? { tools: [] })).toEqual(["skill_tool", "leave_skill", "read_file", "write_file"]);
  });

  it("a tools list narrows the lead's tools (Claude Code's names mapped) and leaves skills out unless it names Skill", async () => {
    const surface = subagentSurface(lead, { tools: ["Read", "Grep", "mcp__notion__search"] }, { prompt: "AGENT-BODY" });
    expect(names(surface)).toEqual(["read_file", "bash", "notion__search"]);
    expect(surface.systemPrompt).toBe("AGENT-BODY\n\nCODE-MODE\n\nENV");
    expect(surface.surfaceFor).toBeUndefined();
    expect(surface.skillContextFor).toBeUndefined();
    const withSkills = subagentSurface(lead, { tools: ["Read", "Skill"] }, { prompt: "B" });
    expect(names(withSkills)).toEqual(["read_file", "view_skill"]);
    // Inside a skill's context it keeps the skill's own tools, never the lead's it was not given.
    expect(names((await withSkills.surfaceFor?.("public:x")) ?? { tools: [] })).toEqual(["skill_tool", "leave_skill", "read_file"]);
  });

  it("a sub-agent that may delegate gets its own task tool and the <subagent_system> section", () => {
    const own = named("task");
    const surface = subagentSurface(lead, { tools: ["Read"] }, { prompt: "B", task: own });
    expect(surface.tools.at(-1)).toBe(own);
    expect(surface.systemPrompt).toContain("<subagent_system>A</subagent_system>");
  });
});
