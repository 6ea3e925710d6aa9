import { coerceMessageLikeToMessage, type BaseMessageLike } from "@langchain/core/messages";
import { ThinktankError } from "@thinktank/core";

/** The roles and types a message may name (LangChain's message coercion, which the messages reducer applies). */
const messageKinds = "role user, assistant, system, developer or tool (or type human, ai, system, developer, tool, remove)";

/**
 * Checks what a client writes to a thread's state (a run's `input`, a command's `update`, a state
 * update's `values`) before anything is recorded, so a malformed value is refused at the edge with
 * 422 INVALID_STATE_INPUT naming the field (`input.messages[0].role`) instead of failing inside the
 * graph, where it would be written to the checkpoint first. `values` is an object of state keys (or
 * null / undefined: nothing); `keys`, when given, are the keys the graph's state has; `messages` is a
 * message, or a list of them, that LangChain can read, with a string or a list of content blocks.
 */
export function checkStateInput(values: unknown, field: string, keys?: readonly string[]): void {
  if (values === undefined || values === null) return;
  if (typeof values !== "object" || Array.isArray(values)) refuse(field, `${field} must be an object of state keys (e.g. {"messages": [{"role": "user", "content": "hi"}]})`);
  for (const [key, value] of Object.entries(values)) {
    if (keys && !keys.includes(key)) refuse(`${field}.${key}`, `${field}.${key} is not a key of the graph's state (${keys.join(", ")})`);
    if (key === "messages") checkMessages(value, `${field}.messages`);
  }
}

/** A command's `update`: state keys as an object, or as a list of `[key, value]` pairs (LangGraph's Command). */
export function checkCommandUpdate(update: unknown, field: string, keys?: readonly string[]): void {
  if (!Array.isArray(update)) return checkStateInput(update, field, keys);
  const entries = update.map((pair, index) => {
    if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== "string") refuse(`${field}[${index}]`, `${field}[${index}] must be a [key, value] pair`);
    return pair as [string, unknown];
  });
  checkStateInput(Object.fromEntries(entries), field, keys);
}

/** A superstep's update as POST /threads takes it (`supersteps`). */
export interface SuperstepUpdate {
  readonly values?: unknown;
  readonly as_node?: string | null;
  readonly command?: unknown;
}

/** A new thread's `supersteps` as LangGraph's bulkUpdateState takes them, each update's values checked first (`supersteps[i].updates[j].values`); a `command` in one is refused. */
export function checkSupersteps(supersteps: readonly { updates: readonly SuperstepUpdate[] }[], keys?: readonly string[]): { updates: { values: unknown; asNode?: string }[] }[] {
  return supersteps.map((step, index) => ({
    updates: step.updates.map((update, at) => {
      const field = `supersteps[${index}].updates[${at}]`;
      if (update.command !== undefined && update.command !== null) {
        throw new ThinktankError("UNSUPPORTED_FIELD", `${field}.command: commands in supersteps are not supported here; give values and as_node`, { details: { field: `${field}.command` } });
      }
      checkStateInput(update.values, `${field}.values`, keys);
      return { values: update.values ?? null, asNode: update.as_node ?? undefined };
    }),
  }));
}

/** LangGraph's InvalidUpdateError (an as_node that is no node of the graph, an update it cannot place) as a client's mistake: 422 INVALID_STATE_INPUT; any other error as it is. */
export function asInvalidUpdate(error: unknown, what: string, field: (message: string) => string): unknown {
  if (!(error instanceof Error) || error.name !== "InvalidUpdateError") return error;
  return new ThinktankError("INVALID_STATE_INPUT", `${what} cannot be applied: ${error.message}`, { details: { field: field(error.message) } });
}

function checkMessages(value: unknown, field: string): void {
  if (value === undefined || value === null) return;
  if (Array.isArray(value)) value.forEach((message, index) => checkMessage(message, `${field}[${index}]`));
  else if (typeof value === "object" || typeof value === "string") checkMessage(value, field);
  else refuse(field, `${field} must be a list of messages (e.g. [{"role": "user", "content": "hi"}]), not ${describe(value)}`);
}

function checkMessage(message: unknown, field: string): void {
  if (typeof message === "string") return;
  if (Array.isArray(message)) {
    // A [role, content] pair.
    if (message.length !== 2 || typeof message[0] !== "string") refuse(field, `${field} must be a message object or a [role, content] pair`);
    checkContent(message[1], `${field}[1]`);
  } else if (message === null || typeof message !== "object") {
    refuse(field, `${field} must be a message (an object with a role or type, and content), not ${describe(message)}`);
  } else {
    const fields = message as Record<string, unknown>;
    // A serialized LangChain message ({ lc: 1, type: "constructor", kwargs }) is read by its kwargs.
    const body = fields.lc === 1 && typeof fields.kwargs === "object" && fields.kwargs !== null ? (fields.kwargs as Record<string, unknown>) : fields;
    for (const name of ["role", "type", "id", "name", "tool_call_id"]) {
      if (fields[name] !== undefined && fields[name] !== null && typeof fields[name] !== "string") refuse(`${field}.${name}`, `${field}.${name} must be a string, not ${describe(fields[name])}`);
    }
    if (body.content !== undefined) checkContent(body.content, `${field}.content`);
    if (body.tool_calls !== undefined && body.tool_calls !== null) checkToolCalls(body.tool_calls, `${field}.tool_calls`);
  }
  try {
    coerceMessageLikeToMessage(message as BaseMessageLike);
  } catch {
    const which = typeof message === "object" && message !== null && !Array.isArray(message) ? ("role" in message ? ".role" : "type" in message ? ".type" : "") : "[0]";
    refuse(`${field}${which}`, `${field} is not a message LangChain can read: a message needs ${messageKinds}, and a tool message its tool_call_id`);
  }
}

function checkContent(content: unknown, field: string): void {
  if (typeof content === "string") return;
  if (!Array.isArray(content)) refuse(field, `${field} must be a string or a list of content blocks, not ${describe(content)}`);
  content.forEach((block, index) => {
    if (typeof block === "string") return;
    if (block === null || typeof block !== "object" || typeof (block as { type?: unknown }).type !== "string") refuse(`${field}[${index}]`, `${field}[${index}] must be a content block (an object with a string type, e.g. {"type": "text", "text": "hi"})`);
  });
}

function checkToolCalls(calls: unknown, field: string): void {
  if (!Array.isArray(calls)) refuse(field, `${field} must be a list of tool calls, not ${describe(calls)}`);
  calls.forEach((call, index) => {
    const each = call as { name?: unknown; args?: unknown; id?: unknown } | null;
    if (each === null || typeof each !== "object" || typeof each.name !== "string") refuse(`${field}[${index}]`, `${field}[${index}] must be a tool call with a string name`);
    if (each.args !== undefined && (each.args === null || typeof each.args !== "object" || Array.isArray(each.args))) refuse(`${field}[${index}].args`, `${field}[${index}].args must be an object`);
    if (each.id !== undefined && each.id !== null && typeof each.id !== "string") refuse(`${field}[${index}].id`, `${field}[${index}].id must be a string`);
  });
}

function describe(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "a list" : `a ${typeof value}`;
}

function refuse(field: string, message: string): never {
  throw new ThinktankError("INVALID_STATE_INPUT", message, { details: { field } });
}
