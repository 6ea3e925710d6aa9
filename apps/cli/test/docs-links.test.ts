// Every relative link in the README, docs/*.md and the workspaces' READMEs points at a file that
// exists, and a link to a heading of a Markdown file (`file.md#heading`, `#heading`) at a heading
// it has: the reference moves between these pages, and a moved section must not leave a dead link.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { headingAnchors, markdownLinks } from "./support/markdown-links.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));

/** The Markdown files checked, relative to the repository's root. */
function checkedFiles(): string[] {
  const inFolder = (folder: string) => (fs.existsSync(path.join(root, folder)) ? fs.readdirSync(path.join(root, folder)).filter((name) => name.endsWith(".md")).map((name) => path.join(folder, name)) : []);
  const readmes = ["packages", "apps"].flatMap((group) => fs.readdirSync(path.join(root, group)).map((name) => path.join(group, name, "README.md")));
  return ["README.md", ...inFolder("docs"), ...readmes].filter((file) => fs.existsSync(path.join(root, file)));
}

const anchorsOf = new Map<string, Set<string>>();
function anchors(file: string): Set<string> {
  let found = anchorsOf.get(file);
  if (!found) anchorsOf.set(file, (found = headingAnchors(fs.readFileSync(file, "utf8"))));
  return found;
}

/** What is wrong with one link of `file`, or undefined when it resolves. */
function problem(file: string, target: string): string | undefined {
  const [pathPart = "", anchor] = target.split("#", 2);
  const resolved = pathPart === "" ? file : path.resolve(path.dirname(file), decodeURIComponent(pathPart));
  if (!resolved.startsWith(root)) return "points outside the repository";
  if (!fs.existsSync(resolved)) return "no such file";
  if (anchor !== undefined && anchor !== "" && resolved.endsWith(".md") && !anchors(resolved).has(anchor.toLowerCase())) return `no heading #${anchor}`;
  return undefined;
}

describe("relative links in the Markdown docs", () => {
  it("finds the README and the reference pages", () => {
    const files = checkedFiles();
    for (const page of ["README.md", "docs/architecture.md", "docs/configuration.md", "docs/gateway-api.md", "docs/agent-api.md", "docs/cli.md"]) expect(files).toContain(page);
  });

  it("point at files (and headings) that exist", () => {
    const broken: string[] = [];
    for (const file of checkedFiles()) {
      const absolute = path.join(root, file);
      for (const link of markdownLinks(fs.readFileSync(absolute, "utf8"))) {
        const why = problem(absolute, link.target);
        if (why) broken.push(`${file}:${link.line}: (${link.target}) ${why}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
