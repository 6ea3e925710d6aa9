import { describe, expect, it } from "vitest";
import { answerFromResume, humanInputInterrupt } from "./human-input-answer.js";

describe("request_human_input's interrupt and answers", () => {
  it("asks in LangChain's human-in-the-loop shape, keeping the question", () => {
    expect(humanInputInterrupt("Which colour?")).toEqual({
      question: "Which colour?",
      action_requests: [{ name: "request_human_input", args: { question: "Which colour?", answer: "" }, description: "Which colour?" }],
      review_configs: [{ action_name: "request_human_input", allowed_decisions: ["approve", "edit", "reject"] }],
    });
  });

  it("takes a plain string, LangChain's decisions and the agent-inbox responses", () => {
    const edited = { name: "request_human_input", args: { question: "Which colour?", answer: "teal" } };
    expect(answerFromResume("teal")).toBe("teal");
    expect(answerFromResume({ decisions: [{ type: "edit", edited_action: edited }] })).toBe("teal");
    expect(answerFromResume({ decisions: [{ type: "edit", editedAction: edited }] })).toBe("teal");
    expect(answerFromResume({ decisions: [{ type: "approve" }] })).toBe("The user approved, without a written answer.");
    expect(answerFromResume({ decisions: [{ type: "reject", message: " not now " }] })).toBe("The user declined to answer: not now");
    expect(answerFromResume({ decisions: [{ type: "reject" }] })).toBe("The user declined to answer.");
    expect(answerFromResume([{ type: "response", args: "teal" }])).toBe("teal");
    expect(answerFromResume([{ type: "accept", args: null }])).toBe("The user approved, without a written answer.");
    expect(answerFromResume([{ type: "edit", args: { action: "request_human_input", args: { answer: "teal" } } }])).toBe("teal");
    expect(answerFromResume([{ type: "ignore", args: null }])).toBe("The user declined to answer.");
  });

  it("hands anything else to the model as JSON, losing nothing", () => {
    expect(answerFromResume({ colour: "teal" })).toBe('{"colour":"teal"}');
    expect(answerFromResume({ decisions: [{ type: "edit", edited_action: { name: "x", args: { question: "changed" } } }] })).toBe('{"question":"changed"}');
    expect(answerFromResume({ decisions: [{ type: "shrug" }] })).toBe('{"decisions":[{"type":"shrug"}]}');
    expect(answerFromResume(null)).toBe("null");
  });
});
