import { isThinktankError } from "@thinktank/core";
import { describe, expect, it } from "vitest";
import type { CatalogServer } from "../catalog/catalog-types.js";
import { ToolSearchIndex } from "./tool-search-index.js";

const object = (properties: Record<string, unknown> = {}) => ({ type: "object", properties });

const github: CatalogServer = {
  server: "github",
  package: "@modelcontextprotocol/server-github",
  tools: [
    { name: "create_issue", description: "Create a new issue in a GitHub repository.", inputSchema: object({ owner: { type: "string" }, repo: { type: "string" }, title: { type: "string" } }) },
    { name: "list_issues", description: "List issues in a GitHub repository with filtering options.", inputSchema: object({ state: { type: "string", enum: ["open", "closed"] } }) },
    { name: "create_pull_request", description: "Create a new pull request in a GitHub repository.", inputSchema: object({ head: { type: "string" }, base: { type: "string" } }) },
    { name: "search_code", description: "Search for code across GitHub repositories.", inputSchema: object({ q: { type: "string", description: "Search query" } }) },
  ],
};
const slack: CatalogServer = {
  server: "slack",
  tools: [
    { name: "slack_post_message", description: "Post a new message to a Slack channel.", inputSchema: object({ channel_id: { type: "string" }, text: { type: "string" } }) },
    { name: "slack_list_channels", description: "List public channels in the workspace.", inputSchema: object() },
  ],
};
const linear: CatalogServer = {
  server: "linear",
  tools: [
    { name: "linear_createIssue", title: "Create issue", description: "Create a new issue in Linear.", inputSchema: object({ teamId: { type: "string" } }), outputSchema: object({ id: { type: "string" } }) },
    { name: "linear_issue_list", description: "Deprecated: use linear_issue_list_v2. Lists the issues of a team.", inputSchema: object() },
    { name: "linear_issue_list_v2", description: "Lists the issues of a team.", inputSchema: object() },
    { name: "linear_searchIssues", description: "Search issues in Linear.", inputSchema: object({ query: { type: "string" } }) },
  ],
};

const names = (results: readonly { server: string; name: string }[]) => results.map((r) => `${r.server}/${r.name}`);

function indexOf(...servers: CatalogServer[]): ToolSearchIndex {
  const index = new ToolSearchIndex();
  index.syncServers(servers);
  return index;
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("ToolSearchIndex ranking", () => {
  const index = indexOf(github, slack, linear);

  it("ranks the tool whose name and description fit first", () => {
    expect(names(index.search("post a message to the #general channel"))[0]).toBe("slack/slack_post_message");
    expect(names(index.search("open a pull request from my branch"))[0]).toBe("github/create_pull_request");
  });

  it("finds tools through synonyms and identifier splitting", () => {
    expect(names(index.search("file a new ticket"))[0]).toMatch(/create_?[iI]ssue$/);
    expect(names(index.search("enumerate the slack channels"))[0]).toBe("slack/slack_list_channels");
  });

  it("prefers the server the query names", () => {
    expect(names(index.search("create an issue in linear"))[0]).toBe("linear/linear_createIssue");
    expect(names(index.search("create an issue on github"))[0]).toBe("github/create_issue");
  });

  it("tells apart a server's tools by the verb asked for", () => {
    expect(names(index.search("list the github issues"))[0]).toBe("github/list_issues");
    expect(names(index.search("search linear issues"))[0]).toBe("linear/linear_searchIssues");
  });

  it("ranks a deprecated tool below its replacement", () => {
    const results = names(index.search("list the issues of a team", { limit: 5 }));
    expect(results[0]).toBe("linear/linear_issue_list_v2");
    expect(results).toContain("linear/linear_issue_list");
  });

  it("breaks score ties by server, then name", () => {
    const tool = (name: string) => ({ name, description: "Ping a host.", inputSchema: object() });
    const twins = indexOf({ server: "b-server", tools: [tool("ping_host"), tool("host_ping")] }, { server: "a-server", tools: [tool("ping_host"), tool("host_ping")] });
    const results = twins.search("ping the host");
    expect(new Set(results.map((r) => r.score)).size).toBe(1);
    expect(names(results)).toEqual(["a-server/host_ping", "a-server/ping_host", "b-server/host_ping", "b-server/ping_host"]);
  });

  it("answers a question with a tool that reads, not one that creates", () => {
    expect(names(index.search("which issues does the github repo have?"))[0]).toBe("github/list_issues");
    expect(names(index.search("create an issue in the github repo"))[0]).toBe("github/create_issue");
  });

  it("counts a server as named only by its whole CamelCase name", () => {
    const circle: CatalogServer = { server: "circleci", serverInfo: { name: "CircleCI" }, tools: [{ name: "run_pipeline", description: "Run a pipeline.", inputSchema: object() }] };
    const shapes: CatalogServer = { server: "shapes", tools: [{ name: "draw_shape", description: "Draw circles, squares and other shapes.", inputSchema: object() }] };
    const both = indexOf(circle, shapes);
    const mentionOf = (query: string, server: string) => both.explain(query).find((entry) => entry.server === server)?.features.mention ?? 0;
    expect(mentionOf("run the pipeline in CircleCI", "circleci")).toBeGreaterThan(0.5);
    expect(mentionOf("draw circles and run a pipeline", "circleci")).toBe(0);
  });

  it("answers nothing for a query of filler words, and nothing unmatched", () => {
    expect(index.search("can you please do it")).toEqual([]);
    expect(index.search("zzzxq")).toEqual([]);
  });
});

describe("ToolSearchIndex.explain", () => {
  const index = indexOf(github, slack, linear);

  it("shows each candidate's keyword score, second-stage features and final score, best first, as search ranks them", () => {
    const explained = index.explain("which issues does the github repo have?");
    expect(explained.slice(0, 3).map((entry) => `${entry.server}/${entry.name}`)).toEqual(names(index.search("which issues does the github repo have?", { limit: 3 })));
    const create = explained.find((entry) => entry.name === "create_issue");
    expect(create?.features.actionConflict).toBe(1);
    expect(create?.score).toBeLessThan(create?.keywordScore ?? 0);
    for (let i = 1; i < explained.length; i++) expect(explained[i - 1]!.score).toBeGreaterThanOrEqual(explained[i]!.score);
  });

  it("explains nothing for an empty or unmatched query, and honours the server filter", () => {
    expect(index.explain(" ")).toEqual([]);
    expect(index.explain("zzzxq")).toEqual([]);
    expect(index.explain("issue", { server: "linear" }).every((entry) => entry.server === "linear")).toBe(true);
  });
});

describe("ToolSearchIndex options", () => {
  const index = new ToolSearchIndex({ defaultLimit: 2, maxLimit: 3, wrapperPath: (server, tool) => `/api/${server}/${tool}.ts` });
  index.syncServers([github, slack, linear]);

  it("applies the default limit and caps larger limits", () => {
    expect(index.search("issue")).toHaveLength(2);
    expect(index.search("issue", { limit: 100 })).toHaveLength(3);
    expect(index.effectiveLimit(undefined)).toBe(2);
  });

  it("rejects a limit that is not a positive integer and an unknown detail", () => {
    for (const limit of [0, -1, 1.5, Number.NaN]) {
      expect(thrown(() => index.search("issue", { limit }))).toMatchObject({ code: "VALIDATION_FAILED" });
    }
    expect(thrown(() => index.search("issue", { detail: "everything" as never }))).toMatchObject({ code: "VALIDATION_FAILED", message: expect.stringContaining("name, desc, full") });
  });

  it("filters by server and names the known servers for an unknown one", () => {
    expect(index.search("issue", { server: "linear", limit: 3 }).every((r) => r.server === "linear")).toBe(true);
    const error = thrown(() => index.search("issue", { server: "gitlab" }));
    expect(isThinktankError(error)).toBe(true);
    expect(error).toMatchObject({ code: "MCP_SERVER_NOT_FOUND", message: "unknown server 'gitlab'; known servers: github, linear, slack" });
    expect((error as { details: unknown }).details).toEqual({ server: "gitlab", known: ["github", "linear", "slack"] });
  });

  it("lists a server's tools by name for an empty query with a server, and refuses an empty query without one", () => {
    expect(names(index.search("", { server: "slack" }))).toEqual(["slack/slack_list_channels", "slack/slack_post_message"]);
    expect(thrown(() => index.search("  "))).toMatchObject({ code: "VALIDATION_FAILED" });
  });

  it("returns more of each tool as the detail grows", () => {
    const [name] = index.search("create linear issue", { limit: 1 });
    expect(name).toEqual({ server: "linear", name: "linear_createIssue", score: expect.any(Number) });
    const [desc] = index.search("create linear issue", { limit: 1, detail: "desc" });
    expect(desc).toMatchObject({ title: "Create issue", description: "Create a new issue in Linear." });
    expect(desc).not.toHaveProperty("inputSchema");
    const [full] = index.search("create linear issue", { limit: 1, detail: "full" });
    expect(full).toMatchObject({
      inputSchema: linear.tools[0]?.inputSchema,
      outputSchema: linear.tools[0]?.outputSchema,
      wrapperPath: "/api/linear/linear_createIssue.ts",
    });
  });
});

describe("ToolSearchIndex updates", () => {
  it("re-indexes only servers that changed and ranks as a fresh index would", () => {
    const index = new ToolSearchIndex();
    expect(index.syncServers([github, slack])).toEqual({ added: ["github", "slack"], updated: [], removed: [], unchanged: [] });
    expect(index.setServer(github)).toBe(false);
    const renamed = { ...slack, tools: [...slack.tools, { name: "slack_add_reaction", description: "Add an emoji reaction.", inputSchema: object() }] };
    expect(index.syncServers([github, renamed, linear])).toEqual({ added: ["linear"], updated: ["slack"], removed: [], unchanged: ["github"] });
    expect(index.syncServers([renamed, linear])).toMatchObject({ removed: ["github"] });
    expect(index.toolCount).toBe(7);
    expect(index.serverNames()).toEqual(["linear", "slack"]);

    const fresh = indexOf(renamed, linear);
    for (const query of ["create issue", "react with an emoji", "list channels", "search"]) {
      expect(index.search(query, { limit: 5 })).toEqual(fresh.search(query, { limit: 5 }));
    }
    expect(index.removeServer("slack")).toBe(true);
    expect(index.removeServer("slack")).toBe(false);
    expect(index.search("emoji reaction")).toEqual([]);
  });

  it("describes a tool as text for embedding", () => {
    const index = indexOf(linear);
    expect(index.toolText("linear", "linear_createIssue")).toBe("linear linear_createIssue\nCreate issue\nCreate a new issue in Linear.");
    expect(index.toolText("linear", "missing")).toBeUndefined();
  });

  it("lists and describes single tools", () => {
    const index = indexOf(slack, linear);
    expect(index.listTools("slack")).toEqual([
      { server: "slack", name: "slack_list_channels" },
      { server: "slack", name: "slack_post_message" },
    ]);
    expect(index.listTools()).toHaveLength(6);
    expect(() => index.listTools("nope")).toThrowError(expect.objectContaining({ code: "MCP_SERVER_NOT_FOUND" }));
    expect(index.describeTool("slack", "slack_post_message", "desc")).toEqual({ server: "slack", name: "slack_post_message", score: 0, description: "Post a new message to a Slack channel." });
    expect(index.describeTool("slack", "missing")).toBeUndefined();
  });
});
