import { decisionsFromResume, reviewConfigFor, type ActionRequest, type ReviewConfig, type ReviewDecision } from "./human-review.js";

/** The tool name the interrupt's action request carries. */
export const humanInputToolName = "request_human_input";

/**
 * The interrupt value of `request_human_input`: the question, plus the same request in LangChain's
 * human-in-the-loop shape (human-review.ts), so agent-chat-ui and other LangGraph clients offer
 * answer controls. The action's args carry
 * an empty `answer` beside the question: a client's edit form shows one field per arg, so the
 * user types the answer there.
 */
export interface HumanInputInterrupt {
  readonly question: string;
  readonly action_requests: readonly [ActionRequest & { readonly args: { readonly question: string; readonly answer: string } }];
  readonly review_configs: readonly [ReviewConfig];
}

export function humanInputInterrupt(question: string): HumanInputInterrupt {
  return {
    question,
    action_requests: [{ name: humanInputToolName, args: { question, answer: "" }, description: question }],
    review_configs: [reviewConfigFor(humanInputToolName)],
  };
}

/**
 * The tool result for a resume value. Accepted: a plain string (the answer as typed); LangChain's
 * `{ decisions: [decision] }` (`approve`, `edit` with `edited_action` or `editedAction` whose
 * `args.answer` is the answer, `reject` with an optional `message`); and the older agent-inbox
 * list `[{ type: "response" | "accept" | "edit" | "ignore", args }]` (read by decisionsFromResume).
 * Anything else reaches the model as its JSON text, so nothing the user sent is lost.
 */
export function answerFromResume(resume: unknown): string {
  if (typeof resume === "string") return resume;
  const decision = decisionsFromResume(resume)?.[0];
  return (decision ? answerFromDecision(decision) : undefined) ?? JSON.stringify(resume ?? null);
}

function answerFromDecision(decision: ReviewDecision): string | undefined {
  switch (decision.type) {
    case "approve":
      return "The user approved, without a written answer.";
    case "reject":
      return decision.message ? `The user declined to answer: ${decision.message}` : "The user declined to answer.";
    case "response":
      return decision.text;
    case "edit":
      return typeof decision.args.answer === "string" && decision.args.answer.trim() !== "" ? decision.args.answer : JSON.stringify(decision.args);
    default:
      return undefined;
  }
}
