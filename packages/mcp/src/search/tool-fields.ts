import { splitChunks, splitDescription, type TextAnalyzer } from "@thinktank/search";
import type { CatalogServer, CatalogTool } from "../catalog/catalog-types.js";
import type { FieldName } from "./search-types.js";

/** Words in package and server names that say nothing about what the server does. */
const genericServerWords = new Set(["mcp", "server", "servers", "modelcontextprotocol", "official", "npm", "io", "com", "dev", "js", "ai"]);

/**
 * The names a server goes by, as search terms: its catalog name, its npm package and the name it
 * reported in `initialize`, without generic words ("mcp", "server"). Each term counts once.
 */
export function serverNameTerms(server: CatalogServer, analyzer: TextAnalyzer): string[] {
  const terms = new Set<string>();
  for (const text of serverNameTexts(server)) {
    for (const term of analyzer.terms(text)) if (!genericServerWords.has(term)) terms.add(term);
  }
  return [...terms];
}

/**
 * The words a query must say to name the server outright: its names' words, with a CamelCase
 * name taken whole ("CircleCI": circleci, not "circle", so "circles" does not name it).
 */
export function serverMentionTerms(server: CatalogServer, analyzer: TextAnalyzer): string[] {
  const terms = new Set<string>();
  for (const text of serverNameTexts(server)) {
    for (const chunk of splitChunks(text)) {
      for (const word of chunk.whole !== undefined ? [chunk.whole] : chunk.parts) {
        const term = analyzer.term(word);
        if (term !== undefined && !genericServerWords.has(term)) terms.add(term);
      }
    }
  }
  return [...terms];
}

function serverNameTexts(server: CatalogServer): string[] {
  const texts = [server.server];
  if (typeof server.package === "string") texts.push(server.package);
  const info = server.serverInfo;
  if (info && typeof info === "object") {
    const { name, title } = info as Record<string, unknown>;
    if (typeof name === "string") texts.push(name);
    if (typeof title === "string") texts.push(title);
  }
  return texts;
}

/** The searchable fields of one tool, as analyzed terms. */
export function toolFields(tool: CatalogTool, serverTerms: readonly string[], analyzer: TextAnalyzer): Record<FieldName, string[]> {
  const { lead, body } = splitDescription(tool.description ?? "");
  const annotations = tool.annotations as Record<string, unknown> | undefined;
  const title = typeof tool.title === "string" ? tool.title : typeof annotations?.title === "string" ? annotations.title : "";
  const params: string[] = [];
  const paramDocs: string[] = [];
  collectParameters(tool.inputSchema, params, paramDocs, 0);
  return {
    name: analyzer.terms(tool.name),
    server: [...serverTerms],
    title: analyzer.terms(title),
    lead: analyzer.terms(lead),
    body: analyzer.terms(body),
    params: analyzer.terms(params.join(" ")),
    paramDocs: analyzer.terms(paramDocs.join(" ")),
  };
}

/** Parameter names (and one level of nested object or array-item names) and their descriptions and enum values. */
function collectParameters(schema: unknown, names: string[], docs: string[], depth: number): void {
  if (!schema || typeof schema !== "object" || depth > 1) return;
  const properties = (schema as Record<string, unknown>).properties;
  if (!properties || typeof properties !== "object") return;
  for (const [name, value] of Object.entries(properties as Record<string, unknown>)) {
    names.push(name);
    if (!value || typeof value !== "object") continue;
    const property = value as Record<string, unknown>;
    if (typeof property.description === "string") docs.push(property.description.slice(0, 500));
    if (typeof property.title === "string") docs.push(property.title);
    if (Array.isArray(property.enum)) docs.push(property.enum.filter((v) => typeof v === "string").join(" "));
    collectParameters(property, names, docs, depth + 1);
    if (property.items && typeof property.items === "object") collectParameters(property.items, names, docs, depth + 1);
  }
}
