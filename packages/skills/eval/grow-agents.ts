import fs from "node:fs";
import path from "node:path";
import { parseFrontmatter } from "@thinktank/core";
import { seededRandom } from "@thinktank/testing";

/** An agent to copy: the plugin that ships it, its frontmatter (name and description at least) and its body. */
export interface AgentOriginal {
  readonly plugin: string;
  readonly name: string;
  readonly frontmatter: Readonly<Record<string, unknown>>;
  readonly body: string;
}

/**
 * The agent files the corpus's plugins ship (`agents/*.md` of each plugin of
 * `knowledge-work-plugins` and its `partner-built` folder), by plugin.json's name, in a stable order.
 */
export function corpusPluginAgents(corpusDir: string): AgentOriginal[] {
  const root = path.join(corpusDir, "knowledge-work-plugins");
  const folders = [root, path.join(root, "partner-built")].flatMap((dir) => (fs.existsSync(dir) ? fs.readdirSync(dir).sort().map((name) => path.join(dir, name)) : []));
  const originals: AgentOriginal[] = [];
  for (const folder of folders) {
    const manifest = path.join(folder, ".claude-plugin", "plugin.json");
    const agents = path.join(folder, "agents");
    if (!fs.existsSync(manifest) || !fs.existsSync(agents)) continue;
    const { name } = JSON.parse(fs.readFileSync(manifest, "utf8")) as { name: string };
    for (const file of fs.readdirSync(agents).filter((entry) => entry.endsWith(".md")).sort()) {
      const parsed = parseFrontmatter(fs.readFileSync(path.join(agents, file), "utf8"));
      if (!parsed.ok) throw new Error(`${file}: ${parsed.problem.message}`);
      originals.push({ plugin: name, name: typeof parsed.data.name === "string" ? parsed.data.name : path.basename(file, ".md"), frontmatter: parsed.data, body: parsed.body });
    }
  }
  return originals;
}

/**
 * Writes `count` renamed near-copies of plugin agents under `into`, one plugin folder per round
 * as growSkills mirrors skills: round n copies each original `plugin:<p>:<name>` to
 * `<into>/<p>-mirror-<n>/agents/<name>-mirror-<n>.md` (a plugin's agents folder; give it a
 * plugin.json, or move the files where an install would put them). A copy keeps its body and
 * frontmatter; its description (examples included) is perturbed as growSkills perturbs skill
 * descriptions, about one word in eight dropped or swapped for a word of another agent's
 * (seeded: every run writes the same files). Returns the plugin folders written, by plugin name.
 * The agent listing's bench and its size test share this; nothing of the corpus is stored in the
 * repository.
 */
export function growAgents(originals: readonly AgentOriginal[], into: string, count: number): Map<string, string> {
  const next = seededRandom(27);
  const read = originals;
  const vocabulary = read.flatMap(({ frontmatter }) => String(frontmatter.description ?? "").split(/\s+/).slice(0, 30)).filter((word) => /^[a-z]{4,}$/.test(word));
  const plugins = new Map<string, string>();
  let written = 0;
  for (let round = 1; read.length > 0 && written < count; round++) {
    for (const agent of read) {
      if (written >= count) break;
      const plugin = `${agent.plugin}-mirror-${round}`;
      const folder = path.join(into, plugin);
      plugins.set(plugin, folder);
      const name = `${agent.name}-mirror-${round}`;
      const data = { ...agent.frontmatter, name, description: perturb(String(agent.frontmatter.description ?? ""), vocabulary, next) };
      const lines = Object.entries(data).map(([key, value]) => `${key}: ${JSON.stringify(value)}`);
      fs.mkdirSync(path.join(folder, "agents"), { recursive: true });
      fs.writeFileSync(path.join(folder, "agents", `${name}.md`), `---\n${lines.join("\n")}\n---\n${agent.body}`);
      written++;
    }
  }
  return plugins;
}

function perturb(description: string, vocabulary: readonly string[], next: () => number): string {
  // Line by line, so that <example> blocks keep their lines (and the summary its first sentence's shape).
  return description
    .split("\n")
    .map((line) =>
      line
        .split(/ +/)
        .flatMap((word) => {
          const roll = next();
          if (word.startsWith("<")) return [word];
          if (roll < 0.06) return [];
          if (roll < 0.125) return [vocabulary[Math.floor(next() * vocabulary.length)] ?? word];
          return [word];
        })
        .join(" "),
    )
    .join("\n");
}
