import { ThinktankError } from "@thinktank/core";

/** The requests an `input_required` result embeds, by key (2026-07-28: elicitation, sampling, roots). */
export type InputRequests = Readonly<Record<string, { readonly method?: string; readonly params?: Record<string, unknown> }>>;
/** The responses sent back on the retried call, by the same keys. */
export type InputResponses = Record<string, Record<string, unknown>>;

/** What the person asked said: their text, or that they declined. */
export type HumanAnswer = { readonly kind: "accept"; readonly text: string } | { readonly kind: "decline"; readonly text?: string };

/**
 * The question to put to a person for a tool's `input_required` round: each elicitation's message,
 * with the fields it asks for (and for URL elicitation, the address to open). Sampling requests
 * cannot be answered by a person and fail with MCP_INPUT_REQUIRED; roots are answered without one.
 */
export function questionForInputRequests(server: string, tool: string, requests: InputRequests): string {
  const parts: string[] = [];
  for (const request of Object.values(requests)) {
    if (request.method === "roots/list") continue;
    if (request.method !== "elicitation/create") {
      throw new ThinktankError("MCP_INPUT_REQUIRED", `MCP server '${server}' asked for '${String(request.method)}' while running '${tool}', which Thinktank cannot answer`, { details: { server, tool } });
    }
    const params = request.params ?? {};
    const message = typeof params.message === "string" ? params.message : "The tool asks for input.";
    if (params.mode === "url" && typeof params.url === "string") {
      parts.push(`${message}\nOpen ${params.url} and answer when done.`);
      continue;
    }
    const fields = Object.entries(schemaProperties(params.requestedSchema)).map(([name, schema]) => `${name} (${describeField(schema)})`);
    parts.push(fields.length > 0 ? `${message}\nAnswer with: ${fields.join(", ")}.` : message);
  }
  return `MCP server '${server}' asks, for tool '${tool}':\n${parts.join("\n\n")}`;
}

/**
 * The responses to send back for one answer: every elicitation accepted with the content read
 * from the text (one field: the text itself, as a boolean, number or string as the field asks;
 * several fields: a JSON object, else the text in each string field), or declined; roots/list
 * answered with no roots.
 */
export function inputResponsesFromAnswer(requests: InputRequests, answer: HumanAnswer): InputResponses {
  const responses: InputResponses = {};
  for (const [key, request] of Object.entries(requests)) {
    if (request.method === "roots/list") {
      responses[key] = { roots: [] };
      continue;
    }
    if (answer.kind === "decline") {
      responses[key] = { action: "decline" };
      continue;
    }
    if (request.params?.mode === "url") {
      responses[key] = { action: "accept" };
      continue;
    }
    responses[key] = { action: "accept", content: contentFrom(schemaProperties(request.params?.requestedSchema), answer.text) };
  }
  return responses;
}

function schemaProperties(schema: unknown): Record<string, Record<string, unknown>> {
  const properties = (schema as { properties?: unknown } | undefined)?.properties;
  return typeof properties === "object" && properties !== null ? (properties as Record<string, Record<string, unknown>>) : {};
}

function describeField(schema: Record<string, unknown>): string {
  const choices = Array.isArray(schema.enum) ? `one of ${schema.enum.map(String).join(" | ")}` : undefined;
  const what = choices ?? (typeof schema.type === "string" ? schema.type : "text");
  return typeof schema.description === "string" ? `${what}: ${schema.description}` : what;
}

function contentFrom(properties: Record<string, Record<string, unknown>>, text: string): Record<string, unknown> {
  const names = Object.keys(properties);
  if (names.length === 1) return { [names[0] as string]: valueFor(properties[names[0] as string] ?? {}, text) };
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // not JSON: the text goes in each string field
  }
  return Object.fromEntries(names.filter((name) => (properties[name]?.type ?? "string") === "string").map((name) => [name, text]));
}

function valueFor(schema: Record<string, unknown>, text: string): unknown {
  const trimmed = text.trim();
  if (schema.type === "boolean") return /^(y|yes|true|ok|okay|approve|approved|confirm|confirmed|sure)\b/i.test(trimmed);
  if (schema.type === "number" || schema.type === "integer") {
    const number = Number(trimmed);
    return Number.isFinite(number) ? number : trimmed;
  }
  return trimmed;
}
