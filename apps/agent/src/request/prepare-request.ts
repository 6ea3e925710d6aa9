import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { Config } from "@thinktank/core";
import { createChatModel, resolveModel } from "@thinktank/models";
import { environmentSection } from "./environment-section.js";
import type { InheritedSurface, PromptSection, RequestContext, RequestContribution, RequestInfo, RequestProvider, RequestSurface } from "./request-context.js";

export interface PrepareRequestOptions {
  /** Builds the chat model. @default createChatModel from @thinktank/models */
  readonly createModel?: (config: Config) => BaseChatModel | Promise<BaseChatModel>;
  /** The opening of the system prompt. @default rolePrompt */
  readonly role?: string;
}

export const rolePrompt =
  "You are Thinktank, a capable assistant. You have tools; use them when they help, and answer plainly when they do not. " +
  "Load details on demand: read a skill's SKILL.md before using the skill, and only the files it points you to.";

/**
 * Builds the RequestContext of one run: the model (MODEL_NOT_CONFIGURED is thrown before any
 * other work), then the surface from the providers (see assembleRequest); each contribution's
 * bindContext is then given the finished context.
 */
export async function prepareRequest(request: RequestInfo, providers: readonly RequestProvider[], options: PrepareRequestOptions = {}): Promise<RequestContext> {
  // The run's assistant may name a configured model; otherwise the configured default.
  const named = request.assistant?.settings.model;
  const model = await (options.createModel ? options.createModel(request.config) : createChatModel(request.config, named));
  const modelName = options.createModel ? "custom" : resolveModel(request.config, named).name;
  const contributions = await Promise.all(providers.map((provider) => provider.contribute(request)));
  const context: RequestContext = { model, modelName, ...surfaceOf(request, contributions, options) };
  for (const contribution of contributions) contribution.bindContext?.(context);
  return context;
}

/**
 * Every provider's sections and tools, and the system prompt from them (role, sections by
 * `order`, the environment with the date last), without a model: deterministic, so identical
 * snapshots give a byte-identical prompt (provider prompt caching). Tools with a name already
 * taken are dropped (the first provider wins) so the model never sees duplicates.
 */
export async function assembleRequest(request: RequestInfo, providers: readonly RequestProvider[], options: Pick<PrepareRequestOptions, "role"> = {}): Promise<RequestSurface> {
  return surfaceOf(request, await Promise.all(providers.map((provider) => provider.contribute(request))), options);
}

function surfaceOf(request: RequestInfo, contributions: readonly RequestContribution[], options: Pick<PrepareRequestOptions, "role">): RequestSurface {
  const sections: PromptSection[] = [{ id: "role", text: options.role ?? rolePrompt, order: 0 }];
  const instructions = request.assistant?.settings.instructions;
  if (instructions !== undefined && instructions.trim() !== "") sections.push(instructionsSection(instructions));
  const tools: StructuredToolInterface[] = [];
  const inheritedTools: StructuredToolInterface[] = [];
  const names = new Set<string>();
  let specialist: RequestContribution["surfaceFor"];
  let resolveCommand: RequestSurface["resolveCommand"];
  let skillContextFor: RequestSurface["skillContextFor"];
  let hooks: RequestSurface["hooks"];
  let uploadsSince: RequestSurface["uploadsSince"];
  let memoryDigest: RequestSurface["memoryDigest"];
  for (const contribution of contributions) {
    sections.push(...(contribution.sections ?? []));
    for (const tool of contribution.tools ?? []) {
      if (names.has(tool.name)) continue;
      names.add(tool.name);
      tools.push(tool);
      if (contribution.inheritTools !== false) inheritedTools.push(tool);
    }
    specialist ??= contribution.surfaceFor;
    resolveCommand ??= contribution.resolveCommand;
    skillContextFor ??= contribution.skillContextFor;
    hooks ??= contribution.hooks;
    uploadsSince ??= contribution.uploadsSince;
    memoryDigest ??= contribution.memoryDigest;
  }
  const environment: PromptSection = { id: "environment", order: 1000, text: environmentSection(request.now) };
  sections.push(environment);
  const inherited: InheritedSurface = { tools: inheritedTools, sections: [...sections.filter((section) => section.inherit), environment] };
  const surfaceFor = specialist ? (activeSkill: string) => specialist(activeSkill, inherited) : undefined;
  return { systemPrompt: joinSections(sections), sections: sortedSections(sections), tools, ...(surfaceFor ? { surfaceFor } : {}), ...(resolveCommand ? { resolveCommand } : {}), ...(skillContextFor ? { skillContextFor } : {}), ...(hooks ? { hooks } : {}), ...(uploadsSince ? { uploadsSince } : {}), ...(memoryDigest ? { memoryDigest } : {}) };
}

/**
 * An assistant's instructions (its persona, standing instructions), right after the role; kept in
 * a skill's specialist context too. Fixed per assistant version, so the prompt stays byte-identical
 * across a thread's turns.
 */
function instructionsSection(instructions: string): PromptSection {
  return { id: "assistant_instructions", order: 5, inherit: true, text: `<assistant_instructions>\n${instructions.trim()}\n</assistant_instructions>` };
}

/** Sections sorted by order (stable for equal orders), trimmed, empty ones left out, blank lines between. */
export function joinSections(sections: readonly PromptSection[]): string {
  return sortedSections(sections)
    .map((section) => section.text.trim())
    .filter((text) => text.length > 0)
    .join("\n\n");
}

/** Sections by order (stable for equal orders). */
function sortedSections(sections: readonly PromptSection[]): PromptSection[] {
  return sections
    .map((section, index) => ({ section, index }))
    .sort((a, b) => (a.section.order ?? 100) - (b.section.order ?? 100) || a.index - b.index)
    .map(({ section }) => section);
}
