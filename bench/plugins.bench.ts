// Plugins: installing the 22 knowledge-work plugins, and the agent's per-request snapshot
// (plugins + skills) with those 22 plugins and 200 more skills installed.
import fs from "node:fs";
import path from "node:path";
import { ExtensionsStore } from "@thinktank/core";
import { PluginInstaller, PluginSnapshotter, loadPlugin } from "@thinktank/plugins";
import { SkillsSnapshotter, defaultSkillSources, loadSkills } from "@thinktank/skills";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { round, summarize, timeIt } from "./harness.js";
import type { Benchmark, BenchContext, Measurement } from "./harness.js";

const extraSkills = 200;
const installRounds = 5;

/** The 22 local plugin folders the corpus marketplace lists. */
function corpusPluginFolders(corpus: string): string[] {
  const root = path.join(corpus, "knowledge-work-plugins");
  const marketplace = JSON.parse(fs.readFileSync(path.join(root, ".claude-plugin", "marketplace.json"), "utf8")) as { plugins: { source: unknown }[] };
  return marketplace.plugins.map((p) => p.source).filter((s): s is string => typeof s === "string").map((s) => path.join(root, s));
}

function freshDeployment(): { dir: string; cleanup: () => void; pluginsDir: string; store: ExtensionsStore } {
  const temp = makeTempDir("tt-bench-plugins-");
  fs.writeFileSync(path.join(temp.dir, "extensions_config.json"), JSON.stringify({ mcpServers: {}, skills: {}, plugins: {}, tools: {} }));
  return { ...temp, pluginsDir: path.join(temp.dir, "plugins"), store: new ExtensionsStore(path.join(temp.dir, "extensions_config.json")) };
}

async function installMeasurements(context: BenchContext, folders: readonly string[]): Promise<Measurement[]> {
  const installs: number[] = [];
  const copies: number[] = [];
  for (let round = 0; round < installRounds; round++) {
    const copyTarget = makeTempDir("tt-bench-copy-");
    const start = process.hrtime.bigint();
    for (const folder of folders) fs.cpSync(folder, path.join(copyTarget.dir, path.basename(folder)), { recursive: true });
    copies.push(Number(process.hrtime.bigint() - start) / 1e6);
    copyTarget.cleanup();

    const deployment = freshDeployment();
    const installer = new PluginInstaller({ pluginsDir: deployment.pluginsDir, store: deployment.store });
    const begin = process.hrtime.bigint();
    for (const folder of folders) await installer.installPath(folder);
    installs.push(Number(process.hrtime.bigint() - begin) / 1e6);
    deployment.cleanup();
  }
  const install = summarize(installs);
  const copy = summarize(copies);
  context.log(`install of ${folders.length} plugins: p50 ${round(install.median)} ms (plain copy ${round(copy.median)} ms)`);
  return [
    {
      name: `install all ${folders.length} corpus plugins (copy, validate, atomic rename, store write each)`,
      value: round(install.median),
      unit: "ms",
      stats: { min: round(install.min), max: round(install.max), rounds: installRounds, "per plugin": round(install.median / folders.length) },
      baseline: { name: "plain recursive copy of the same folders", value: round(copy.median), unit: "ms" },
    },
  ];
}

async function snapshotMeasurements(context: BenchContext, folders: readonly string[]): Promise<Measurement[]> {
  const deployment = freshDeployment();
  try {
    const installer = new PluginInstaller({ pluginsDir: deployment.pluginsDir, store: deployment.store });
    for (const folder of folders) await installer.installPath(folder);
    const skillsRoot = path.join(deployment.dir, "skills");
    const files: Record<string, string> = {};
    for (let i = 0; i < extraSkills; i++) {
      const name = `extra-${String(i).padStart(3, "0")}`;
      files[`custom/${name}/SKILL.md`] = `---\nname: ${name}\ndescription: "Handles request family ${i}: reads inputs and writes a short report."\n---\n# ${name}\n`;
    }
    writeTree(skillsRoot, { ...files, "public/.keep": "" });

    const plugins = new PluginSnapshotter({ pluginsDir: deployment.pluginsDir, settings: deployment.store, env: {} });
    const first = await plugins.snapshot();
    const skills = new SkillsSnapshotter({ sources: [...defaultSkillSources(skillsRoot), ...first.skillSources], settings: deployment.store });
    /** What the agent does per request: the plugin snapshot, then the skills snapshot over its sources. */
    const agentSnapshot = async (): Promise<number> => {
      const pluginSnapshot = await plugins.snapshot();
      if (pluginSnapshot !== first) skills.setSources([...defaultSkillSources(skillsRoot), ...pluginSnapshot.skillSources]);
      return (await skills.snapshot()).skills.length;
    };
    try {
      const count = await agentSnapshot();
      context.log(`snapshot holds ${first.plugins.length} plugins, ${count} skills, ${first.commands.entries.length} slash commands, ${Object.keys(first.servers.entries).length} servers`);
      const cold = await timeIt(
        async () => {
          const loaded = folders.map((folder) => loadPlugin(path.join(deployment.pluginsDir, "installed", loadPlugin(folder).name)));
          await loadSkills({ sources: [...defaultSkillSources(skillsRoot), ...loaded.flatMap((p) => p.skillRoots.map((r) => ({ category: `plugin:${p.name}` as const, root: path.join(p.root, r), containerPrefix: `plugins/${p.name}` })))] });
        },
        { samples: 5, warmup: 1 },
      );
      const unchanged = await timeIt(agentSnapshot, { samples: 1000, warmup: 50 });
      const pluginOnly = await timeIt(() => plugins.snapshot(), { samples: 1000, warmup: 50 });
      context.log(`unchanged agent snapshot p50 ${round(unchanged.median, 4)} ms (plugins alone ${round(pluginOnly.median, 4)} ms); full reload ${round(cold.median)} ms`);
      return [
        {
          name: `agent snapshot, unchanged: ${first.plugins.length} plugins + ${extraSkills} more skills (${count} skills in all)`,
          value: round(unchanged.median, 4),
          unit: "ms",
          stats: { p95: round(unchanged.p95, 4), samples: unchanged.samples, "plugins part p50": round(pluginOnly.median, 4) },
          baseline: { name: "re-reading every plugin and skill (no cache)", value: round(cold.median), unit: "ms" },
          target: "p50 <= 2 ms",
          pass: unchanged.median <= 2,
        },
      ];
    } finally {
      plugins.close();
      skills.close();
    }
  } finally {
    deployment.cleanup();
  }
}

const benchmark: Benchmark = {
  title: "Plugins: installs and the agent snapshot",
  issue: 3,
  async run(context) {
    if (!context.corpus) {
      context.log("the corpus is absent: the plugin benchmarks need its 22 plugins");
      return [];
    }
    const folders = corpusPluginFolders(context.corpus);
    return [...(await installMeasurements(context, folders)), ...(await snapshotMeasurements(context, folders))];
  },
};

export default benchmark;
