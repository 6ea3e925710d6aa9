import { codeDefinitions, createCodeModeTools } from "@thinktank/codemode";
import { describe, expect, it } from "vitest";
import { createRequestHumanInputTool } from "../graph/request-human-input-tool.js";
import { toolDefinition } from "./tool-definition.js";

describe("toolDefinition", () => {
  it("gives a JSON Schema tool its schema as written", () => {
    const definition = toolDefinition(createRequestHumanInputTool());
    expect(definition).toEqual({
      name: "request_human_input",
      description: expect.stringContaining("Ask the user"),
      input_schema: { type: "object", properties: { question: { type: "string", description: expect.any(String) } }, required: ["question"], additionalProperties: false },
    });
  });

  it("agrees with codemode's own definitions of its zod tools (so token counts agree)", () => {
    const settings = { defaultTimeoutSeconds: 30, maxTimeoutSeconds: 300, defaultLimit: 10, maxLimit: 50, maxStdoutBytes: 20000 };
    const codeMode = { toolSettings: () => settings } as unknown as Parameters<typeof createCodeModeTools>[0];
    expect(createCodeModeTools(codeMode, {}).map(toolDefinition)).toEqual(codeDefinitions(settings));
  });
});
