import { tool } from "@langchain/core/tools";
import { interrupt } from "@langchain/langgraph";
import { answerFromResume, humanInputInterrupt, humanInputToolName, type HumanInputInterrupt } from "./human-input-answer.js";

export interface HumanInputRequest {
  readonly question: string;
}

/**
 * `request_human_input(question)`: pauses the run with a LangGraph interrupt whose value holds
 * `question` and the same request in LangChain's human-in-the-loop shape (`action_requests`,
 * `review_configs`); the run resumes through the API with `command: { resume }`, a plain answer
 * or LangChain's `{ decisions: [...] }`, and the answer becomes the tool result (answerFromResume).
 */
export function createRequestHumanInputTool() {
  return tool(
    async ({ question }: HumanInputRequest) => answerFromResume(interrupt<HumanInputInterrupt, unknown>(humanInputInterrupt(question))),
    {
      name: humanInputToolName,
      description: "Ask the user a question and wait for the answer. Use it when you need a decision or information only the user has.",
      schema: {
        type: "object",
        properties: { question: { type: "string", description: "The question, complete enough to answer without more context." } },
        required: ["question"],
        additionalProperties: false,
      },
    },
  );
}
