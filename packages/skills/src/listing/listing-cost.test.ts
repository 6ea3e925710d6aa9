import { describe, expect, it } from "vitest";
import { parseSkill } from "../read-skill.js";
import { renderSkillSystem } from "../render-skill-system.js";
import type { Skill, SkillSource } from "../skill-types.js";
import { listingCost } from "./listing-cost.js";
import { renderAgentSystem } from "./render-agent-system.js";
import { renderRelevantSkills } from "./render-relevant-skills.js";
import { renderSkillIndex } from "./render-skill-index.js";

function skill(category: SkillSource["category"], name: string, description: string, extra = ""): Skill {
  const source: SkillSource = { category, root: `/srv/${category}`, containerPrefix: category.startsWith("plugin:") ? `plugins/${category.slice(7)}` : category };
  const result = parseSkill(`---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n${extra}---\nbody\n`, { source, relativePath: name, dir: `/srv/${category}/${name}`, file: `/srv/${category}/${name}/SKILL.md`, containerPath: "/mnt/skills" });
  if (!result.ok) throw new Error(result.problem.message);
  return { ...result.skill, enabled: true, trusted: false, scriptsApproved: false };
}

// Characters as tokens: the projection must add up to exactly what the renderers add.
const countTokens = (text: string): number => text.length;
const pdf = skill("public", "pdf", "Fill in and merge PDF forms.");
const sales = [skill("plugin:sales", "call-prep", "Prepare for a sales call. Then more."), skill("plugin:sales", "<b>forecast</b>", "Build a <script>forecast</script> & more.")];
const hidden = skill("plugin:sales", "rotate", "Only the user runs it.", "disable-model-invocation: true\n");

describe("listingCost", () => {
  it("projects a plugin's skills as exactly what they add to the full and compact listings", () => {
    const cost = listingCost({ skills: [...sales, hidden], group: "sales" }, { countTokens });
    expect(cost.full.skills).toBe(renderSkillSystem([pdf, ...sales, hidden]).length - renderSkillSystem([pdf]).length);
    expect(cost.full.tokens).toBe(cost.full.skills);
    expect(cost.compact.tokens).toBe(renderSkillIndex([pdf, ...sales]).length - renderSkillIndex([pdf]).length);
    const offered = renderRelevantSkills({ skills: [pdf, ...sales].map((s) => ({ identity: s.identity, name: s.name, location: s.containerPath, description: s.description.split(". ")[0]!.replace(/\.?$/, ".") })), commands: [] });
    const pdfOnly = renderRelevantSkills({ skills: [{ identity: pdf.identity, name: pdf.name, location: pdf.containerPath, description: pdf.description }], commands: [] });
    expect(cost.compact.offered_tokens).toBe(offered.length - pdfOnly.length);
  });

  it("counts agents as the full <subagent_system> lists them, and command lines as given", () => {
    const agents = [{ identity: "plugin:sales:scout", name: "scout", description: "Finds accounts. <example>x</example>" }];
    const cost = listingCost({ skills: [], agents, commandLines: ["/sales:pipeline [stage]: Review the pipeline."] }, { countTokens });
    const builtin = { identity: "builtin:general-purpose", name: "general-purpose", description: "Does anything." };
    expect(cost.full.agents).toBe(renderAgentSystem([builtin, ...agents]).length - renderAgentSystem([builtin]).length);
    expect(cost.full.commands).toBe("/sales:pipeline [stage]: Review the pipeline.\n".length);
    expect(cost.compact).toEqual({ tokens: 0, offered_tokens: 0 });
  });
});
