import fs from "node:fs";
import path from "node:path";
import { corpusDir, missingReason, needs } from "@thinktank/testing";
import { describe, expect, it } from "vitest";
import { assertPluginValid, loadPlugin } from "./load-plugin.js";

interface ExpectedPlugin {
  path: string;
  name: string;
  version: string;
  skills: string[];
  commands: string[];
  agents: string[];
  mcpServers: { name: string; transport: string; emptyUrl?: boolean; typeFieldAbsent?: boolean }[];
  nestedSkillFiles?: { path: string }[];
}

describe("loadPlugin over the knowledge-work-plugins corpus", needs("corpus"), () => {
  // Read while collecting, so only when present (the suite is skipped otherwise).
  const corpus = missingReason("corpus") === undefined ? corpusDir() : "";
  const expected = corpus ? (JSON.parse(fs.readFileSync(path.join(corpus, "expected.json"), "utf8")) as { knowledgeWorkPlugins: { plugins: ExpectedPlugin[] } }) : undefined;
  const plugins = expected?.knowledgeWorkPlugins.plugins ?? [];

  it("has the 22 plugins of the corpus", () => {
    expect(plugins).toHaveLength(22);
  });

  it.each(plugins.map((p) => [p.path, p] as const))("%s matches expected.json exactly", (relative, want) => {
    const plugin = loadPlugin(path.join(corpus, "knowledge-work-plugins", relative));
    assertPluginValid(plugin);
    expect(plugin.name).toBe(want.name);
    expect(plugin.manifest.version).toBe(want.version);
    expect(plugin.skills.filter((s) => !s.nested).map((s) => s.name).sort()).toEqual([...want.skills].sort());
    expect(plugin.commands.map((c) => c.name).sort()).toEqual([...want.commands].sort());
    expect(plugin.agents.map((a) => a.name).sort()).toEqual([...want.agents].sort());
    expect(
      plugin.servers.map((s) => ({
        name: s.name,
        transport: s.transport,
        ...(s.entry.url === "" ? { emptyUrl: true } : {}),
        ...(s.typeFieldAbsent ? { typeFieldAbsent: true } : {}),
      })),
    ).toEqual(want.mcpServers);
    const nested = plugin.skills.filter((s) => s.nested).map((s) => s.file.replace(/^skills\//, "")).sort();
    expect(nested).toEqual((want.nestedSkillFiles ?? []).map((n) => n.path).sort());
  });

  it("keeps the corpus edge cases deliberate", () => {
    const root = path.join(corpus, "knowledge-work-plugins");
    const zoom = loadPlugin(path.join(root, "partner-built/zoom-plugin"));
    const uiToolkit = zoom.skills.find((s) => s.name === "ui-toolkit/web");
    expect(uiToolkit?.dir).toBe("skills/ui-toolkit");
    expect(uiToolkit?.identity).toBe("plugin:zoom-plugin:ui-toolkit/web");
    expect(zoom.skills.find((s) => s.name === "zoom-meeting-sdk-web")).toMatchObject({ nested: true, parentDir: "skills/meeting-sdk", dir: "skills/meeting-sdk/web" });
    expect(zoom.problems.some((p) => p.severity === "warning" && p.message === 'name "ui-toolkit/web" must equal its folder\'s name "ui-toolkit"')).toBe(true);

    const commonRoom = loadPlugin(path.join(root, "partner-built/common-room"));
    const weekly = commonRoom.commands.find((c) => c.name === "weekly-brief");
    expect(weekly?.argumentHint).toBe("[date range, defaults to next 7 days]");
    expect(commonRoom.commands.find((c) => c.name === "generate-account-plan")?.argumentHint).toBe("<company name or domain>");

    const smallBusiness = loadPlugin(path.join(root, "small-business"));
    expect(smallBusiness.skills.find((s) => s.name === "call-list")?.allowedTools).toEqual(["Read", "WebFetch", "Bash"]);
    expect(smallBusiness.servers.find((s) => s.name === "google drive")?.entry.url).toBe("");

    const slack = loadPlugin(path.join(root, "partner-built/slack"));
    expect(slack.name).toBe("slack-by-salesforce");

    const pdf = loadPlugin(path.join(root, "pdf-viewer"));
    expect(pdf.servers[0]).toMatchObject({ name: "pdf", transport: "stdio", typeFieldAbsent: true });

    const brand = loadPlugin(path.join(root, "partner-built/brand-voice"));
    expect(brand.skills.some((s) => s.name === "discover-brand")).toBe(true);
    expect(brand.commands.some((c) => c.name === "discover-brand")).toBe(true);
    expect(brand.agents.some((a) => a.name === "discover-brand")).toBe(true);
    expect(brand.agents.every((a) => a.description.length > 0)).toBe(true);
  });
});
