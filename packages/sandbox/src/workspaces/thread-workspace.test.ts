import fs from "node:fs";
import path from "node:path";
import { makeTempDir } from "@thinktank/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createThreadWorkspace, threadWorkspacePath } from "./thread-workspace.js";

describe("thread workspaces", () => {
  let temp: ReturnType<typeof makeTempDir>;
  beforeEach(() => {
    temp = makeTempDir();
  });
  afterEach(() => temp.cleanup());

  it("puts each thread in its own private folder under the workspaces folder", () => {
    const workspaces = path.join(temp.dir, "workspaces");
    const workspace = createThreadWorkspace(workspaces, "3f2c9a1e-7b4d-4c8e-9f10-123456789abc");
    expect(workspace).toBe(path.join(workspaces, "3f2c9a1e-7b4d-4c8e-9f10-123456789abc"));
    expect(fs.statSync(workspace).mode & 0o777).toBe(0o700);
    expect(fs.statSync(workspaces).mode & 0o777).toBe(0o711);
    expect(createThreadWorkspace(workspaces, "3f2c9a1e-7b4d-4c8e-9f10-123456789abc")).toBe(workspace);
  });

  it.each(["", "..", "../escape", "a/b", "/abs", ".hidden", "a..b", "x".repeat(129), "white space", "nul\0"])("rejects the unsafe thread id %j", (threadId) => {
    expect(() => threadWorkspacePath(temp.dir, threadId)).toThrowError(expect.objectContaining({ code: "VALIDATION_FAILED" }));
  });

  it.runIf(process.getuid?.() === 0)("gives the workspace to the sandbox user when the host runs as root", () => {
    const workspace = createThreadWorkspace(temp.dir, "owned", { uid: 65534, gid: 65534 });
    expect(fs.statSync(workspace).uid).toBe(65534);
  });
});
