import { tool } from "@langchain/core/tools";
import { interrupt } from "@langchain/langgraph";

export interface HumanInputRequest {
  readonly question: string;
}

/**
 * `request_human_input(question)`: pauses the run with a LangGraph interrupt whose value is
 * `{ question }`; the run resumes through the API with `command: { resume: <answer> }`, and the
 * answer becomes the tool result.
 */
export function createRequestHumanInputTool() {
  return tool(
    async ({ question }: HumanInputRequest) => {
      const answer: unknown = interrupt<HumanInputRequest, unknown>({ question });
      return typeof answer === "string" ? answer : JSON.stringify(answer);
    },
    {
      name: "request_human_input",
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
