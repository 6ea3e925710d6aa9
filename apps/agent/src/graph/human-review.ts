/**
 * LangChain's human-in-the-loop shape (langchain's humanInTheLoopMiddleware over the API, as
 * agent-chat-ui and other LangGraph clients read it): an interrupt value lists `action_requests`
 * with a `review_configs` entry for each, and the client resumes with `{ decisions: [...] }`, one
 * decision per action request, in order. request_human_input and tool approval both ask this way.
 */
export interface ActionRequest {
  readonly name: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly description: string;
}

export interface ReviewConfig {
  readonly action_name: string;
  readonly allowed_decisions: readonly ["approve", "edit", "reject"];
}

/** The decisions a review allows (every review here allows all three). */
export function reviewConfigFor(actionName: string): ReviewConfig {
  return { action_name: actionName, allowed_decisions: ["approve", "edit", "reject"] };
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** One reviewer decision, whatever shape the client sent it in. */
export type ReviewDecision =
  | { readonly type: "approve" }
  | { readonly type: "reject"; readonly message: string }
  /** `name` is absent when the client sent none. */
  | { readonly type: "edit"; readonly name?: string; readonly args: Json }
  /** The agent-inbox answer: text typed for the action. */
  | { readonly type: "response"; readonly text: string }
  | { readonly type: "unknown" };

/**
 * The decisions of a resume value, in order: LangChain's `{ decisions: [...] }` (`approve`; `reject`
 * with an optional `message`; `edit` with `edited_action` (snake_case over the API) or
 * `editedAction` (JS clients), `{ name, args }`) and the older agent-inbox list
 * `[{ type: "accept" | "ignore" | "response" | "edit", args }]`. A decision of neither shape is
 * `unknown`; a value that is no list of decisions at all is undefined.
 */
export function decisionsFromResume(resume: unknown): ReviewDecision[] | undefined {
  const list = isObject(resume) && Array.isArray(resume.decisions) ? resume.decisions : Array.isArray(resume) ? resume : undefined;
  return list?.map((decision: unknown) => (isObject(decision) ? readDecision(decision) : { type: "unknown" }));
}

function readDecision(decision: Json): ReviewDecision {
  switch (decision.type) {
    case "approve":
    case "accept":
      return { type: "approve" };
    case "reject":
    case "ignore":
      return { type: "reject", message: typeof decision.message === "string" ? decision.message.trim() : "" };
    case "response":
      return typeof decision.args === "string" ? { type: "response", text: decision.args } : { type: "unknown" };
    case "edit": {
      // LangChain's edited action, or the agent-inbox `args: { action, args }`.
      const action = decision.edited_action ?? decision.editedAction ?? decision.args;
      if (!isObject(action) || !isObject(action.args)) return { type: "unknown" };
      const name = typeof action.name === "string" ? action.name : typeof action.action === "string" ? action.action : undefined;
      return { type: "edit", args: action.args, ...(name !== undefined ? { name } : {}) };
    }
    default:
      return { type: "unknown" };
  }
}
