import type { BaseMessage } from "@langchain/core/messages";

/**
 * What a message rebuilt for the model or for storage keeps of the original: its content, id, name
 * and response metadata (the fields a UI or a provider's cache matches on). Callers override the
 * content or additional_kwargs they change.
 */
export function messageFields(message: BaseMessage) {
  return {
    content: message.content,
    ...(message.id ? { id: message.id } : {}),
    ...(message.name ? { name: message.name } : {}),
    ...(message.response_metadata && Object.keys(message.response_metadata).length > 0 ? { response_metadata: message.response_metadata } : {}),
  };
}
