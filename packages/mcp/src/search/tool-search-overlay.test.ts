import { isThinktankError } from "@thinktank/core";
import { describe, expect, it } from "vitest";
import type { CatalogServer } from "../catalog/catalog-types.js";
import { ToolSearchIndex } from "./tool-search-index.js";

const object = (properties: Record<string, unknown> = {}) => ({ type: "object", properties });
const github: CatalogServer = {
  server: "github",
  tools: [
    { name: "create_issue", description: "Create a new issue in a GitHub repository.", inputSchema: object({ title: { type: "string" } }) },
    { name: "search_code", description: "Search for code across GitHub repositories.", inputSchema: object({ q: { type: "string" } }) },
  ],
};
const slack: CatalogServer = {
  server: "slack",
  tools: [
    { name: "slack_post_message", description: "Post a new message to a Slack channel.", inputSchema: object({ channel_id: { type: "string" }, text: { type: "string" } }) },
    { name: "slack_list_channels", description: "List public channels in the workspace.", inputSchema: object() },
  ],
};
// A user's own server: named ~<name>, words no shared tool uses.
const notes: CatalogServer = {
  server: "~notes",
  tools: [
    { name: "append_note", description: "Append a paragraph to a note in the notebook.", inputSchema: object({ note: { type: "string" } }) },
    { name: "find_notes", description: "Find notes in the notebook by their words.", inputSchema: object({ words: { type: "string" } }) },
  ],
};

const names = (results: readonly { server: string; name: string }[]) => results.map((r) => `${r.server}/${r.name}`);

describe("ToolSearchIndex overlay (one caller's own servers)", () => {
  it("ranks the overlay's tools as if they were in the index, and leaves the index as it was", () => {
    const shared = new ToolSearchIndex();
    shared.syncServers([github, slack]);
    const together = new ToolSearchIndex();
    together.syncServers([github, slack, notes]);
    const overlay = shared.overlay([notes], { wrapperPath: (server, tool) => `/mnt/own/${server}/${tool}.ts` });
    for (const query of ["append a paragraph to my note", "find notes about the release", "post a message", "create an issue about the notebook"]) {
      const layered = shared.search(query, { overlay, limit: 5 });
      expect(names(layered)).toEqual(names(together.search(query, { limit: 5 })));
      // Field lengths are normalised by the index's own averages (the overlay never moves them), so
      // scores differ a little from an index holding the overlay's servers; the order does not.
      const scores = together.search(query, { limit: 5 }).map((hit) => hit.score);
      layered.forEach((hit, at) => expect(Math.abs(hit.score / (scores[at] as number) - 1)).toBeLessThan(0.05));
    }
    expect(names(shared.search("append a paragraph to my note", { overlay }))[0]).toBe("~notes/append_note");
    // The shared index knows nothing of it: another caller's search cannot find it.
    expect(shared.serverNames()).toEqual(["github", "slack"]);
    expect(names(shared.search("append a paragraph to my note notebook"))).not.toContain("~notes/append_note");
    const refused = thrownBy(() => shared.search("", { server: "~notes" }));
    expect(isThinktankError(refused) && refused.code).toBe("MCP_SERVER_NOT_FOUND");
  });

  it("filters by an overlay server, places its wrappers and reuses unchanged segments", () => {
    const shared = new ToolSearchIndex();
    shared.syncServers([github]);
    const first = shared.overlay([notes], { wrapperPath: (server, tool) => `/mnt/own/${server}/${tool}.ts` });
    expect(names(shared.search("", { server: "~notes", overlay: first }))).toEqual(["~notes/append_note", "~notes/find_notes"]);
    const full = shared.search("append note", { overlay: first, detail: "full", limit: 1 })[0];
    expect(full?.wrapperPath).toBe("/mnt/own/~notes/append_note.ts");
    expect(shared.search("create issue", { overlay: first, detail: "full", limit: 1 })[0]?.wrapperPath).toBe("/mnt/code-api/servers/github/create_issue.ts");
    const second = shared.overlay([notes], { previous: first });
    expect(second.serverNames()).toEqual(["~notes"]);
    expect(second.toolCount).toBe(2);
    expect(names(shared.search("", { server: "~notes", overlay: second }))).toEqual(["~notes/append_note", "~notes/find_notes"]);
  });
});

function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}
