// The chat's reading of a thread's state (graph lead_agent's values, as GET /threads/:id/state and
// the stream's `values` events carry them): turns, tool calls with their results, what each answer
// was offered and read, its tokens, and the pending question or approval. Pure functions: the views
// render what these return, as text.

/** A message as the agent API sends it (LangChain's plain JSON: `type` is human, ai, tool, ...). */
export interface ChatMessage {
  readonly type: string;
  readonly id?: string;
  readonly content: unknown;
  readonly name?: string;
  readonly tool_calls?: readonly ToolCall[];
  readonly tool_call_id?: string;
  readonly status?: string;
  readonly additional_kwargs?: Readonly<Record<string, unknown>>;
  readonly usage_metadata?: { readonly input_tokens?: number; readonly output_tokens?: number };
}

export interface ToolCall {
  readonly id?: string;
  readonly name: string;
  readonly args: Readonly<Record<string, unknown>>;
}

/** One `task` call's record (the state's `delegations`). */
export interface Delegation {
  readonly tool_call_id: string;
  readonly agent: string;
  readonly status: string;
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly tokens_estimated: boolean;
  readonly duration_ms: number;
  readonly error?: string;
}

export interface Artifact {
  readonly path: string;
  readonly name: string;
  readonly size: number;
  readonly mime_type: string;
  readonly url: string;
}

export interface ThreadValues {
  readonly messages: readonly ChatMessage[];
  readonly artifacts: readonly Artifact[];
  readonly delegations: readonly Delegation[];
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The values the chat reads, whatever else the state holds; missing or malformed parts are empty. */
export function readValues(values: unknown): ThreadValues {
  const record = isRecord(values) ? values : {};
  const list = (key: string) => (Array.isArray(record[key]) ? (record[key] as unknown[]).filter(isRecord) : []);
  return {
    messages: list("messages").filter((message) => typeof message.type === "string") as unknown as ChatMessage[],
    artifacts: list("artifacts").filter((artifact) => typeof artifact.url === "string" && typeof artifact.name === "string") as unknown as Artifact[],
    delegations: list("delegations").filter((entry) => typeof entry.tool_call_id === "string") as unknown as Delegation[],
  };
}

/** A message's text: its string content, or its text parts joined. */
export function textOf(message: Pick<ChatMessage, "content">): string {
  const { content } = message;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.flatMap((part: unknown) => (isRecord(part) && part.type === "text" && typeof part.text === "string" ? [part.text] : [])).join("\n");
}

/** What the user typed: a slash command as typed (the agent stores its expansion as the content). */
export function typedText(message: ChatMessage): string {
  const command = message.additional_kwargs?.slash_command;
  if (isRecord(command) && typeof command.original === "string") return command.original;
  return textOf(message);
}

/** A tool call and its result (undefined while it runs or waits for approval). */
export interface ToolStep {
  readonly call: ToolCall;
  readonly result?: ChatMessage;
}

/** One item of an answer, in order: the model's text, or a tool call with its result. */
export type AnswerPart = { readonly kind: "text"; readonly id: string; readonly text: string } | { readonly kind: "tool"; readonly id: string; readonly step: ToolStep };

/** A user message and everything after it until the next one. */
export interface Turn {
  readonly id: string;
  readonly human?: ChatMessage;
  readonly parts: readonly AnswerPart[];
  readonly skills: SkillUse;
  readonly tokens: TokenUse;
}

export interface SkillUse {
  /** Names offered with the message (compact listing); undefined when the message stores none (full listing: every enabled skill is in the prompt). */
  readonly offered?: readonly string[];
  /** Skills whose instructions the answer read: view_skill, a SKILL.md read, a skill run as a slash command. */
  readonly read: readonly string[];
}

export interface TokenUse {
  /** What the lead's model reported (usage_metadata), if it reported anything. */
  readonly reported?: { readonly input: number; readonly output: number };
  /** The sub-agents' tokens (their delegation records). */
  readonly delegated?: { readonly input: number; readonly output: number; readonly estimated: boolean };
}

/** The messages grouped into turns, tool results paired with their calls. */
export function toTurns(messages: readonly ChatMessage[], delegations: readonly Delegation[] = []): Turn[] {
  const results = new Map<string, ChatMessage>();
  for (const message of messages) if (message.type === "tool" && message.tool_call_id) results.set(message.tool_call_id, message);
  const byCall = new Map(delegations.map((entry) => [entry.tool_call_id, entry]));
  const turns: Turn[] = [];
  let current: { human?: ChatMessage; messages: ChatMessage[] } | undefined;
  const flush = () => {
    if (current) turns.push(buildTurn(current.human, current.messages, results, byCall, turns.length));
  };
  for (const message of messages) {
    if (message.type === "human") {
      flush();
      current = { human: message, messages: [] };
    } else {
      current ??= { messages: [] };
      current.messages.push(message);
    }
  }
  flush();
  return turns;
}

function buildTurn(human: ChatMessage | undefined, messages: readonly ChatMessage[], results: ReadonlyMap<string, ChatMessage>, delegations: ReadonlyMap<string, Delegation>, index: number): Turn {
  const parts: AnswerPart[] = [];
  const read = new Set<string>();
  let reported: { input: number; output: number } | undefined;
  let delegated: { input: number; output: number; estimated: boolean } | undefined;
  const command = human?.additional_kwargs?.slash_command;
  if (isRecord(command) && command.kind === "skill" && typeof command.name === "string") read.add(command.name);
  messages.forEach((message, position) => {
    if (message.type !== "ai") return;
    const usage = message.usage_metadata;
    if (usage && (usage.input_tokens !== undefined || usage.output_tokens !== undefined)) {
      reported = { input: (reported?.input ?? 0) + (usage.input_tokens ?? 0), output: (reported?.output ?? 0) + (usage.output_tokens ?? 0) };
    }
    const text = textOf(message);
    if (text.trim() !== "") parts.push({ kind: "text", id: message.id ?? `${index}-${position}`, text });
    for (const call of message.tool_calls ?? []) {
      const skill = skillRead(call);
      if (skill) read.add(skill);
      const delegation = call.id ? delegations.get(call.id) : undefined;
      if (delegation) delegated = { input: (delegated?.input ?? 0) + delegation.input_tokens, output: (delegated?.output ?? 0) + delegation.output_tokens, estimated: (delegated?.estimated ?? false) || delegation.tokens_estimated };
      const result = call.id ? results.get(call.id) : undefined;
      parts.push({ kind: "tool", id: call.id ?? `${index}-${position}-${call.name}`, step: result ? { call, result } : { call } });
    }
  });
  return { id: human?.id ?? `turn-${index}`, ...(human ? { human } : {}), parts, skills: { ...offeredSkills(human), read: [...read] }, tokens: { ...(reported ? { reported } : {}), ...(delegated ? { delegated } : {}) } };
}

/** The skills a user message was offered in compact listing (additional_kwargs.skill_context). */
function offeredSkills(human: ChatMessage | undefined): { offered?: string[] } {
  const context = human?.additional_kwargs?.skill_context;
  if (!isRecord(context)) return {};
  const names = [...(Array.isArray(context.skills) ? context.skills : []), ...(Array.isArray(context.moreSkills) ? context.moreSkills : [])].flatMap((skill: unknown) => (isRecord(skill) && typeof skill.name === "string" ? [skill.name] : []));
  return { offered: [...new Set(names)] };
}

/** The skill a tool call reads the instructions of: view_skill(name), or a read of a SKILL.md (its folder's name). */
export function skillRead(call: ToolCall): string | undefined {
  if (call.name === "view_skill" && typeof call.args.name === "string") return call.args.name;
  const path = typeof call.args.path === "string" ? call.args.path : typeof call.args.file_path === "string" ? call.args.file_path : undefined;
  const match = path === undefined ? null : /\/([^/]+)\/SKILL\.md$/.exec(path);
  return match && call.name !== "write_file" && call.name !== "edit_file" ? match[1] : undefined;
}

/** A pending question or approval (an interrupt of the thread's state), as the chat answers it. */
export type PendingInput =
  | { readonly kind: "question"; readonly id?: string; readonly question: string }
  | { readonly kind: "approval"; readonly id?: string; readonly requests: readonly ApprovalRequest[] }
  | { readonly kind: "other"; readonly id?: string; readonly value: unknown };

export interface ApprovalRequest {
  readonly name: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly description: string;
  /** Why approval is asked (tool_approvals[i].reason), when the agent says. */
  readonly reason?: string;
}

/** The interrupts of a thread state (`interrupts: [{ value, id }]`) as the chat shows them. */
export function readInterrupts(interrupts: unknown): PendingInput[] {
  if (!Array.isArray(interrupts)) return [];
  return interrupts.filter(isRecord).map((entry): PendingInput => {
    const id = typeof entry.id === "string" ? entry.id : undefined;
    const value = entry.value;
    if (isRecord(value) && typeof value.question === "string") return { kind: "question", question: value.question, ...(id ? { id } : {}) };
    if (isRecord(value) && Array.isArray(value.action_requests)) {
      const reasons = Array.isArray(value.tool_approvals) ? value.tool_approvals : [];
      const requests = value.action_requests.filter(isRecord).map((request, index): ApprovalRequest => {
        const reason = isRecord(reasons[index]) ? reasons[index].reason : undefined;
        return {
          name: typeof request.name === "string" ? request.name : "(unnamed)",
          args: isRecord(request.args) ? request.args : {},
          description: typeof request.description === "string" ? request.description : "",
          ...(typeof reason === "string" ? { reason } : {}),
        };
      });
      return { kind: "approval", requests, ...(id ? { id } : {}) };
    }
    return { kind: "other", value, ...(id ? { id } : {}) };
  });
}

/** A reviewer's decision on one approval request, as the agent reads `{ decisions: [...] }`. */
export type Decision = { readonly type: "approve" } | { readonly type: "edit"; readonly edited_action: { readonly name: string; readonly args: Record<string, unknown> } } | { readonly type: "reject"; readonly message: string };

/** The link an artifact downloads from: its route under this origin's `/agent`, only when it is a thread file route. */
export function artifactHref(artifact: Pick<Artifact, "url">): string | undefined {
  return /^\/threads\/[A-Za-z0-9-]+\/files\/[a-z]+\/[^?#\\]+$/.test(artifact.url) && !artifact.url.includes("/../") ? `/agent${artifact.url}` : undefined;
}

/** Text for a value shown in a card: strings as they are, anything else as indented JSON. */
export function shownValue(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}
