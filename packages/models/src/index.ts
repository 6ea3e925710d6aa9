// Public API of @thinktank/models: what other packages and apps use, and what README.md documents.
// Everything else is internal to the package.
export { createChatModel } from "./create-chat-model.js";
export { resolveModel, describeModelChoice } from "./resolve-model.js";
export { anthropicMemoryTool } from "./anthropic-memory-tool.js";
export { ScriptedChatModel } from "./scripted/scripted-chat-model.js";
export type { ScriptedChatModelOptions } from "./scripted/scripted-chat-model.js";
export { parseChatScript } from "./scripted/load-chat-script.js";
export type { ChatScript } from "./scripted/chat-script-types.js";
