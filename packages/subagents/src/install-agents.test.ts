import fs from "node:fs";
import path from "node:path";
import { buildZip, isThinktankError } from "@thinktank/core";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { installAgents, type AgentPackageSource } from "./install-agents.js";

const agentText = (name: string, description = `Does ${name} things.`): string => `---\nname: ${name}\ndescription: ${description}\n---\nYou are ${name}.\n`;

let temp: { dir: string; cleanup: () => void };
let root: string;
beforeEach(() => {
  temp = makeTempDir("tt-install-agents-");
  root = path.join(temp.dir, "agents/custom");
});
afterEach(() => temp.cleanup());

async function codeOf(source: AgentPackageSource, options: { overwrite?: boolean } = {}): Promise<string> {
  try {
    await installAgents({ targetRoot: root, source, ...options });
  } catch (error) {
    if (isThinktankError(error)) return error.code;
    throw error;
  }
  return "installed";
}

const listing = (): string[] => fs.readdirSync(root).sort();

describe("installAgents", () => {
  it("stores each agent as <name>.md whatever the uploaded file was called, and leaves no staging folder", async () => {
    const installed = await installAgents({ targetRoot: root, source: { kind: "file", data: Buffer.from(agentText("triage")), fileName: "Whatever Name.md" } });
    expect(installed.map((entry) => [entry.agent.name, entry.file])).toEqual([["triage", path.join(root, "triage.md")]]);
    expect(listing()).toEqual(["triage.md"]);
  });

  it("is all or nothing: one bad file, a conflict on the second name, or a duplicate name keeps nothing, and overwrite replaces only agent files", async () => {
    writeTree(root, { "beta.md": agentText("beta", "The original beta.") });
    const twoBad = buildZip([{ name: "alpha.md", data: agentText("alpha") }, { name: "beta.md", data: "---\nname: beta\n---\n" }]);
    expect(await codeOf({ kind: "archive", data: twoBad })).toBe("INVALID_AGENT");
    const conflict = buildZip([{ name: "alpha.md", data: agentText("alpha") }, { name: "beta.md", data: agentText("beta", "A new beta.") }]);
    expect(await codeOf({ kind: "archive", data: conflict })).toBe("AGENT_NAME_CONFLICT");
    const twice = buildZip([{ name: "a.md", data: agentText("same") }, { name: "b.md", data: agentText("same") }]);
    expect(await codeOf({ kind: "archive", data: twice })).toBe("INVALID_AGENT");
    expect(listing()).toEqual(["beta.md"]);
    // overwrite replaces agent files only: a folder where gamma.md would go refuses the whole install, beta.md untouched.
    fs.mkdirSync(path.join(root, "gamma.md"));
    fs.writeFileSync(path.join(root, "gamma.md", "keep"), "");
    const overwrite = buildZip([{ name: "beta.md", data: agentText("beta", "A new beta.") }, { name: "gamma.md", data: agentText("gamma") }]);
    expect(await codeOf({ kind: "archive", data: overwrite }, { overwrite: true })).toBe("AGENT_NAME_CONFLICT");
    expect(fs.existsSync(path.join(root, "gamma.md", "keep"))).toBe(true);
    expect(fs.readFileSync(path.join(root, "beta.md"), "utf8")).toContain("The original beta.");
    expect(listing()).toEqual(["beta.md", "gamma.md"]);
  });

  it("refuses what is not an agent file: another extension, binary content, a file past the size bound, a zip without agents", async () => {
    expect(await codeOf({ kind: "file", data: Buffer.from(agentText("x")), fileName: "x.txt" })).toBe("INVALID_AGENT");
    expect(await codeOf({ kind: "file", data: Buffer.from("---\nname: x\ndescription: d\n---\n\0\0"), fileName: "x.md" })).toBe("INVALID_AGENT");
    expect(await codeOf({ kind: "file", data: Buffer.from(`${agentText("x")}${"a".repeat(300 * 1024)}`), fileName: "x.md" })).toBe("FILE_TOO_LARGE");
    expect(await codeOf({ kind: "archive", data: buildZip([{ name: "notes.txt", data: "hello" }]) })).toBe("INVALID_AGENT");
    expect(listing()).toEqual([]);
  });
});
