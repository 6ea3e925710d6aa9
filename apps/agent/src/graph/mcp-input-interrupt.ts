import { interrupt } from "@langchain/langgraph";
import { inputResponsesFromAnswer, questionForInputRequests, type InputRequiredHandler } from "@thinktank/mcp";
import { answerFromResume, humanInputInterrupt, type HumanInputInterrupt } from "./human-input-answer.js";
import { decisionsFromResume } from "./human-review.js";

/**
 * A 2026-07-28 MCP tool's `input_required` round (an elicitation) as the same human-in-the-loop
 * interrupt request_human_input makes: the run pauses with the server's question (in LangChain's
 * shape, so agent-chat-ui offers answer controls), and resumes through the API with the answer.
 * On resume LangGraph runs the tool call again; the stateless server asks again, and this time
 * interrupt() returns the answer, which goes back with the server's requestState. A rejection is
 * sent as `decline`, an approval as "yes".
 */
export const askUserForMcpInput: InputRequiredHandler = async (requests, context) => {
  const question = questionForInputRequests(context.server, context.tool, requests);
  const resume = interrupt<HumanInputInterrupt, unknown>(humanInputInterrupt(question));
  const decision = decisionsFromResume(resume)?.[0];
  if (decision?.type === "reject") return inputResponsesFromAnswer(requests, { kind: "decline", ...(decision.message ? { text: decision.message } : {}) });
  if (decision?.type === "approve") return inputResponsesFromAnswer(requests, { kind: "accept", text: "yes" });
  return inputResponsesFromAnswer(requests, { kind: "accept", text: answerFromResume(resume) });
};
