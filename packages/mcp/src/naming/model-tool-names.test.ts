import path from "node:path";
import { corpusDir, needs } from "@thinktank/testing";
import { describe, expect, it } from "vitest";
import { readCatalog } from "../catalog/read-catalog.js";
import { modelToolNames, sanitizeNamePart } from "./model-tool-names.js";

const valid = /^[a-zA-Z0-9_-]{1,64}$/;
const tools = (...names: string[]): { name: string }[] => names.map((name) => ({ name }));

function expectValidAndUnique(names: Iterable<string>): void {
  const lower = new Set<string>();
  for (const name of names) {
    expect(name).toMatch(valid);
    expect(lower.has(name.toLowerCase())).toBe(false);
    lower.add(name.toLowerCase());
  }
}

describe("modelToolNames", () => {
  it("joins server and tool with the separator and leaves clean names alone", () => {
    const naming = modelToolNames([{ server: "github", tools: tools("create_issue", "list-prs") }]);
    expect(naming.nameOf("github", "create_issue")).toBe("github__create_issue");
    expect(naming.nameOf("github", "list-prs")).toBe("github__list-prs");
    expect(naming.names.get("github__create_issue")).toEqual({ server: "github", tool: "create_issue" });
    expect(naming.renamed).toEqual([]);
    expect(naming.collisions).toEqual([]);
  });

  it("sanitises plugin-merged server names with colons and spaces", () => {
    const naming = modelToolNames([{ server: "sales:google calendar", tools: tools("events.list", "crée") }]);
    expect(naming.nameOf("sales:google calendar", "events.list")).toBe("sales_google_calendar__events_list");
    expect(naming.nameOf("sales:google calendar", "crée")).toBe("sales_google_calendar__cree");
    expect(naming.renamed.map((r) => r.reasons)).toEqual([["sanitised"], ["sanitised"]]);
  });

  it("resolves collisions: the unchanged name keeps it, the others get a stable hash suffix", () => {
    const naming = modelToolNames([
      { server: "a b", tools: tools("run") },
      { server: "a_b", tools: tools("run") },
      { server: "a:b", tools: tools("run") },
    ]);
    expect(naming.nameOf("a_b", "run")).toBe("a_b__run");
    const others = [naming.nameOf("a b", "run"), naming.nameOf("a:b", "run")];
    for (const name of others) expect(name).toMatch(/^a_b__run_[0-9a-f]{6}$/);
    expect(new Set(others).size).toBe(2);
    expect(naming.collisions).toHaveLength(1);
    expect(naming.collisions[0]?.kept).toEqual({ server: "a_b", tool: "run" });
    expect(naming.collisions[0]?.renamed.map((r) => r.server).sort()).toEqual(["a b", "a:b"]);
    expectValidAndUnique(naming.names.keys());
  });

  it("treats names that differ only in case as a collision", () => {
    const naming = modelToolNames([{ server: "s", tools: tools("Search", "search") }]);
    expect(naming.names.size).toBe(2);
    expectValidAndUnique(naming.names.keys());
    expect(naming.collisions).toHaveLength(1);
  });

  it("gives the same answer whatever the order of servers and tools", () => {
    const input = [
      { server: "x y", tools: tools("go", "stop") },
      { server: "x_y", tools: tools("stop", "go") },
      { server: "x-y", tools: tools("go") },
    ];
    const reversed = [...input].reverse().map((s) => ({ ...s, tools: [...s.tools].reverse() }));
    const first = modelToolNames(input);
    const second = modelToolNames(reversed);
    expect([...first.names.entries()].sort()).toEqual([...second.names.entries()].sort());
  });

  it("cuts long names to 64 characters with a hash and keeps them unique", () => {
    const long = "a_really_long_tool_name_that_goes_on_and_on_and_on_for_ever_and_ever";
    const naming = modelToolNames([
      { server: "some-server-with-a-long-name", tools: tools(long, `${long}_2`) },
    ]);
    const names = [naming.nameOf("some-server-with-a-long-name", long)!, naming.nameOf("some-server-with-a-long-name", `${long}_2`)!];
    for (const name of names) expect(name.length).toBeLessThanOrEqual(64);
    expectValidAndUnique(names);
    expect(naming.renamed.every((r) => r.reasons.includes("truncated"))).toBe(true);
    expect(names[0]!.startsWith("some-server-")).toBe(true);
  });

  it("a suffixed name never takes a name another tool has naturally", () => {
    const first = modelToolNames([{ server: "p q", tools: tools("t") }, { server: "p_q", tools: tools("t") }]);
    const suffixed = first.nameOf("p q", "t")!;
    const [server, tool] = suffixed.split("__") as [string, string];
    const naming = modelToolNames([
      { server: "p q", tools: tools("t") },
      { server: "p_q", tools: tools("t") },
      { server, tools: tools(tool) },
    ]);
    expect(naming.nameOf(server, tool)).toBe(suffixed);
    expect(naming.nameOf("p q", "t")).not.toBe(suffixed);
    expectValidAndUnique(naming.names.keys());
  });

  it("reports a tool listed twice by one server and counts it once", () => {
    const naming = modelToolNames([{ server: "s", tools: tools("a", "a") }]);
    expect(naming.names.size).toBe(1);
    expect(naming.duplicates).toEqual([{ server: "s", tool: "a" }]);
  });

  it("applies a prefix and a custom separator", () => {
    const naming = modelToolNames([{ server: "fs", tools: tools("read") }], { prefix: "mcp__", separator: "-" });
    expect(naming.nameOf("fs", "read")).toBe("mcp__fs-read");
  });

  it("rejects options that would make invalid names, saying what it got", () => {
    expect(() => modelToolNames([], { separator: "." })).toThrow(/separator must be made of .*got "\."/);
    expect(() => modelToolNames([], { prefix: "mcp:" })).toThrow(/prefix/);
    expect(() => modelToolNames([], { maxLength: 10 })).toThrow(/maxLength must be an integer of at least/);
  });

  it("names an empty or symbol-only part with an underscore", () => {
    expect(sanitizeNamePart("")).toBe("_");
    expect(sanitizeNamePart("日本")).toBe("_");
    const naming = modelToolNames([{ server: "日本", tools: tools("ツール") }]);
    expectValidAndUnique(naming.names.keys());
  });

  it("names all 2,136 corpus catalog tools validly and uniquely", needs("corpus"), () => {
    const { servers } = readCatalog(path.join(corpusDir(), "mcp-tools"));
    const naming = modelToolNames(servers);
    expect(naming.names.size).toBe(servers.reduce((n, s) => n + new Set(s.tools.map((t) => t.name)).size, 0));
    expectValidAndUnique(naming.names.keys());
    for (const server of servers) {
      for (const tool of server.tools) expect(naming.names.get(naming.nameOf(server.server, tool.name)!)).toEqual({ server: server.server, tool: tool.name });
    }
  });
});
