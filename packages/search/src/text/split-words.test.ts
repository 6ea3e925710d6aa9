import { describe, expect, it } from "vitest";
import { splitChunks, splitWords } from "./split-words.js";

describe("splitWords", () => {
  it("splits camelCase identifiers and acronyms", () => {
    expect(splitWords("getUserProfile")).toEqual(["get", "user", "profile"]);
    expect(splitWords("readOnlyHint")).toEqual(["read", "only", "hint"]);
    expect(splitWords("getHTTPResponse")).toEqual(["get", "http", "response"]);
  });

  it("keeps CamelCase product names whole as well, as users type them", () => {
    expect(splitWords("GitHub")).toEqual(["git", "hub", "github"]);
    expect(splitWords("OneDrive folder")).toEqual(["one", "drive", "onedrive", "folder"]);
    expect(splitChunks("LaunchDarkly")).toEqual([{ parts: ["launch", "darkly"], whole: "launchdarkly" }]);
    expect(splitChunks("CreateVeryLongPascalCaseName")[0]?.whole).toBeUndefined();
  });

  it("splits snake_case, kebab-case, dotted and slashed names", () => {
    expect(splitWords("create_pull_request")).toEqual(["create", "pull", "request"]);
    expect(splitWords("list-onenote-notebooks")).toEqual(["list", "onenote", "notebooks"]);
    expect(splitWords("github.search.issues")).toEqual(["github", "search", "issues"]);
    expect(splitWords("servers/github/create_issue.ts")).toEqual(["servers", "github", "create", "issue", "ts"]);
  });

  it("splits at letter/digit boundaries and keeps short mixed words whole too", () => {
    expect(splitWords("r2_list_buckets")).toEqual(["r", "2", "r2", "list", "buckets"]);
    expect(splitWords("bitable_v1_appTable_create")).toEqual(["bitable", "v", "1", "v1", "app", "table", "create"]);
    expect(splitWords("ms-365")).toEqual(["ms", "365"]);
  });

  it("keeps non-ASCII letters and drops punctuation", () => {
    expect(splitWords("Créer un ÉVÉNEMENT, vite!")).toEqual(["créer", "un", "événement", "vite"]);
    expect(splitWords("  ")).toEqual([]);
  });
});
