/** JSON Schema of a chat script (see chat-script-types.ts); unknown keys are typos and are rejected. */
const answerProperties = {
  reply: { type: "string" },
  tool_calls: {
    type: "array",
    items: {
      type: "object",
      additionalProperties: false,
      required: ["name"],
      properties: {
        name: { type: "string", minLength: 1 },
        args: { type: "object" },
      },
    },
  },
} as const;

export const chatScriptSchema = {
  type: "object",
  additionalProperties: false,
  required: ["rules"],
  properties: {
    name: { type: "string" },
    rules: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        properties: {
          id: { type: "string" },
          when: {
            type: "object",
            additionalProperties: false,
            properties: {
              last_human: { type: "string" },
              user_typed: { type: "string" },
              slash_command: { type: "boolean" },
              last_tool_result: { type: "string" },
              last_tool_name: { type: "string" },
              system: { type: "string" },
              step: { type: "integer", minimum: 0 },
              tool_available: { type: "string" },
              after_tool: { type: "boolean" },
            },
          },
          ...answerProperties,
        },
      },
    },
    fallback: { type: "object", additionalProperties: false, properties: answerProperties },
  },
} as const;
