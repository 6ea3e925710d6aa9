import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterEach, describe, expect, it } from "vitest";
import { assertPluginValid, loadPlugin } from "./load-plugin.js";

let cleanup = (): void => {};
afterEach(() => cleanup());

function plugin(files: Record<string, string>, folder = "my-plugin"): string {
  const temp = makeTempDir();
  cleanup = temp.cleanup;
  const root = `${temp.dir}/${folder}`;
  writeTree(root, files);
  return root;
}

const manifest = (value: unknown): Record<string, string> => ({ ".claude-plugin/plugin.json": JSON.stringify(value) });

describe("loadPlugin", () => {
  it("takes the folder's name when there is no manifest", () => {
    const loaded = loadPlugin(plugin({ "commands/hello.md": "Say hello" }, "folder-name"));
    expect(loaded.name).toBe("folder-name");
    expect(loaded.manifestSource).toBe("folder");
    expect(loaded.commands[0]).toMatchObject({ name: "hello", description: "Say hello", disableModelInvocation: false });
    assertPluginValid(loaded);
  });

  it("keeps unknown manifest fields and every defined one", () => {
    const full = {
      name: "full",
      version: "1.2.3",
      description: "d",
      author: { name: "A", email: "a@example.com", url: "https://example.com" },
      homepage: "https://example.com",
      repository: "https://github.com/x/y",
      license: "MIT",
      keywords: ["k"],
      futureField: { nested: true },
    };
    const loaded = loadPlugin(plugin(manifest(full)));
    expect(loaded.manifest).toEqual(full);
    assertPluginValid(loaded);
  });

  it("quotes a name that holds bidirectional or invisible characters with them escaped, so the message reads as it is", () => {
    const loaded = loadPlugin(plugin(manifest({ name: "ev\u202Elig\u200Bx" })));
    const message = loaded.problems.map((p) => p.message).find((m) => m.includes("'name'")) ?? "";
    expect(message).toContain('"ev\\u202elig\\u200bx"');
    expect(message).not.toMatch(/[\u202E\u200B]/);
  });

  it("refuses a bad manifest with every reason at once", () => {
    const loaded = loadPlugin(plugin(manifest({ name: "bad name", version: 3, keywords: "x", author: 5, commands: 7, mcpServers: true })));
    expect(() => assertPluginValid(loaded)).toThrowError(expect.objectContaining({ code: "INVALID_PLUGIN" }) as Error);
    const messages = loaded.problems.map((p) => p.message);
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringContaining("'name' must be a string of 1-64 letters"),
        expect.stringContaining("'keywords' must be a list of strings"),
        expect.stringContaining("'author' must be a string or an object"),
        expect.stringContaining("'commands' must be a path or a list of paths (got number 7)"),
        expect.stringContaining("'mcpServers' must be a path, a list of paths, or an inline object"),
        expect.stringContaining("'version' must be string"),
      ]),
    );
  });

  it("refuses a manifest without a name, and one that is not JSON, naming the line", () => {
    expect(loadPlugin(plugin(manifest({ version: "1" }))).problems[0]?.message).toBe("'name' is required");
    const broken = loadPlugin(plugin({ ".claude-plugin/plugin.json": '{\n  "name": "x",\n  oops\n}' }));
    expect(broken.problems[0]).toMatchObject({ severity: "error", file: ".claude-plugin/plugin.json", line: 3 });
    expect(loadPlugin(plugin(manifest(["a"]))).problems[0]?.message).toContain("must be a JSON object");
  });

  it("refuses a folder name that cannot be a plugin name when there is no manifest", () => {
    const loaded = loadPlugin(plugin({ "commands/a.md": "x" }, "has space"));
    expect(() => assertPluginValid(loaded)).toThrow(/not a valid plugin name/);
  });

  it("lets manifest component paths replace the default folders, and refuses paths outside the plugin", () => {
    const root = plugin({
      ...manifest({ name: "p", commands: ["./extra/one.md", "./more"], agents: "../outside", skills: "/etc", hooks: "./nope.json" }),
      "commands/ignored.md": "not read: the manifest names other paths",
      "extra/one.md": "---\ndescription: One\n---\nbody",
      "more/two.md": "Two",
      "more/notes.txt": "not markdown",
    });
    const loaded = loadPlugin(root);
    expect(loaded.commands.map((c) => c.name)).toEqual(["one", "two"]);
    const errors = loaded.problems.filter((p) => p.severity === "error").map((p) => p.message);
    expect(errors).toEqual(
      expect.arrayContaining([
        `'agents' path "../outside" leads outside the plugin ('..')`,
        `'skills' path "/etc" is absolute; component paths are relative to the plugin root`,
        `'hooks' path "./nope.json" does not exist in the plugin`,
      ]),
    );
    expect(errors).toHaveLength(3);
  });

  it("reads command frontmatter into one shape", () => {
    const loaded = loadPlugin(
      plugin({
        "commands/a.md": "---\ndescription: A\nargument-hint: [x, y]\nallowed-tools: Bash(git add:*), Read Write\nmodel: haiku\ndisable-model-invocation: true\n---\nDo $ARGUMENTS",
        "commands/b.md": "---\nallowed-tools: [Read, Grep]\n---\n\n# Heading as description\nrest",
      }),
    );
    expect(loaded.commands[0]).toMatchObject({
      name: "a",
      description: "A",
      argumentHint: "[x, y]",
      allowedTools: ["Bash(git add:*)", "Read", "Write"],
      model: "haiku",
      disableModelInvocation: true,
      body: "Do $ARGUMENTS",
    });
    expect(loaded.commands[1]).toMatchObject({ description: "Heading as description", allowedTools: ["Read", "Grep"] });
    expect(loaded.problems).toEqual([expect.objectContaining({ severity: "warning", file: "commands/a.md", message: expect.stringContaining("argument-hint is not a string") })]);
  });

  it("reads frontmatter YAML refuses line by line with a warning naming the file and line; refuses one without a closing line", () => {
    const loaded = loadPlugin(plugin({ "agents/x.md": "---\nname: x\ndescription: [unclosed\n---\nReview the change.\n" }));
    assertPluginValid(loaded);
    expect(loaded.agents).toMatchObject([{ name: "x", description: "[unclosed" }]);
    expect(loaded.problems).toEqual([{ severity: "warning", lenient: true, file: "agents/x.md", line: 3, message: expect.stringMatching(/^invalid YAML in frontmatter: .*; read line by line as key: value/) }]);
    const unclosed = loadPlugin(plugin({ "agents/x.md": "---\nname: x\n" }));
    expect(() => assertPluginValid(unclosed)).toThrow(/agents\/x\.md:1: frontmatter starts with '---' but has no closing '---' line/);
  });

  it("reads .mcp.json in both forms plus inline manifest servers; the first definition of a name wins", () => {
    const wrapped = loadPlugin(plugin({ ".mcp.json": JSON.stringify({ mcpServers: { a: { type: "http", url: "https://a" } } }) }));
    expect(wrapped.servers.map((s) => s.name)).toEqual(["a"]);
    const bare = loadPlugin(
      plugin({
        ...manifest({ name: "p", mcpServers: { a: { command: "other" }, c: { type: "websocket", url: "wss://c" } } }),
        ".mcp.json": JSON.stringify({ a: { command: "node", args: ["x.js"] }, b: { url: "https://b" } }),
      }),
    );
    expect(bare.servers.map((s) => [s.name, s.transport, s.typeFieldAbsent])).toEqual([
      ["a", "stdio", true],
      ["b", "http", true],
      ["c", undefined, false],
    ]);
    expect(bare.servers[0]?.entry).toEqual({ command: "node", args: ["x.js"] });
    expect(bare.problems.map((p) => p.severity)).toEqual(["warning", "warning"]);
  });

  it("refuses server entries that are not objects and .mcp.json that is not JSON", () => {
    expect(() => assertPluginValid(loadPlugin(plugin({ ".mcp.json": JSON.stringify({ mcpServers: { a: "nope" } }) })))).toThrow(/server 'a' must be an object \(got string "nope"\)/);
    expect(() => assertPluginValid(loadPlugin(plugin({ ".mcp.json": "{" })))).toThrow(/\.mcp\.json:1: is not valid JSON/);
  });

  it("lists hooks from hooks/hooks.json and the manifest without running them", () => {
    const loaded = loadPlugin(
      plugin({
        ...manifest({ name: "p", hooks: { SessionStart: [{ hooks: [{ type: "command", command: "echo hi" }] }] } }),
        "hooks/hooks.json": JSON.stringify({ description: "d", hooks: { PostToolUse: [{ matcher: "Write|Edit", hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/fmt.sh" }] }] } }),
      }),
    );
    expect(loaded.hooks).toEqual([
      { event: "PostToolUse", matcher: "Write|Edit", handlers: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/fmt.sh" }], file: "hooks/hooks.json" },
      { event: "SessionStart", handlers: [{ type: "command", command: "echo hi" }], file: ".claude-plugin/plugin.json" },
    ]);
    assertPluginValid(loaded);
    const bad = loadPlugin(plugin({ "hooks/hooks.json": JSON.stringify({ hooks: { Stop: {} , PreToolUse: [{ hooks: [{}] }] } }) }));
    expect(bad.problems.map((p) => p.message)).toEqual([
      "hook event 'Stop' must be a list of matcher groups (got an object)",
      "hook event 'PreToolUse' group 1: every hook needs a string 'type' (got an object)",
    ]);
  });

  it("finds nested skills the way the skills loader does, and reads a skills path that is a skill itself as that skill", () => {
    const loaded = loadPlugin(
      plugin({
        ...manifest({ name: "p", skills: ["./skills", "./more"] }),
        "skills/top/SKILL.md": "---\nname: top\ndescription: Top\nuser-invocable: false\n---\nbody",
        "skills/top/sub/SKILL.md": "---\nname: sub\ndescription: Sub\n---\n",
        "skills/group/inner/SKILL.md": "---\nname: inner\ndescription: I\n---\n",
        "skills/.hidden/x/SKILL.md": "---\nname: hidden\ndescription: H\n---\n",
        "more/extra/SKILL.md": "---\nname: extra\ndescription: E\n---\n",
        "skills/zz-dup/SKILL.md": "---\nname: top\ndescription: again\n---\n",
      }),
    );
    expect(loaded.skills.map((s) => [s.name, s.dir, s.nested, s.userInvocable])).toEqual([
      ["inner", "skills/group/inner", false, true],
      ["top", "skills/top", false, false],
      ["sub", "skills/top/sub", true, true],
      ["extra", "more/extra", false, true],
    ]);
    expect(loaded.skills[2]?.parentDir).toBe("skills/top");
    expect(loaded.skillRoots).toEqual(["skills", "more"]);
    expect(loaded.singleSkillRoots).toEqual([]);
    expect(loaded.problems.map((p) => p.message)).toContain("skill name 'top' is already used by skills/top/SKILL.md; this skill is ignored");
    assertPluginValid(loaded);
    const solo = loadPlugin(plugin({ ...manifest({ name: "p", skills: "./solo" }), "solo/SKILL.md": "---\nname: solo\ndescription: S\n---\n", "solo/deep/SKILL.md": "---\nname: deep\ndescription: D\n---\n" }));
    assertPluginValid(solo);
    expect(solo.skills.map((s) => [s.name, s.dir, s.nested])).toEqual([
      ["solo", "solo", false],
      ["deep", "solo/deep", true],
    ]);
    expect(solo).toMatchObject({ skillRoots: ["solo"], singleSkillRoots: ["solo"] });
    expect(solo.problems).toEqual([{ severity: "warning", lenient: true, file: ".claude-plugin/plugin.json", message: expect.stringContaining("'skills' path ./solo is one skill folder") }]);
  });
  it("reads skills with the skills package's parser: no description nor paragraph skips the skill, broken YAML is read line by line", () => {
    const loaded = loadPlugin(plugin({ "skills/a/SKILL.md": "---\nname: a\n---\n# Only a heading\n", "skills/b/SKILL.md": "---\nname: b\ndescription: B\n---\n" }));
    expect(loaded.skills.map((s) => s.name)).toEqual(["b"]);
    expect(loaded.problems).toEqual([expect.objectContaining({ severity: "warning", file: "skills/a/SKILL.md", message: expect.stringContaining("skipped: description is required") })]);
    const broken = loadPlugin(plugin({ "skills/a/SKILL.md": "---\nname: a\ndescription: [oops\n---\n" }));
    assertPluginValid(broken);
    expect(broken.skills.map((s) => [s.name, s.description])).toEqual([["a", "[oops"]]);
    expect(broken.problems).toEqual([{ severity: "warning", lenient: true, file: "skills/a/SKILL.md", message: expect.stringMatching(/invalid YAML in frontmatter: .*read line by line/) }]);
  });
  it("loads a skill without a description, or without frontmatter, with its body's first paragraph (as Claude Code does), with a warning", () => {
    const loaded = loadPlugin(
      plugin({
        "skills/undescribed/SKILL.md": "---\nname: undescribed\n---\n# Title\n\nFirst paragraph\nwraps here.\n\nSecond.\n",
        "skills/bare/SKILL.md": "# Bare Skill\n\n```\ncode\n```\nGuides the bare work.\n\n## More\n",
      }),
    );
    assertPluginValid(loaded);
    expect(loaded.skills.map((s) => [s.name, s.description]).sort()).toEqual([
      ["bare", "Guides the bare work."],
      ["undescribed", "First paragraph wraps here."],
    ]);
    expect(loaded.problems.map((p) => [p.file, p.message]).sort()).toEqual([
      ["skills/bare/SKILL.md", expect.stringMatching(/no YAML frontmatter: the name is the folder's and the description the body's first paragraph/)],
      ["skills/undescribed/SKILL.md", "description is required: the body's first paragraph is used, as Claude Code does"],
    ]);
  });
});
