import { describe, expect, it } from "vitest";
import { headingAnchors, markdownLinks } from "./markdown-links.js";

describe("markdownLinks", () => {
  it("finds relative inline links, images and definitions with their lines", () => {
    const text = ["See [the config](docs/configuration.md#models) and ![shot](<docs/screenshots/chat.png>).", "", "[ref]: ../apps/cli \"title\""].join("\n");
    expect(markdownLinks(text)).toEqual([
      { target: "docs/configuration.md#models", line: 1 },
      { target: "docs/screenshots/chat.png", line: 1 },
      { target: "../apps/cli", line: 3 },
    ]);
  });

  it("leaves out other sites, fenced code and inline code", () => {
    const text = ["[site](https://example.com) [mail](mailto:a@b.c) `[code](nothere.md)`", "```sh", "[inside](missing.md)", "```", "[after](real.md \"a title\")"].join("\n");
    expect(markdownLinks(text)).toEqual([{ target: "real.md", line: 5 }]);
  });
});

describe("headingAnchors", () => {
  it("makes GitHub's anchors: punctuation and code marks dropped, repeats numbered", () => {
    const text = ["# Thinktank", "## Several replicas (profile `scale`)", "## Callers, access and errors", "## Tests", "```", "# not a heading", "```", "## Tests"].join("\n");
    expect([...headingAnchors(text)]).toEqual(["thinktank", "several-replicas-profile-scale", "callers-access-and-errors", "tests", "tests-1"]);
  });
});
