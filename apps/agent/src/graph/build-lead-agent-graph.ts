import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { END, START, StateGraph, type BaseCheckpointSaver } from "@langchain/langgraph";
import { ThinktankError } from "@thinktank/core";
import { uploadNoteFor, type ThreadArtifact } from "@thinktank/files";
import { hookStopAnswer, hookStopKey, needsPromptHooks, withHookContext } from "../hooks/hook-messages.js";
import type { HookSubagent } from "@thinktank/plugins";
import { hasPromptHooks, runPromptHooks, runStopHooks, runSubagentStopHooks } from "../hooks/hook-nodes.js";
import { toolNodeFor } from "../hooks/hooked-tool-node.js";
import type { RequestContext, ThreadUpload, ToolSurface } from "../request/request-context.js";
import { artifactsSinceLastAnswer, presentedArtifacts } from "../tools/present-files-tool.js";
import { reviewToolCalls, type ToolApprovalPolicy } from "../tool-approval/tool-approval.js";
import { closeUnansweredToolCalls } from "./unanswered-tool-calls.js";
import { stateEffectOf } from "../skill-context/skill-switch-tools.js";
import { delegatedArtifacts, delegationOf, type Delegation } from "../subagents/delegation-record.js";
import { LeadAgentState, type LeadAgentStateType, type LeadAgentUpdate } from "./lead-agent-state.js";
import { messageForModel, messageText, needsSkillContext, storeSkillContext } from "./skill-context-message.js";
import { storeUploadNote, uploadNoteKey } from "./upload-note-message.js";
import { needsMemoryDigest, storeMemoryDigest } from "./memory-digest-message.js";

/** The graph id the API serves. */
export const leadAgentGraphId = "lead_agent";

/** Where an expanded message records the slash command that ran (additional_kwargs key). */
export const slashCommandKey = "slash_command";

export interface LeadAgentGraphOptions {
  /** `tools.approval`: which script tools ask the user before their first call in a thread. @default "untrusted" */
  readonly toolApproval?: ToolApprovalPolicy;
  /**
   * The graph runs a sub-agent (src/subagents): no prompt or Stop hooks (tool hooks still run), and
   * a script tool that needs approval answers an error instead of interrupting. @default false
   */
  readonly subagent?: boolean;
  /** With `subagent`: the sub-agent, as its SubagentStop hooks hear of it (they run where Stop hooks run for the lead). @default none: no SubagentStop hooks */
  readonly subagentStop?: HookSubagent;
  /** Tools the tools node answers calls of without the model being given them (a sub-agent at the deepest level: `task`, refused with the reason). @default [] */
  readonly unlistedTools?: readonly StructuredToolInterface[];
  /** The compiled graph's name. @default leadAgentGraphId */
  readonly name?: string;
}

/**
 * Graph `lead_agent`: [commands →] [skill_context →] model → (tools → model)* → end. Built per run
 * from the run's RequestContext.
 * - commands: a new human message that starts with a slash command is replaced (same id) by the
 *   command's expansion, which records the command in additional_kwargs.slash_command; an unknown
 *   or ambiguous command answers the user with the error and near matches, without a model call.
 * - skill_context (the message's context): a new human message is replaced (same id, same
 *   content) by itself with, stored once in additional_kwargs, the note of the files uploaded since
 *   the previous one (uploaded_files; context.uploadsSince after the state's uploadsSeen, which
 *   moves on) and, in compact skill listing, the skills and commands it is offered (skill_context,
 *   searched with its text and the uploaded files' names). Every model call renders them
 *   with the message's text in the copy it sends, so the system prompt never depends on a message or
 *   on memory, and history is re-sent byte for byte. Visited only when there is something to store.
 * - model: on a new thread's first message, first stores the owner's `<memory>` digest on it
 *   (additional_kwargs.memory_digest from context.memoryDigest, returned with the answer: no step of
 *   its own), rendered before the message's text. Re-reads the surface each call, so a skill switch (activeSkill) takes effect on the very
 *   next call; an active skill that is gone or disabled is dropped (back to the router surface).
 *   Calls a new user message left waiting at an interrupt are answered first (unanswered-tool-calls.ts).
 * - tools: the calls of one message in parallel (ToolNode); tool errors become error tool
 *   messages, interrupts pass through; view_skill / leave_skill results set activeSkill. Before
 *   any call runs, script tools that need approval interrupt the run (reviewToolCalls); approvals
 *   are remembered in approvedTools. present_files results add their artifacts to the state's
 *   `artifacts` and to the tool message's additional_kwargs.artifacts; the model's next answer
 *   carries them in its additional_kwargs.artifacts as well. A `task` result (src/subagents)
 *   adds its delegation record to the state's `delegations`.
 * - options.subagent: the same graph runs a sub-agent (no session hooks, no approval interrupts).
 * - plugin hooks (context.hooks, only when an enabled plugin has command hooks; src/hooks):
 *   prompt_hooks runs SessionStart (first run) and UserPromptSubmit before a new user message is
 *   processed (their context is stored on it; a block answers instead of the model); the tools node
 *   runs PreToolUse / PostToolUse around each call (hooked-tool-node.ts); stop_hooks runs Stop when
 *   the model answers without tool calls (a block sends it back to work, a few times at most); in a
 *   sub-agent it runs SubagentStop instead (options.subagentStop), the same way.
 */
export function buildLeadAgentGraph(context: RequestContext, checkpointer: BaseCheckpointSaver | false, options: LeadAgentGraphOptions = {}) {
  // The session's hooks around the conversation (SessionStart, UserPromptSubmit, Stop): not a sub-agent's.
  const sessionHooks = options.subagent ? undefined : context.hooks;
  const surfaceOf = async (state: LeadAgentStateType): Promise<ToolSurface> => {
    if (!state.activeSkill || !context.surfaceFor) return context;
    return (await context.surfaceFor(state.activeSkill)) ?? context;
  };

  const expandCommand = async (state: LeadAgentStateType): Promise<LeadAgentUpdate> => {
    const last = state.messages.at(-1);
    if (!context.resolveCommand || !last || last.getType() !== "human" || typeof last.content !== "string") return {};
    if (last.additional_kwargs?.[slashCommandKey]) return {};
    const resolution = await context.resolveCommand(last.content);
    if (resolution.kind === "none") return {};
    if (resolution.kind === "error") {
      const { code, message, suggestions } = resolution.error;
      return { messages: [new AIMessage({ content: message, additional_kwargs: { slash_command_error: { code, suggestions: [...suggestions] } } })] };
    }
    const expanded = new HumanMessage({
      ...(last.id ? { id: last.id } : {}),
      content: resolution.text,
      additional_kwargs: { ...last.additional_kwargs, [slashCommandKey]: { ...resolution.command, original: last.content } },
    });
    return { messages: [expanded] };
  };

  // The uploads a new message is told about, read once per message (the route and the node both ask).
  let uploadsRead: { readonly key: string; readonly uploads: Promise<readonly ThreadUpload[]> } | undefined;
  const newUploads = (state: LeadAgentStateType): Promise<readonly ThreadUpload[]> => {
    const last = state.messages.at(-1);
    if (!context.uploadsSince || last?.getType() !== "human" || Object.hasOwn(last.additional_kwargs ?? {}, uploadNoteKey)) return Promise.resolve([]);
    const key = `${last.id ?? ""}:${state.uploadsSeen}`;
    if (uploadsRead?.key !== key || last.id === undefined) uploadsRead = { key, uploads: context.uploadsSince(state.uploadsSeen) };
    return uploadsRead.uploads;
  };

  const attachMessageContext = async (state: LeadAgentStateType): Promise<LeadAgentUpdate> => {
    const last = state.messages.at(-1);
    if (!last || last.getType() !== "human") return {};
    const uploads = await newUploads(state);
    const note = uploadNoteFor(uploads);
    let message = note ? storeUploadNote(last, note) : last;
    if (context.skillContextFor && needsSkillContext(message)) {
      const names = uploads.map((upload) => upload.path.split("/").pop() ?? "").join(" ");
      const relevant = await context.skillContextFor(names === "" ? messageText(message) : `${messageText(message)}\n${names}`);
      if (relevant) message = storeSkillContext(message, relevant);
    }
    const seen = uploads.reduce((highest, upload) => Math.max(highest, upload.seq), state.uploadsSeen);
    return { ...(message === last ? {} : { messages: [message] }), ...(seen > state.uploadsSeen ? { uploadsSeen: seen } : {}) };
  };

  const promptHooks = async (state: LeadAgentStateType, config: RunnableConfig): Promise<LeadAgentUpdate> => {
    const last = state.messages.at(-1);
    if (!hasPromptHooks(sessionHooks) || !needsPromptHooks(last)) return {};
    return { messages: await runPromptHooks(sessionHooks, state.messages, messageText(last), config) };
  };

  // A sub-agent's end meets SubagentStop instead of Stop.
  const subagentStop = options.subagent && options.subagentStop && context.hooks?.has("SubagentStop") ? { hooks: context.hooks, agent: options.subagentStop } : undefined;
  const stopHooks = async (state: LeadAgentStateType, config: RunnableConfig): Promise<LeadAgentUpdate> => {
    if (subagentStop) return { messages: await runSubagentStopHooks(subagentStop.hooks, subagentStop.agent, state.messages, config) };
    return sessionHooks ? { messages: await runStopHooks(sessionHooks, state.messages, config) } : {};
  };

  const callModel = async (current: LeadAgentStateType, config: RunnableConfig): Promise<LeadAgentUpdate> => {
    const closed = closeUnansweredToolCalls(current.messages);
    let state = closed ? { ...current, messages: closed.messages } : current;
    // A new thread's first message gets the owner's memory digest, stored with this call's answer (no step of its own).
    let digested: BaseMessage | undefined;
    if (context.memoryDigest && needsMemoryDigest(state.messages)) {
      const digest = await context.memoryDigest();
      if (digest !== undefined) {
        digested = storeMemoryDigest(state.messages.at(-1) as BaseMessage, digest);
        state = { ...state, messages: [...state.messages.slice(0, -1), digested] };
      }
    }
    // A tool's hook said continue: false: the run ends with its reason, without the model.
    const stopped = context.hooks ? hookStopAnswer(state.messages) : undefined;
    if (stopped) return { messages: [stopped] };
    const surface = await surfaceOf(state);
    let model: { invoke: typeof context.model.invoke } = context.model;
    if (surface.tools.length > 0) {
      if (!context.model.bindTools) throw new ThinktankError("MODEL_NOT_CONFIGURED", `the configured chat model (${context.modelName}) cannot call tools`);
      model = context.model.bindTools([...surface.tools]);
    }
    const response = await model.invoke([new SystemMessage(surface.systemPrompt), ...withHookContext(state.messages).map(messageForModel)], config);
    const presented = artifactsSinceLastAnswer(state.messages);
    if (presented.length > 0) response.additional_kwargs = { ...response.additional_kwargs, artifacts: presented };
    const dropped = state.activeSkill && surface.skill === undefined;
    return { messages: [...(closed?.update ?? []), ...(digested ? [digested] : []), response], ...(dropped ? { activeSkill: null } : {}) };
  };

  const callTools = async (state: LeadAgentStateType, config: RunnableConfig): Promise<LeadAgentUpdate> => {
    const surface = await surfaceOf(state);
    const review = reviewToolCalls(state.messages, surface.tools, options.toolApproval ?? "untrusted", state.approvedTools, { ask: !options.subagent });
    const result = (await toolNodeFor([...surface.tools, ...(options.unlistedTools ?? [])], context.hooks).invoke({ ...state, messages: review.messages }, config)) as { messages: BaseMessage[] };
    let activeSkill: string | null | undefined;
    const artifacts: ThreadArtifact[] = [];
    const delegations: Delegation[] = [];
    for (const message of result.messages) {
      const effect = message instanceof ToolMessage ? stateEffectOf(message) : undefined;
      if (effect) activeSkill = effect.activeSkill;
      const delegation = message instanceof ToolMessage ? delegationOf(message) : undefined;
      if (delegation) delegations.push(delegation);
      // A sub-agent's presented files are the user's as the lead's are.
      const presented = delegation && message instanceof ToolMessage ? delegatedArtifacts(message) : presentedArtifacts(message);
      if (presented.length > 0) {
        message.additional_kwargs = { ...message.additional_kwargs, artifacts: presented };
        artifacts.push(...presented);
      }
    }
    return {
      messages: [...review.written, ...result.messages],
      ...(review.approved.length > 0 ? { approvedTools: [...review.approved] } : {}),
      ...(activeSkill !== undefined ? { activeSkill } : {}),
      ...(artifacts.length > 0 ? { artifacts } : {}),
      ...(delegations.length > 0 ? { delegations } : {}),
    };
  };

  // Only a new human message that starts with '/' visits the commands node, and only a new human
  // message with uploads to note or (compact listing) skills to offer visits skill_context (other
  // runs show no extra step).
  const toContext = async (state: LeadAgentStateType): Promise<"skill_context" | "model"> =>
    (context.skillContextFor && needsSkillContext(state.messages.at(-1))) || (await newUploads(state)).length > 0 ? "skill_context" : "model";
  const entry = (state: LeadAgentStateType): Promise<"commands" | "skill_context" | "model"> => {
    const last = state.messages.at(-1);
    const candidate = context.resolveCommand && last?.getType() === "human" && typeof last.content === "string" && last.content.trimStart().startsWith("/");
    return candidate && !last?.additional_kwargs?.[slashCommandKey] ? Promise.resolve("commands") : toContext(state);
  };
  const withPromptHooks = async (state: LeadAgentStateType): Promise<"prompt_hooks" | "commands" | "skill_context" | "model"> => (hasPromptHooks(sessionHooks) && needsPromptHooks(state.messages.at(-1)) ? "prompt_hooks" : entry(state));
  const afterPromptHooks = async (state: LeadAgentStateType): Promise<"commands" | "skill_context" | "model" | typeof END> => (state.messages.at(-1)?.getType() === "ai" ? END : entry(state));
  const afterCommands = async (state: LeadAgentStateType): Promise<"skill_context" | "model" | typeof END> => (state.messages.at(-1)?.getType() === "ai" ? END : toContext(state));

  const route = (state: LeadAgentStateType): "tools" | "stop_hooks" | typeof END => {
    const last = state.messages.at(-1) as AIMessage | undefined;
    if (last?.tool_calls?.length) return "tools";
    return (subagentStop || sessionHooks?.has("Stop")) && !last?.additional_kwargs?.[hookStopKey] ? "stop_hooks" : END;
  };
  const afterStopHooks = (state: LeadAgentStateType): "model" | typeof END => (state.messages.at(-1)?.getType() === "human" ? "model" : END);

  return new StateGraph(LeadAgentState)
    .addNode("prompt_hooks", promptHooks)
    .addNode("commands", expandCommand)
    .addNode("skill_context", attachMessageContext)
    .addNode("model", callModel)
    .addNode("tools", callTools)
    .addNode("stop_hooks", stopHooks)
    .addConditionalEdges(START, withPromptHooks, ["prompt_hooks", "commands", "skill_context", "model"])
    .addConditionalEdges("prompt_hooks", afterPromptHooks, ["commands", "skill_context", "model", END])
    .addConditionalEdges("commands", afterCommands, ["skill_context", "model", END])
    .addEdge("skill_context", "model")
    .addConditionalEdges("model", route, ["tools", "stop_hooks", END])
    .addConditionalEdges("stop_hooks", afterStopHooks, ["model", END])
    .addEdge("tools", "model")
    .compile({ checkpointer, name: options.name ?? leadAgentGraphId });
}

export type LeadAgentGraph = ReturnType<typeof buildLeadAgentGraph>;
