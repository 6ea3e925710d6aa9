import { describe, expect, it } from "vitest";
import { mergeArtifacts, type ThreadArtifact } from "./thread-artifact.js";
import { threadFileUrl } from "./thread-file-url.js";

const artifact = (path: string, size = 1): ThreadArtifact => ({ path, name: path.split("/").pop() as string, size, mime_type: "text/plain", url: `/threads/t/files/${path.slice(15)}` });

describe("thread artifacts", () => {
  it("merge by path, newest last, dropping malformed entries and unknown fields", () => {
    const current = [artifact("/mnt/user-data/outputs/a.txt"), artifact("/mnt/user-data/outputs/b.txt")];
    const merged = mergeArtifacts(current, [artifact("/mnt/user-data/outputs/a.txt", 9), { path: "/x", size: "big" }, { ...artifact("/mnt/user-data/outputs/c.txt"), extra: "<script>" }]);
    expect(merged.map((entry) => [entry.path, entry.size])).toEqual([
      ["/mnt/user-data/outputs/b.txt", 1],
      ["/mnt/user-data/outputs/a.txt", 9],
      ["/mnt/user-data/outputs/c.txt", 1],
    ]);
    expect(merged[2]).not.toHaveProperty("extra");
    expect(mergeArtifacts(current, "not a list")).toEqual(current);
  });

  it("name the download route of a file in the thread's folders, percent-encoding each segment", () => {
    expect(threadFileUrl("t-1", "/mnt/user-data/outputs/a b/#1?.md")).toBe("/threads/t-1/files/outputs/a%20b/%231%3F.md");
    expect(threadFileUrl("t-1", "/mnt/user-data/workspace/x")).toBe("/threads/t-1/files/workspace/x");
    expect(threadFileUrl("t-1", "/mnt/user-data/outputs")).toBeUndefined();
    expect(threadFileUrl("t-1", "/mnt/user-data/other/x")).toBeUndefined();
    expect(threadFileUrl("t-1", "/mnt/skills/public/x")).toBeUndefined();
  });
});
