import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { Config } from "@thinktank/core";
import { createChatModel, resolveModel } from "@thinktank/models";
import type { PromptSection, RequestContext, RequestInfo, RequestProvider } from "./request-context.js";

export interface PrepareRequestOptions {
  /** Builds the chat model. @default createChatModel from @thinktank/models */
  readonly createModel?: (config: Config) => BaseChatModel;
  /** The opening of the system prompt. @default rolePrompt */
  readonly role?: string;
}

export const rolePrompt =
  "You are Thinktank, a capable assistant. You have tools; use them when they help, and answer plainly when they do not. " +
  "Load details on demand: read a skill's SKILL.md before using the skill, and only the files it points you to.";

/**
 * Builds the RequestContext of one run: the model (MODEL_NOT_CONFIGURED is thrown before any
 * other work), every provider's sections and tools, and the system prompt from them. Tools with a
 * name already taken are dropped (the first provider wins) so the model never sees duplicates.
 */
export async function prepareRequest(request: RequestInfo, providers: readonly RequestProvider[], options: PrepareRequestOptions = {}): Promise<RequestContext> {
  const model = options.createModel ? options.createModel(request.config) : createChatModel(request.config);
  const modelName = options.createModel ? "custom" : resolveModel(request.config).name;
  const contributions = await Promise.all(providers.map((provider) => provider.contribute(request)));
  const sections: PromptSection[] = [{ id: "role", text: options.role ?? rolePrompt, order: 0 }];
  const tools: StructuredToolInterface[] = [];
  const names = new Set<string>();
  let surfaceFor: RequestContext["surfaceFor"];
  for (const contribution of contributions) {
    sections.push(...(contribution.sections ?? []));
    for (const tool of contribution.tools ?? []) {
      if (names.has(tool.name)) continue;
      names.add(tool.name);
      tools.push(tool);
    }
    surfaceFor ??= contribution.surfaceFor;
  }
  sections.push({ id: "environment", order: 1000, text: environmentSection(request) });
  const ordered = sections.map((section, index) => ({ section, index })).sort((a, b) => (a.section.order ?? 100) - (b.section.order ?? 100) || a.index - b.index);
  const systemPrompt = ordered.map(({ section }) => section.text.trim()).filter((text) => text.length > 0).join("\n\n");
  return { model, modelName, systemPrompt, tools, ...(surfaceFor ? { surfaceFor } : {}) };
}

function environmentSection(request: RequestInfo): string {
  return [`Working directory: /mnt/user-data/workspace (uploads in /mnt/user-data/uploads, results go to /mnt/user-data/outputs).`, `Current date: ${request.now.toISOString().slice(0, 10)}.`].join("\n");
}
