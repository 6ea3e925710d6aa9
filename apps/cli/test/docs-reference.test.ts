// The reference pages in docs/ stay current with the code they describe: docs/configuration.md has
// a row for every key of the config schema showing its default, and docs/cli.md shows
// `thinktank --help` exactly as it prints it. (The gateway's and the agent's route tables are held
// to docs/gateway-api.md and docs/agent-api.md by their apps' docs-routes tests.)
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { configSchema } from "@thinktank/core";
import { describe, expect, it } from "vitest";
import { runCaptured } from "./support/run-captured.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const read = (page: string) => fs.readFileSync(`${root}${page}`, "utf8");

interface SchemaNode {
  readonly properties?: Record<string, SchemaNode>;
  readonly additionalProperties?: boolean | SchemaNode;
  readonly default?: unknown;
}

/** Every key a config.yaml may set, with its default: a map of entries (models.providers) is one key, `<name>`. */
function schemaKeys(node: SchemaNode, prefix = ""): { key: string; fallback?: unknown }[] {
  if (node.properties) return Object.entries(node.properties).flatMap(([name, child]) => schemaKeys(child, prefix ? `${prefix}.${name}` : name));
  if (typeof node.additionalProperties === "object") return [{ key: `${prefix}.<name>` }];
  return [{ key: prefix, ...("default" in node ? { fallback: node.default } : {}) }];
}

/** The rows of a Markdown table by key: `a.b.c`, and `a.b.c`, `.d` as the two keys a.b.c and a.b.d; the default is the second cell. */
function configRows(page: string): Map<string, string> {
  const rows = new Map<string, string>();
  for (const line of page.split("\n")) {
    const cells = line.startsWith("| `") ? line.split(" | ") : [];
    const keys = [...(cells[0] ?? "").matchAll(/`([^`]+)`/g)].map((match) => match[1] as string);
    const first = keys[0];
    if (!first) continue;
    for (const key of keys) rows.set(key.startsWith(".") ? `${first.slice(0, first.lastIndexOf("."))}${key}` : key, cells[1] ?? "");
  }
  return rows;
}

/** A default as the page writes it: `5`, `true`, `auto`, `[]`, `[openid, profile, email]`, `{}`. */
function shown(value: unknown): string {
  if (Array.isArray(value)) return `\`[${value.join(", ")}]\``;
  if (value !== null && typeof value === "object") return Object.keys(value).length === 0 ? "`{}`" : `\`${JSON.stringify(value)}\``;
  return `\`${String(value)}\``;
}

describe("docs/configuration.md", () => {
  const rows = configRows(read("docs/configuration.md"));
  const keys = schemaKeys(configSchema as SchemaNode);

  it("reads the schema's keys and the page's rows", () => {
    expect(keys.length).toBeGreaterThan(100);
    expect(rows.get("subagents.models.haiku")).toBeDefined();
  });

  it("has a row for every config.yaml key", () => {
    expect(keys.map(({ key }) => key).filter((key) => !rows.has(key))).toEqual([]);
  });

  it("shows every key's default as the schema has it", () => {
    const wrong = keys.filter(({ key, fallback }) => fallback !== undefined && rows.has(key) && !(rows.get(key) as string).includes(shown(fallback)));
    expect(wrong.map(({ key, fallback }) => `${key}: ${shown(fallback)}, page: ${rows.get(key)}`)).toEqual([]);
  });

  it("lists no key the schema does not have", () => {
    const known = new Set(keys.map(({ key }) => key));
    expect([...rows.keys()].filter((key) => !known.has(key))).toEqual([]);
  });
});

describe("docs/cli.md", () => {
  it("shows thinktank --help as it prints it", async () => {
    const help = await runCaptured(["--help"], { cwd: root });
    expect(help.code).toBe(0);
    expect(read("docs/cli.md")).toContain(help.stdout.trimEnd());
  });
});
