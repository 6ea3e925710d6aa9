import { describe, expect, it } from "vitest";
import { cleanVirtualPath } from "./clean-virtual-path.js";
import { isInsideFolder } from "./is-inside-folder.js";

const refusal = (virtualPath: unknown): string | undefined => {
  try {
    cleanVirtualPath(virtualPath, "/mnt/user-data/workspace");
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return undefined;
};

describe("cleanVirtualPath", () => {
  it("drops '.', empty segments and a trailing slash", () => {
    expect(cleanVirtualPath("/mnt/skills/public/./pdf//SKILL.md", "/mnt/skills")).toBe("/mnt/skills/public/pdf/SKILL.md");
    expect(cleanVirtualPath("/mnt/user-data/", "/mnt/user-data/workspace")).toBe("/mnt/user-data");
    expect(cleanVirtualPath("/", "/mnt/user-data/workspace")).toBe("/");
  });

  it("refuses what could lead elsewhere, each with its code", () => {
    expect(refusal("")).toBe("INVALID_PATH");
    expect(refusal(42)).toBe("INVALID_PATH");
    expect(refusal("/a/b\u0000c")).toBe("INVALID_PATH");
    expect(refusal("/a\\b")).toBe("INVALID_PATH");
    expect(refusal("a/b")).toBe("INVALID_PATH");
    expect(refusal("/a/../b")).toBe("PATH_TRAVERSAL");
    expect(refusal("/a/%2e%2e/b")).toBe("PATH_TRAVERSAL");
    expect(refusal("/a/%252E%252e/b")).toBe("PATH_TRAVERSAL");
    expect(refusal("/a/%2Fetc")).toBe("PATH_TRAVERSAL");
    expect(refusal("/a/report%20final.md")).toBeUndefined();
  });

  it("names where a relative path was probably meant", () => {
    expect(() => cleanVirtualPath("notes.md", "/mnt/user-data/workspace")).toThrow("e.g. /mnt/user-data/workspace/notes.md");
  });
});

describe("isInsideFolder", () => {
  it("takes the folder itself and what lies below it, not a sibling that shares its prefix", () => {
    expect(isInsideFolder("/srv/data", "/srv/data")).toBe(true);
    expect(isInsideFolder("/srv/data", "/srv/data/a/b")).toBe(true);
    expect(isInsideFolder("/srv/data", "/srv/database")).toBe(false);
    expect(isInsideFolder("/srv/data", "/srv")).toBe(false);
    expect(isInsideFolder("/", "/etc/passwd")).toBe(true);
  });
});
