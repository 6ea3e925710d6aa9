import { describe, expect, it } from "vitest";
import { chooseTool, evaluateModelChoice, type ChatLike } from "../../eval/model-choice.js";
import { parseGoldSet } from "./gold-set.js";

// The model edge is the one place a test double stands in: it answers with a fixed text and records what it was asked.
function fakeModel(answer: (prompt: string) => unknown): ChatLike & { prompts: string[] } {
  const prompts: string[] = [];
  return {
    prompts,
    invoke: async (messages) => {
      const prompt = messages.map(([, content]) => content).join("\n");
      prompts.push(prompt);
      return { content: answer(prompt) };
    },
  };
}

const candidates = [
  { server: "gmail", name: "send_email", score: 3, description: "Sends a new email" },
  { server: "slack", name: "slack_post_message", score: 2, description: "Post a message to a channel" },
];

describe("chooseTool", () => {
  it("shows the numbered candidates with descriptions and reads the number back", async () => {
    const model = fakeModel(() => "2");
    expect(await chooseTool(model, "post in #general", candidates)).toBe(candidates[1]);
    expect(model.prompts[0]).toContain("Request: post in #general");
    expect(model.prompts[0]).toContain("1. gmail/send_email — Sends a new email");
  });

  it("reads structured content and rejects answers that name no candidate", async () => {
    expect(await chooseTool(fakeModel(() => [{ type: "text", text: "Tool 1." }]), "q", candidates)).toBe(candidates[0]);
    expect(await chooseTool(fakeModel(() => "7"), "q", candidates)).toBeUndefined();
    expect(await chooseTool(fakeModel(() => "none of them"), "q", candidates)).toBeUndefined();
  });
});

describe("evaluateModelChoice", () => {
  it("scores the model's picks and how often the right tool was shown at all", async () => {
    const pairs = parseGoldSet(
      [
        { id: "a", split: "dev", query: "email Bob", expected: [{ server: "gmail", tool: "send_email" }] },
        { id: "b", split: "dev", query: "post in slack", expected: [{ server: "slack", tool: "slack_post_message" }] },
        { id: "c", split: "dev", query: "file a jira bug", expected: [{ server: "jira", tool: "jira_post" }] },
      ]
        .map((p) => JSON.stringify(p))
        .join("\n"),
    );
    const quality = await evaluateModelChoice(pairs, () => candidates, fakeModel(() => "1"));
    expect(quality).toEqual({ pairs: 3, accuracy: 1 / 3, reachable: 2 / 3 });
  });
});
