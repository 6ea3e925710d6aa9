import { describe, expect, it } from "vitest";
import { tokensByTurn } from "./run-tokens.js";

const run = (id: string, at: string, kwargs: Record<string, unknown>) => ({ run_id: id, created_at: `2026-01-01T00:00:0${at}Z`, kwargs });
const message = { input: { messages: [{ type: "human", content: "hi" }] } };
const resume = { command: { resume: "blue" } };

describe("tokens per turn from the runs' figures", () => {
  it("adds a turn's resumed runs to the run its message started, in creation order", () => {
    const runs = [run("c", "3", message), run("a", "1", message), run("b", "2", resume)];
    const figures = new Map([
      ["a", { input: 100, output: 10, estimated: true }],
      ["b", { input: 50, output: 5 }],
      ["c", { input: 7, output: 1 }],
    ]);
    expect(tokensByTurn(runs, figures)).toEqual([
      { input: 150, output: 15, estimated: true, runs: 2 },
      { input: 7, output: 1, estimated: false, runs: 1 },
    ]);
  });

  it("leaves a turn without figures (a run still going) empty", () => {
    expect(tokensByTurn([run("a", "1", message), run("b", "2", message)], new Map([["b", { input: 1, output: 1 }]]))).toEqual([undefined, { input: 1, output: 1, estimated: false, runs: 1 }]);
  });
});
