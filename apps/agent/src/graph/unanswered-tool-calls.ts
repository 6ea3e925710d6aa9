import { RemoveMessage, type BaseMessage } from "@langchain/core/messages";
import { REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { withUnansweredToolCallsClosed } from "@thinktank/runs";

/** What a call left waiting at an interrupt is answered with when a new user message comes instead. */
export const notAnsweredText = "cancelled: a new message came before this call was approved or answered, so it did not run";

/**
 * A user message sent to a thread waiting at an interrupt (an approval, request_human_input) drops
 * the interrupt: LangGraph starts from the new input, and the waiting call stays without a result,
 * which chat model APIs refuse. Before a model call, each such call is answered in place (an error
 * tool message right after its message's results); `update` rewrites the thread's messages so
 * (LangGraph's remove-all marker, then the whole history: ids kept). Undefined when none is open.
 */
export function closeUnansweredToolCalls(messages: readonly BaseMessage[]): { readonly messages: BaseMessage[]; readonly update: BaseMessage[] } | undefined {
  const closed = withUnansweredToolCallsClosed(messages, notAnsweredText);
  return closed ? { messages: closed, update: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...closed] } : undefined;
}
