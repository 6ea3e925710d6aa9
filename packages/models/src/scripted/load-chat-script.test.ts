import path from "node:path";
import { makeTempDir, writeTree } from "@thinktank/testing";
import { afterAll, describe, expect, it } from "vitest";
import { isThinktankError } from "@thinktank/core";
import { loadChatScript, parseChatScript } from "./load-chat-script.js";
import { defaultChatScript } from "./default-chat-script.js";

const temp = makeTempDir("tt-script-");
afterAll(() => temp.cleanup());

function codeOf(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (error) {
    if (isThinktankError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error("expected an error");
}

describe("loadChatScript", () => {
  it("reads YAML and JSON files", () => {
    writeTree(temp.dir, {
      "a.yaml": "rules:\n  - when: { last_human: hi }\n    reply: hello\n",
      "b.json": JSON.stringify({ rules: [{ tool_calls: [{ name: "ls", args: { path: "/" } }] }] }),
    });
    expect(loadChatScript(path.join(temp.dir, "a.yaml")).rules[0]?.reply).toBe("hello");
    expect(loadChatScript(path.join(temp.dir, "b.json")).rules[0]?.tool_calls?.[0]?.name).toBe("ls");
  });

  it("names the file and position of a YAML error", () => {
    writeTree(temp.dir, { "bad.yaml": "rules: [\n" });
    const error = codeOf(() => loadChatScript(path.join(temp.dir, "bad.yaml")));
    expect(error.code).toBe("INVALID_YAML");
    expect(error.message).toContain("bad.yaml");
  });

  it("answers an unchanged file from memory and reads an edited one again", () => {
    const file = path.join(temp.dir, "c.yaml");
    writeTree(temp.dir, { "c.yaml": "rules:\n  - reply: one\n" });
    const first = loadChatScript(file);
    expect(loadChatScript(file)).toBe(first);
    writeTree(temp.dir, { "c.yaml": "rules:\n  - reply: two, edited\n" });
    expect(loadChatScript(file).rules[0]?.reply).toBe("two, edited");
    writeTree(temp.dir, { "c.yaml": "rules: [\n" });
    expect(codeOf(() => loadChatScript(file)).code).toBe("INVALID_YAML");
  });

  it("says when the file is missing", () => {
    expect(codeOf(() => loadChatScript(path.join(temp.dir, "missing.yaml"))).code).toBe("NOT_FOUND");
  });
});

describe("parseChatScript", () => {
  it("rejects unknown keys with their path", () => {
    const error = codeOf(() => parseChatScript({ rules: [{ when: { last_humann: "x" } }] }, "s.yaml"));
    expect(error.code).toBe("VALIDATION_FAILED");
    expect(error.message).toContain("s.yaml: rules.0.when: must NOT have additional properties 'last_humann'");
  });

  it("rejects a script without rules and a bad step", () => {
    expect(codeOf(() => parseChatScript({}, "s")).message).toContain("must have required property 'rules'");
    expect(codeOf(() => parseChatScript({ rules: [{ when: { step: -1 } }] }, "s")).message).toContain("rules.0.when.step");
  });

  it("rejects an invalid regular expression", () => {
    const error = codeOf(() => parseChatScript({ rules: [{ when: { last_human: "(" } }] }, "s"));
    expect(error.message).toContain("rules.0.when.last_human: not a valid regular expression");
  });

  it("accepts the built-in demo script", () => {
    expect(parseChatScript(structuredClone(defaultChatScript)).rules.length).toBeGreaterThan(3);
  });
});
