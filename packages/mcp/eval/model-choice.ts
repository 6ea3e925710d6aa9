import type { GoldPair } from "../src/search/gold-set.js";
import type { ToolSearchResult } from "../src/search/search-types.js";

/** The part of a chat model the eval needs (a LangChain chat model fits: `invoke([["system", ...], ["human", ...]])`). */
export interface ChatLike {
  invoke(messages: [role: "system" | "human", content: string][]): Promise<{ content: unknown }>;
}

/** The tool a model picks among search results, or undefined when its answer names none of them. */
export async function chooseTool(model: ChatLike, query: string, candidates: readonly ToolSearchResult[]): Promise<ToolSearchResult | undefined> {
  const list = candidates.map((c, i) => `${i + 1}. ${c.server}/${c.name}${c.description ? ` — ${c.description}` : ""}`).join("\n");
  const answer = await model.invoke([
    ["system", "You pick the one tool that best fulfils a user's request. Answer with the number of the tool only."],
    ["human", `Request: ${query}\n\nTools:\n${list}\n\nWhich tool number?`],
  ]);
  const text = typeof answer.content === "string" ? answer.content : JSON.stringify(answer.content);
  const number = Number(/\d+/.exec(text)?.[0]);
  return Number.isInteger(number) && number >= 1 && number <= candidates.length ? candidates[number - 1] : undefined;
}

export interface ModelChoiceQuality {
  readonly pairs: number;
  /** Share of pairs where the model picked an accepted tool. */
  readonly accuracy: number;
  /** Share of pairs where an accepted tool was among the candidates shown (the ceiling for the model). */
  readonly reachable: number;
}

/** How often the model, shown the top `k` search results (with descriptions), picks an accepted tool. */
export async function evaluateModelChoice(
  pairs: readonly GoldPair[],
  search: (query: string) => readonly ToolSearchResult[],
  model: ChatLike,
): Promise<ModelChoiceQuality> {
  let correct = 0;
  let reachable = 0;
  for (const pair of pairs) {
    const accepted = new Set(pair.expected.map((e) => `${e.server}/${e.tool}`));
    const candidates = search(pair.query);
    if (candidates.some((c) => accepted.has(`${c.server}/${c.name}`))) reachable++;
    const choice = await chooseTool(model, pair.query, candidates);
    if (choice && accepted.has(`${choice.server}/${choice.name}`)) correct++;
  }
  const count = pairs.length || 1;
  return { pairs: pairs.length, accuracy: correct / count, reachable: reachable / count };
}
