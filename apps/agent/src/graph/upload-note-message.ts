import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import type { UploadNote } from "@thinktank/files";
import { messageFields } from "./message-fields.js";

/** Where a user message stores the note of the files uploaded before it (additional_kwargs key). */
export const uploadNoteKey = "uploaded_files";

/**
 * The same user message (same id, same content) with the upload note stored once, in
 * additional_kwargs; messageForModel renders it after the message's text in the copy the model gets.
 * A note the client put there itself is replaced.
 */
export function storeUploadNote(message: BaseMessage, note: UploadNote): HumanMessage {
  return new HumanMessage({ ...messageFields(message), additional_kwargs: { ...message.additional_kwargs, [uploadNoteKey]: note } });
}
