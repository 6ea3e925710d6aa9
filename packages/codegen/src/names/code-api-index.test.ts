import { describe, expect, it } from "vitest";
import { assignUniqueNames } from "./assign-unique-names.js";
import { buildCodeApiIndex } from "./code-api-index.js";
import { identifierCase } from "./identifier-case.js";
import { identifierWords } from "./identifier-words.js";

const tools = (...names: string[]) => names.map((name) => ({ name }));

describe("identifier casing", () => {
  it("splits snake, kebab, camel, acronyms and digits", () => {
    expect(identifierWords("search_repositories")).toEqual(["search", "repositories"]);
    expect(identifierWords("get-file.contents")).toEqual(["get", "file", "contents"]);
    expect(identifierWords("getHTMLPage")).toEqual(["get", "HTML", "Page"]);
    expect(identifierWords("API_v2Get")).toEqual(["API", "v2", "Get"]);
    expect(identifierWords("日本語")).toEqual([]);
  });

  it("makes camelCase, snake_case, PascalCase, folders and Python packages", () => {
    expect(identifierCase.camel("search_repositories", "tool")).toBe("searchRepositories");
    expect(identifierCase.camel("getURL", "tool")).toBe("getUrl");
    expect(identifierCase.camel("2fa-verify", "tool")).toBe("_2faVerify");
    expect(identifierCase.camel("!!!", "tool")).toBe("tool");
    expect(identifierCase.snake("searchRepositories", "tool")).toBe("search_repositories");
    expect(identifierCase.snake("API-Post.page", "tool")).toBe("api_post_page");
    expect(identifierCase.pascal("user_profile", "X")).toBe("UserProfile");
    expect(identifierCase.folder("sales:slack", "server")).toBe("sales-slack");
    expect(identifierCase.folder("My Server.v2", "server")).toBe("my-server-v2");
    expect(identifierCase.folder("GitHub", "server")).toBe("github");
    expect(identifierCase.folder("::", "server")).toBe("server");
    expect(identifierCase.pythonPackage("1password", "server")).toBe("_1password");
    expect(identifierCase.pythonPackage("brave-search", "server")).toBe("brave_search");
  });
});

describe("assignUniqueNames", () => {
  const camel = { sanitize: (raw: string) => identifierCase.camel(raw, "tool"), suffix: (n: string, i: number) => `${n}${i}`, caseInsensitive: true };

  it("numbers collisions in a stable order, whatever the input order", () => {
    const forward = assignUniqueNames(["get-item", "get_item", "getItem"], camel);
    const backward = assignUniqueNames(["getItem", "get_item", "get-item"], camel);
    expect([...forward].sort()).toEqual([...backward].sort());
    // The raw name that already is its sanitised form keeps it; the others follow in code-unit order.
    expect(forward.get("getItem")).toBe("getItem");
    expect(forward.get("get-item")).toBe("getItem2");
    expect(forward.get("get_item")).toBe("getItem3");
  });

  it("skips numbers already taken by another raw name and compares ignoring case", () => {
    const names = assignUniqueNames(["get_item", "getItem2", "geturl", "getURL"], camel);
    expect(names.get("getItem2")).toBe("getItem2");
    expect(names.get("get_item")).toBe("getItem");
    expect(new Set([names.get("geturl")?.toLowerCase(), names.get("getURL")?.toLowerCase()]).size).toBe(2);
  });

  it("moves reserved words aside with a trailing underscore", () => {
    const names = assignUniqueNames(["delete", "import", "class_"], { ...camel, reserved: new Set(["delete", "import", "class"]) });
    expect(names.get("delete")).toBe("delete_");
    expect(names.get("import")).toBe("import_");
  });
});

describe("buildCodeApiIndex", () => {
  it("maps { server, tool } to folders, files, functions and wrapper paths in both languages", () => {
    const index = buildCodeApiIndex([{ server: "sales:slack", tools: tools("post_message", "list", "delete", "2fa-check", "index") }]);
    const post = index.find("sales:slack", "post_message");
    expect(post).toEqual({
      server: "sales:slack",
      tool: "post_message",
      dir: "sales-slack",
      file: "postMessage.ts",
      functionName: "postMessage",
      wrapperPath: "/mnt/code-api/servers/sales-slack/postMessage.ts",
      pythonPackage: "sales_slack",
      pythonModule: "servers.sales_slack.post_message",
      pythonFunctionName: "post_message",
      pythonWrapperPath: "/mnt/code-api/python/servers/sales_slack/post_message.py",
    });
    expect(index.find("sales:slack", "list")?.functionName).toBe("list");
    expect(index.find("sales:slack", "list")?.pythonFunctionName).toBe("list_");
    expect(index.find("sales:slack", "delete")?.functionName).toBe("delete_");
    expect(index.find("sales:slack", "delete")?.pythonFunctionName).toBe("delete");
    expect(index.find("sales:slack", "2fa-check")?.functionName).toBe("_2faCheck");
    expect(index.find("sales:slack", "2fa-check")?.pythonFunctionName).toBe("_2fa_check");
    // `index.ts` is the server's barrel file, so a tool called index cannot take that file name.
    expect(index.find("sales:slack", "index")?.file).toBe("index_.ts");
    expect(index.find("sales:slack", "nope")).toBeUndefined();
    expect(index.find("other", "post_message")).toBeUndefined();
  });

  it("gives colliding servers distinct folders and packages, independent of order", () => {
    const servers = [
      { server: "My Server", tools: [] },
      { server: "my-server", tools: [] },
      { server: "MY.SERVER", tools: [] },
      { server: "import", tools: [] },
    ];
    const a = buildCodeApiIndex(servers);
    const b = buildCodeApiIndex([...servers].reverse());
    const dirs = (index: typeof a) => Object.fromEntries(index.servers.map((s) => [s.server, [s.dir, s.pythonPackage]]));
    expect(dirs(a)).toEqual(dirs(b));
    // "my-server" is its own folder name and keeps it; no raw name is "my_server", so packages follow code-unit order.
    expect(dirs(a)["my-server"]).toEqual(["my-server", "my_server_3"]);
    expect(dirs(a)["MY.SERVER"]).toEqual(["my-server-2", "my_server"]);
    expect(new Set(a.servers.map((s) => s.dir)).size).toBe(4);
    expect(new Set(a.servers.map((s) => s.pythonPackage)).size).toBe(4);
    expect(dirs(a).import).toEqual(["import", "import_"]);
  });

  it("keeps one entry for a tool listed twice and honours a custom mount path", () => {
    const index = buildCodeApiIndex([{ server: "s", tools: tools("a", "a", "b") }], { mountPath: "/code/" });
    expect(index.servers[0]?.tools.map((t) => t.tool)).toEqual(["a", "b"]);
    expect(index.find("s", "b")?.wrapperPath).toBe("/code/servers/s/b.ts");
  });

  it("leaves the names of a code API alongside to it (a user's own servers beside the shared ones)", () => {
    const shared = buildCodeApiIndex([{ server: "notes", tools: tools("a") }, { server: "sales:slack", tools: tools("b") }]);
    const own = buildCodeApiIndex([{ server: "~notes", tools: tools("a") }, { server: "~crm", tools: tools("c") }], { mountPath: "/mnt/my-code-api", alongside: shared });
    expect(own.servers.map((s) => [s.server, s.dir, s.pythonPackage])).toEqual([
      ["~notes", "notes-2", "notes_2"],
      ["~crm", "crm", "crm"],
    ]);
    expect(own.find("~notes", "a")?.wrapperPath).toBe("/mnt/my-code-api/servers/notes-2/a.ts");
    expect(own.find("notes", "a")).toBeUndefined();
  });
});
