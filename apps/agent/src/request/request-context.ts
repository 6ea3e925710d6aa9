import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { Config } from "@thinktank/core";

/** What the model is given on one call: the system prompt and the tools it may call. */
export interface ToolSurface {
  readonly systemPrompt: string;
  readonly tools: readonly StructuredToolInterface[];
}

/**
 * Everything one run needs, made fresh per run by `prepareRequest`: the model and the router
 * surface, plus (when a provider supports it) the surface while a skill is active.
 */
export interface RequestContext extends ToolSurface {
  readonly model: BaseChatModel;
  /** Which models.providers entry answered (for logs and run metadata). */
  readonly modelName: string;
  /** The surface while `activeSkill` is active (view_skill); undefined keeps the router surface. */
  readonly surfaceFor?: (activeSkill: string) => Promise<ToolSurface> | ToolSurface;
}

/** Facts about the run a provider may use. */
export interface RequestInfo {
  readonly config: Config;
  readonly threadId: string;
  readonly runId: string;
  readonly now: Date;
  /** The thread's folders on the host, seen by the model as /mnt/user-data/{workspace,uploads,outputs}. */
  readonly userDataDir: string;
}

/** A titled part of the system prompt; lower `order` comes first. @default order 100 */
export interface PromptSection {
  readonly id: string;
  readonly text: string;
  readonly order?: number;
}

export interface RequestContribution {
  readonly sections?: readonly PromptSection[];
  readonly tools?: readonly StructuredToolInterface[];
  /** The surface while a skill is active; the first provider that returns one decides. */
  readonly surfaceFor?: RequestContext["surfaceFor"];
}

/**
 * The seam for the libraries (skills, plugins, codemode, tools): each contributes prompt
 * sections and tools per run. Called on every run, so a provider must be cheap when nothing
 * changed (the snapshot idea of DESIGN.md §1).
 */
export interface RequestProvider {
  readonly name: string;
  contribute(request: RequestInfo): RequestContribution | Promise<RequestContribution>;
}
