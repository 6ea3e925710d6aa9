import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { renderUploadNote } from "@thinktank/files";
import { renderRelevantSkills, type RelevantSkills } from "@thinktank/skills";
import { memoryDigestKey, renderMemoryDigest } from "./memory-digest-message.js";
import { messageFields } from "./message-fields.js";
import { uploadNoteKey } from "./upload-note-message.js";

/** Where a user message stores what it was offered in compact skill listing (additional_kwargs key). */
export const skillContextKey = "skill_context";

/** Whether a message is a user message that has not been offered skills yet. */
export function needsSkillContext(message: BaseMessage | undefined): message is BaseMessage {
  return message?.getType() === "human" && !Object.hasOwn(message.additional_kwargs ?? {}, skillContextKey);
}

/** The text of a message: its string content, or its text parts joined. */
export function messageText(message: BaseMessage): string {
  if (typeof message.content === "string") return message.content;
  return message.content.flatMap((part) => (part.type === "text" && typeof part.text === "string" ? [part.text] : [])).join("\n");
}

/** The same user message (same id, same content) with what it is offered stored once, in additional_kwargs. */
export function storeSkillContext(message: BaseMessage, relevant: RelevantSkills): HumanMessage {
  return new HumanMessage({ ...messageFields(message), additional_kwargs: { ...message.additional_kwargs, [skillContextKey]: relevant } });
}

/**
 * The copy of a message the model is sent: a user message that stores an upload note or a skill
 * context gets its `<uploaded_files>` block, then its `<relevant_skills>` block, after its own text,
 * and a thread's first message that stores the memory digest gets its `<memory>` block before it
 * (the stored message and what the UI shows stay as the user wrote them). Rendered from what was
 * stored, so history re-sent on later turns is byte-identical and a provider's prompt cache keeps
 * matching past the system prompt.
 */
export function messageForModel(message: BaseMessage): BaseMessage {
  if (message.getType() !== "human") return message;
  const { [skillContextKey]: stored, [uploadNoteKey]: uploads, [memoryDigestKey]: digest, ...rest } = message.additional_kwargs ?? {};
  if (stored === undefined && uploads === undefined && digest === undefined) return message;
  const blocks = [uploads === undefined ? "" : renderUploadNote(uploads), isRelevantSkills(stored) ? renderRelevantSkills(stored) : ""].filter((block) => block !== "");
  // The memory digest goes before the message's text: what was known before the conversation began.
  const memory = renderMemoryDigest(digest);
  if (blocks.length === 0 && memory === "") return new HumanMessage({ ...messageFields(message), additional_kwargs: rest });
  const before = memory === "" ? [] : [memory];
  const content = typeof message.content === "string" ? [...before, message.content, ...blocks].join("\n\n") : [...before.map((text) => ({ type: "text" as const, text })), ...message.content, ...blocks.map((text) => ({ type: "text" as const, text }))];
  return new HumanMessage({ ...messageFields(message), content, additional_kwargs: rest });
}

/** A client may send a message with its own skill_context: only a well-formed one is rendered. */
function isRelevantSkills(value: unknown): value is RelevantSkills {
  if (typeof value !== "object" || value === null) return false;
  const { skills, moreSkills, commands, agents, moreAgents } = value as { skills?: unknown; moreSkills?: unknown; commands?: unknown; agents?: unknown; moreAgents?: unknown };
  const strings = (entry: unknown, keys: readonly string[]) => typeof entry === "object" && entry !== null && keys.every((key) => typeof (entry as Record<string, unknown>)[key] === "string");
  return (
    Array.isArray(skills) &&
    Array.isArray(commands) &&
    skills.every((skill) => strings(skill, ["name", "description", "location"])) &&
    (moreSkills === undefined || (Array.isArray(moreSkills) && moreSkills.every((skill) => strings(skill, ["name", "location"])))) &&
    commands.every((command) => strings(command, ["invocation", "description"])) &&
    (agents === undefined || (Array.isArray(agents) && agents.every((agent) => strings(agent, ["subagentType", "description"])))) &&
    (moreAgents === undefined || (Array.isArray(moreAgents) && moreAgents.every((agent) => strings(agent, ["subagentType"]))))
  );
}
