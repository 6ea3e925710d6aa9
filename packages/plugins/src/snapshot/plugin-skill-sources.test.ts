import path from "node:path";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterEach, describe, expect, it } from "vitest";
import { loadPlugin } from "../load-plugin.js";
import { pluginTrust } from "./plugin-enablement.js";
import { pluginDisabledReason, pluginSkillSources } from "./plugin-skill-sources.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function pluginAt(files: Record<string, string>, folder = "sales") {
  const temp = makeTempDir("tt-plugin-skill-sources-");
  cleanups.push(temp.cleanup);
  const root = path.join(temp.dir, folder);
  writeTree(root, files);
  return loadPlugin(root);
}

describe("pluginSkillSources and pluginDisabledReason", () => {
  it("gives one source per skills folder, switched off with the reason when asked", () => {
    const plugin = pluginAt({
      ".claude-plugin/plugin.json": JSON.stringify({ name: "sales", skills: ["./skills", "./extra"] }),
      "skills/prep/SKILL.md": "---\nname: prep\ndescription: Prep\n---\n",
      "extra/more/SKILL.md": "---\nname: more\ndescription: More\n---\n",
    });
    expect(pluginSkillSources(plugin)).toEqual([
      { category: "plugin:sales", root: path.join(plugin.root, "skills"), containerPrefix: "plugins/sales" },
      { category: "plugin:sales", root: path.join(plugin.root, "extra"), containerPrefix: "plugins/sales/extra" },
    ]);
    expect(pluginSkillSources(plugin, "off").map((source) => source.disabledReason)).toEqual(["off", "off"]);
    const trusted = pluginSkillSources(plugin, undefined, pluginTrust({ plugins: { sales: { enabled: true, trusted: true, scripts_approved: true } } }, "sales"));
    expect(trusted.map((source) => [source.trusted, source.scriptsApproved])).toEqual([
      [true, true],
      [true, true],
    ]);
  });

  it("reads a plugin's trust from its entry: only `true` counts", () => {
    expect(pluginTrust({}, "sales")).toEqual({ trusted: false, scriptsApproved: false });
    expect(pluginTrust({ plugins: { sales: { trusted: true } } }, "sales")).toEqual({ trusted: true, scriptsApproved: false });
    expect(pluginTrust({ plugins: { sales: { trusted: "yes", scripts_approved: 1 } } }, "sales")).toEqual({ trusted: false, scriptsApproved: false });
    expect(pluginTrust({ plugins: { other: { trusted: true } } }, "sales")).toEqual({ trusted: false, scriptsApproved: false });
  });

  it("says why a plugin's skills are not in use: disabled in the store, or errors (which win)", () => {
    const plugin = pluginAt({ ".claude-plugin/plugin.json": JSON.stringify({ name: "sales" }) });
    expect(pluginDisabledReason(plugin, { plugins: { sales: { enabled: true } } })).toBeUndefined();
    expect(pluginDisabledReason(plugin, {})).toBeUndefined();
    expect(pluginDisabledReason(plugin, { plugins: { sales: { enabled: false } } })).toBe("the plugin 'sales' is disabled");
    const broken = pluginAt({ ".claude-plugin/plugin.json": "{ not json" });
    expect(pluginDisabledReason(broken, { plugins: { sales: { enabled: false } } })).toMatch(/^the plugin 'sales' has errors: \.claude-plugin\/plugin\.json/);
  });
});
