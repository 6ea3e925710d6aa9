import { describe, expect, it } from "vitest";
import { escapeXml } from "./escape-xml.js";
import { mergeSkillLists } from "./merge-skill-lists.js";
import { parseSkill } from "./read-skill.js";
import { renderSkillSystem } from "./render-skill-system.js";
import type { ParsedSkill, Skill, SkillSource } from "./skill-types.js";

function parsed(category: SkillSource["category"], folder: string, frontmatter: string): ParsedSkill {
  const source: SkillSource = { category, root: `/srv/${category}`, containerPrefix: category.startsWith("plugin:") ? `plugins/${category.slice(7)}` : category };
  const result = parseSkill(`---\n${frontmatter}\n---\nbody\n`, { source, relativePath: folder, dir: `/srv/${category}/${folder}`, file: `/srv/${category}/${folder}/SKILL.md`, containerPath: "/mnt/skills" });
  if (!result.ok) throw new Error(result.problem.message);
  return result.skill;
}

const enabled = (skill: ParsedSkill, on = true): Skill => ({ ...skill, enabled: on, trusted: skill.category === "public", scriptsApproved: false });

describe("renderSkillSystem", () => {
  const pdf = parsed("public", "pdf", 'name: pdf\ndescription: "Fill & sign <forms> with \\"quotes\\" and \'apostrophes\'"');
  const notes = parsed("custom", "notes", "name: notes\ndescription: |\n  Line one.\n  Line two.");
  const zoom = parsed("plugin:zoom", "sdk/web", "name: web\ndescription: Zoom web SDK.");
  const hidden = parsed("public", "hidden", "name: hidden\ndescription: Only for users.\ndisable-model-invocation: true");

  it("lists enabled skills with escaped name, description and virtual location", () => {
    const section = renderSkillSystem([enabled(pdf), enabled(notes), enabled(zoom)]);
    expect(section.startsWith("<skill_system>\n")).toBe(true);
    expect(section.endsWith("</skill_system>")).toBe(true);
    expect(section).toContain("Skills are located at: /mnt/skills\n");
    expect(section).toContain(
      "<skill>\n<name>pdf</name>\n<description>Fill &amp; sign &lt;forms&gt; with &quot;quotes&quot; and &apos;apostrophes&apos;</description>\n<location>/mnt/skills/public/pdf/SKILL.md</location>\n</skill>",
    );
    expect(section).toContain("<description>Line one.\nLine two.</description>");
    expect(section).toContain("<location>/mnt/skills/plugins/zoom/sdk/web/SKILL.md</location>");
    expect(section).toMatch(/read_file/);
  });

  it("leaves out disabled skills and skills the model may not invoke", () => {
    const section = renderSkillSystem([enabled(pdf, false), enabled(notes), enabled(hidden)]);
    expect(section).not.toContain("<name>pdf</name>");
    expect(section).not.toContain("<name>hidden</name>");
    expect(section).toContain("<name>notes</name>");
    expect(renderSkillSystem([enabled(pdf, false)])).toBe("");
  });

  it("gives byte-identical output for the same skills in any input order", () => {
    const a = mergeSkillLists([[zoom, pdf], [notes]]).skills.map((s) => enabled(s));
    const b = mergeSkillLists([[notes], [pdf, zoom]]).skills.map((s) => enabled(s));
    expect(renderSkillSystem(a)).toBe(renderSkillSystem(b));
    expect(a.map((s) => s.identity)).toEqual(["public:pdf", "custom:notes", "plugin:zoom:web"]);
  });

  it("escapes the container path too", () => {
    expect(renderSkillSystem([enabled(pdf)], { containerPath: "/mnt/a&b" })).toContain("Skills are located at: /mnt/a&amp;b");
  });
});

describe("escapeXml", () => {
  it("escapes the five special characters and drops characters XML cannot hold", () => {
    expect(escapeXml(`<a href="x">&'</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;");
    expect(escapeXml("bell\u0007 nul\u0000 tab\t newline\n")).toBe("bell nul tab\t newline\n");
    expect(escapeXml("</skill><skill>")).toBe("&lt;/skill&gt;&lt;skill&gt;");
  });
});
