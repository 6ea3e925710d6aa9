import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { Config } from "@thinktank/core";
import type { UploadNoteSource } from "@thinktank/files";
import type { ThreadFolders } from "@thinktank/sandbox";
import type { HookSession, SlashCommandResolution } from "@thinktank/plugins";
import type { RelevantSkills } from "@thinktank/skills";
import type { RunAssistant } from "../assistants/run-assistant.js";

/** What the model is given on one call: the system prompt and the tools it may call. */
export interface ToolSurface {
  readonly systemPrompt: string;
  readonly tools: readonly StructuredToolInterface[];
  /** The skill identity whose specialist context this is; absent for the router context. */
  readonly skill?: string;
}

/** The parts of one run that do not need the model: what `thinktank inspect prompt` prints. */
export interface RequestSurface extends ToolSurface {
  /** The sections the system prompt was joined from (role, the providers', environment), in prompt order. */
  readonly sections?: readonly PromptSection[];
  /**
   * The surface while `activeSkill` is active (view_skill). Absent, or answering undefined (the
   * skill is gone or disabled), keeps the router surface.
   */
  readonly surfaceFor?: (activeSkill: string) => Promise<ToolSurface | undefined> | ToolSurface | undefined;
  /** Expands a user message that starts with a slash command (before the model sees it). */
  readonly resolveCommand?: (message: string) => SlashCommandResolution | Promise<SlashCommandResolution>;
  /**
   * Compact skill listing: the skills and commands to offer with a new user message (stored on it
   * once as additional_kwargs.skill_context, shown after its text). Absent, or answering undefined
   * (full listing), offers nothing.
   */
  readonly skillContextFor?: (message: string) => RelevantSkills | undefined | Promise<RelevantSkills | undefined>;
  /** The run's plugin hooks (src/hooks); absent when no enabled plugin has a command hook this agent runs. */
  readonly hooks?: HookSession;
  /**
   * The thread's uploads after `seq`, oldest first (ThreadFiles.uploadsSince): a new user message
   * stores the note of them (additional_kwargs.uploaded_files) and the state's uploadsSeen moves on.
   * Absent: no upload note.
   */
  readonly uploadsSince?: (seq: number) => Promise<readonly ThreadUpload[]>;
  /**
   * The `<memory>` digest of the run's owner's memory (packages/memory): the graph stores it once on
   * a new thread's first user message (additional_kwargs.memory_digest), never in the system prompt.
   * Absent (memory off for the run), or answering undefined (an empty memory): no digest.
   */
  readonly memoryDigest?: () => Promise<string | undefined>;
}

/** What the upload note needs of an upload, and its place in the thread's order (the manifest's UploadRecord fits). */
export interface ThreadUpload extends UploadNoteSource {
  readonly seq: number;
}

/**
 * Everything one run needs, made fresh per run by `prepareRequest`: the model and the router
 * surface, plus (when a provider supports it) the surface while a skill is active and the
 * slash-command expansion.
 */
export interface RequestContext extends RequestSurface {
  readonly model: BaseChatModel;
  /** Which models.providers entry answered (for logs and run metadata). */
  readonly modelName: string;
}

export type { ThreadFolders } from "@thinktank/sandbox";

/** Facts about the run a provider may use. */
export interface RequestInfo {
  readonly config: Config;
  readonly threadId: string;
  readonly runId: string;
  /**
   * Whom the run executes for: the id of the caller who created it (`RunRecord.owner_id`; `admin`
   * for the operator). Per-user state (MCP sign-ins, the enablement overlay, a user's own skills
   * and servers) is read for this id.
   */
  readonly ownerId: string;
  readonly now: Date;
  /** The thread's folders on the host (made on first use, not by providers). */
  readonly folders: ThreadFolders;
  /**
   * The run's assistant when it is not lead_agent's own: what it restricts (skills, sub-agents,
   * MCP servers), its instructions, model and code mode. Absent: the defaults.
   */
  readonly assistant?: RunAssistant;
  /** false when the run turns memory off (`config.configurable.memory: false`): no memory tool, no digest. @default on where config, the owner and the assistant have it on */
  readonly memory?: boolean;
}

/** A titled part of the system prompt; lower `order` comes first. @default order 100 */
export interface PromptSection {
  readonly id: string;
  readonly text: string;
  readonly order?: number;
  /** Whether a skill's specialist context keeps this section (e.g. the code-execution section). @default false */
  readonly inherit?: boolean;
}

/** What a specialist context inherits from the router surface of the same run. */
export interface InheritedSurface {
  /** Tools of the contributions that let specialists inherit them (universal tools, code mode's three). */
  readonly tools: readonly StructuredToolInterface[];
  /** Sections marked `inherit`, and the environment section. */
  readonly sections: readonly PromptSection[];
}

export interface RequestContribution {
  readonly sections?: readonly PromptSection[];
  readonly tools?: readonly StructuredToolInterface[];
  /** The surface while a skill is active; the first provider that returns one decides. */
  readonly surfaceFor?: (activeSkill: string, inherited: InheritedSurface) => Promise<ToolSurface | undefined> | ToolSurface | undefined;
  /** Whether specialist contexts inherit these tools (false for direct-mode MCP tools: a skill names the ones it needs in tools.json). @default true */
  readonly inheritTools?: boolean;
  /** The slash-command expansion; the first provider that returns one decides. */
  readonly resolveCommand?: RequestSurface["resolveCommand"];
  /** What a new user message is offered; the first provider that returns one decides. */
  readonly skillContextFor?: RequestSurface["skillContextFor"];
  /** The run's plugin hooks; the first provider that returns them decides. */
  readonly hooks?: RequestSurface["hooks"];
  /** The thread's uploads for the upload note; the first provider that returns it decides. */
  readonly uploadsSince?: RequestSurface["uploadsSince"];
  /** The memory digest's source; the first provider that returns one decides. */
  readonly memoryDigest?: RequestSurface["memoryDigest"];
  /**
   * Called by prepareRequest with the run's finished context (the task tool runs sub-agents over
   * the lead's model, tools and sections). Not called where no model is built (inspect prompt).
   */
  readonly bindContext?: (context: RequestContext) => void;
}

/**
 * The seam for the libraries (skills, plugins, codemode, tools): each contributes prompt
 * sections and tools per run. Called on every run, so a provider must be cheap when nothing
 * changed (the per-request snapshot of docs/architecture.md).
 */
export interface RequestProvider {
  readonly name: string;
  contribute(request: RequestInfo): RequestContribution | Promise<RequestContribution>;
}
