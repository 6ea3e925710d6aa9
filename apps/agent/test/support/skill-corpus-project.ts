// A project folder with N skills from the corpus, as a user would have them installed: the 12
// anthropic skills as custom skills, the knowledge-work plugins installed (PluginInstaller, their
// commands included), and beyond the corpus's 224 skills renamed copies grown by the skills eval's
// growSkills, installed as mirror plugins (`<plugin>-mirror-<n>`) and custom skills. Below 224, the
// skills past N are disabled in extensions_config.json (their plugins' commands stay). With
// `agents`, the lead sees that many sub-agents: the built-in general-purpose, the installed
// plugins' agents (brand-voice's five), and near-copies grown by growAgents as mirror plugins'
// agents/ folders. The skill listing's bench and the agent listing's bench and size test use it.
import fs from "node:fs";
import path from "node:path";
import { ExtensionsStore } from "@thinktank/core";
import { PluginInstaller } from "@thinktank/plugins";
import { loadSkills, type Skill } from "@thinktank/skills";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { corpusSkillSources } from "../../../../packages/skills/eval/corpus-skill-sources.js";
import { corpusPluginAgents, growAgents, type AgentOriginal } from "../../../../packages/skills/eval/grow-agents.js";
import { growSkills } from "../../../../packages/skills/eval/grow-skills.js";

export interface SkillCorpusProject {
  readonly dir: string;
  cleanup(): void;
}

/** The corpus's skills in the order a project is filled: custom skills first, then plugin by plugin. */
export async function corpusSkills(corpus: string): Promise<Skill[]> {
  return (await loadSkills({ sources: corpusSkillSources(corpus) })).skills;
}

/** The local plugin folders the corpus marketplace lists. */
function corpusPluginFolders(corpus: string): string[] {
  const root = path.join(corpus, "knowledge-work-plugins");
  const marketplace = JSON.parse(fs.readFileSync(path.join(root, ".claude-plugin", "marketplace.json"), "utf8")) as { plugins: { source: unknown }[] };
  return marketplace.plugins.map((entry) => entry.source).filter((source): source is string => typeof source === "string").map((source) => path.join(root, source));
}

export interface SkillCorpusProjectOptions {
  /** Sub-agents the lead sees, the built-in general-purpose included; undefined adds none of its own (the installed plugins' agents are there). */
  readonly agents?: number;
  /**
   * Grow the agents from the installed plugins' skills too (an agent per skill, its description
   * the skill's, then near-copies), not only from the plugin agents: a catalog whose agents match
   * most requests, the worst case for what messages are offered. @default false
   */
  readonly agentsFromSkills?: boolean;
}

/** A project with `total` skills (see the file comment); `configYaml` adds top-level keys. */
export async function makeSkillCorpusProject(corpus: string, total: number, configYaml = "", options: SkillCorpusProjectOptions = {}): Promise<SkillCorpusProject> {
  const temp = makeTempDir("tt-bench-listing-");
  const originals = await corpusSkills(corpus);
  const kept = new Set(originals.slice(0, total).map((skill) => skill.identity));
  const disabled = Object.fromEntries(originals.filter((skill) => !kept.has(skill.identity)).map((skill) => [skill.identity, { enabled: false }]));
  writeTree(temp.dir, {
    "config.yaml": `data_dir: data\nlog:\n  level: silent\nsandbox:\n  warm_pool_size: 0\n${configYaml}`,
    "extensions_config.json": JSON.stringify({ mcpServers: {}, skills: disabled, plugins: {}, tools: {} }),
    "skills/public/.keep": "",
  });
  fs.cpSync(path.join(corpus, "anthropic-skills"), path.join(temp.dir, "skills", "custom"), { recursive: true });
  const installed = new Set(originals.filter((skill) => kept.has(skill.identity)).map((skill) => skill.category));
  const installer = new PluginInstaller({ pluginsDir: path.join(temp.dir, "plugins"), store: new ExtensionsStore(path.join(temp.dir, "extensions_config.json")) });
  for (const folder of corpusPluginFolders(corpus)) {
    const { name } = JSON.parse(fs.readFileSync(path.join(folder, ".claude-plugin", "plugin.json"), "utf8")) as { name: string };
    if (installed.has(`plugin:${name}`)) await installer.installPath(folder);
  }
  if (total > originals.length) {
    const grown = path.join(temp.dir, "grown");
    const { sources } = growSkills(originals, grown, total);
    for (const source of sources) {
      if (source.category === "custom") {
        for (const name of fs.readdirSync(source.root)) fs.renameSync(path.join(source.root, name), path.join(temp.dir, "skills", "custom", name));
        continue;
      }
      const plugin = source.category.slice("plugin:".length);
      const folder = path.join(temp.dir, "plugins", "installed", plugin);
      writeTree(folder, { ".claude-plugin/plugin.json": JSON.stringify({ name: plugin, description: `Mirror of ${plugin.replace(/-mirror-\d+$/, "")}` }) });
      fs.renameSync(source.root, path.join(folder, "skills"));
    }
    fs.rmSync(grown, { recursive: true, force: true });
  }
  if (options.agents !== undefined) {
    const pluginAgents = corpusPluginAgents(corpus).filter((agent) => installed.has(`plugin:${agent.plugin}`));
    const fromSkills = options.agentsFromSkills ? skillsAsAgents(originals.filter((skill) => kept.has(skill.identity))) : [];
    const copies = options.agents - 1 - pluginAgents.length;
    if (copies < 0) throw new Error(`${options.agents} agents: fewer than the built-in and the installed plugins' ${pluginAgents.length}`);
    const grown = path.join(temp.dir, "grown-agents");
    for (const [plugin, source] of growAgents([...pluginAgents, ...fromSkills], grown, copies)) {
      const folder = path.join(temp.dir, "plugins", "installed", plugin);
      if (!fs.existsSync(folder)) writeTree(folder, { ".claude-plugin/plugin.json": JSON.stringify({ name: plugin, description: `Mirror of ${plugin.replace(/-mirror-\d+$/, "")}` }) });
      fs.renameSync(path.join(source, "agents"), path.join(folder, "agents"));
    }
    fs.rmSync(grown, { recursive: true, force: true });
  }
  return { dir: temp.dir, cleanup: temp.cleanup };
}

/** Plugin skills as agent originals: `<plugin>-agents:<skill>-agent`, described as the skill is (growAgents then perturbs each copy). */
function skillsAsAgents(skills: readonly Skill[]): AgentOriginal[] {
  return skills
    .filter((skill) => skill.category.startsWith("plugin:"))
    .map((skill) => {
      // Nested skill names (contact-center/android) become one segment, as growSkills names copies.
      const name = `${skill.name.replace(/\//g, "-")}-agent`;
      return { plugin: `${skill.category.slice("plugin:".length)}-agents`, name, frontmatter: { name, description: skill.description }, body: "" };
    });
}
