/** The tool name the interrupt's action request carries. */
export const humanInputToolName = "request_human_input";

/**
 * The interrupt value of `request_human_input`: the question, plus the same request in LangChain's
 * human-in-the-loop shape (langchain's humanInTheLoopMiddleware over the API, as agent-chat-ui and
 * other LangGraph clients read it), so those clients offer answer controls. The action's args carry
 * an empty `answer` beside the question: a client's edit form shows one field per arg, so the
 * user types the answer there.
 */
export interface HumanInputInterrupt {
  readonly question: string;
  readonly action_requests: readonly [{ readonly name: string; readonly args: { readonly question: string; readonly answer: string }; readonly description: string }];
  readonly review_configs: readonly [{ readonly action_name: string; readonly allowed_decisions: readonly ["approve", "edit", "reject"] }];
}

export function humanInputInterrupt(question: string): HumanInputInterrupt {
  return {
    question,
    action_requests: [{ name: humanInputToolName, args: { question, answer: "" }, description: question }],
    review_configs: [{ action_name: humanInputToolName, allowed_decisions: ["approve", "edit", "reject"] }],
  };
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The tool result for a resume value. Accepted: a plain string (the answer as typed); LangChain's
 * `{ decisions: [decision] }` (`approve`, `edit` with `edited_action` or `editedAction` whose
 * `args.answer` is the answer, `reject` with an optional `message`); and the older agent-inbox
 * list `[{ type: "response" | "accept" | "edit" | "ignore", args }]`. Anything else reaches the
 * model as its JSON text, so nothing the user sent is lost.
 */
export function answerFromResume(resume: unknown): string {
  if (typeof resume === "string") return resume;
  const decision = isObject(resume) && Array.isArray(resume.decisions) ? resume.decisions[0] : Array.isArray(resume) ? resume[0] : undefined;
  return (isObject(decision) ? answerFromDecision(decision) : undefined) ?? JSON.stringify(resume ?? null);
}

function answerFromDecision(decision: Json): string | undefined {
  switch (decision.type) {
    case "approve":
    case "accept":
      return "The user approved, without a written answer.";
    case "reject":
    case "ignore": {
      const message = typeof decision.message === "string" ? decision.message.trim() : "";
      return message ? `The user declined to answer: ${message}` : "The user declined to answer.";
    }
    case "response":
      return typeof decision.args === "string" ? decision.args : undefined;
    case "edit": {
      // LangChain's edited action (snake_case over the API, camelCase from JS clients), or the agent-inbox `args: { action, args }`.
      const action = decision.edited_action ?? decision.editedAction ?? decision.args;
      const args = isObject(action) && isObject(action.args) ? action.args : undefined;
      if (!args) return undefined;
      return typeof args.answer === "string" && args.answer.trim() !== "" ? args.answer : JSON.stringify(args);
    }
    default:
      return undefined;
  }
}
