// Public API of @thinktank/models: every export is listed here by name.
export { createChatModel, chatModelFor } from "./create-chat-model.js";
export { resolveModel, describeModelChoice, environmentModels } from "./resolve-model.js";
export type { ResolvedModel } from "./resolve-model.js";
export { ScriptedChatModel } from "./scripted/scripted-chat-model.js";
export type { ScriptedChatModelOptions } from "./scripted/scripted-chat-model.js";
export { parseChatScript, loadChatScript } from "./scripted/load-chat-script.js";
export { defaultChatScript } from "./scripted/default-chat-script.js";
export { chatScriptSchema } from "./scripted/chat-script-schema.js";
export type { ChatScript, ChatScriptRule, ChatScriptConditions, ChatScriptAnswer, ChatScriptToolCall } from "./scripted/chat-script-types.js";
