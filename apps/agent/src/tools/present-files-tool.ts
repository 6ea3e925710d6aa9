import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import { ThinktankError } from "@thinktank/core";
import { artifactsOf, presentFiles, type PresentFilesOptions, type ThreadArtifact } from "@thinktank/files";
import type { VirtualFileSystem } from "@thinktank/sandbox";
import { withCodedErrors } from "./tool-failure.js";

export const presentFilesToolName = "present_files";

/**
 * `present_files(paths)`: shows files the model made (under /mnt/user-data/outputs or the
 * workspace) to the user. The result's artifact is the list of ThreadArtifact (path, name, size,
 * mime_type, url); the graph's tools node copies it to the message's additional_kwargs.artifacts
 * and the state's `artifacts`, and the AI message that answers next carries it too. A refused path
 * fails the call with `CODE: message` naming each refused path.
 */
export function createPresentFilesTool(files: VirtualFileSystem, threadId: string, options: PresentFilesOptions = {}): StructuredToolInterface {
  return tool(
    ({ paths }: { paths: string[] }) =>
      withCodedErrors(async (): Promise<[string, ThreadArtifact[]]> => {
        const result = await presentFiles(files, threadId, paths, options);
        if (!result.ok) throw new ThinktankError(result.code, result.message);
        const listed = result.artifacts.map((artifact) => `${artifact.path} (${artifact.size} bytes)`).join(", ");
        return [`Shown to the user: ${listed}`, [...result.artifacts]];
      }),
    {
      name: presentFilesToolName,
      description: "Show the user files you made under /mnt/user-data/outputs or the workspace, to open or download.",
      schema: { type: "object", properties: { paths: { type: "array", items: { type: "string" } } }, required: ["paths"], additionalProperties: false },
      responseFormat: "content_and_artifact",
    },
  );
}

/** The artifacts a present_files result recorded (none for another tool's message, or an error). */
export function presentedArtifacts(message: BaseMessage): ThreadArtifact[] {
  if (!(message instanceof ToolMessage) || message.name !== presentFilesToolName || message.status === "error") return [];
  return artifactsOf(message.artifact);
}

/** The artifacts the tool results since the last AI message carry (additional_kwargs.artifacts): what the next answer shows. */
export function artifactsSinceLastAnswer(messages: readonly BaseMessage[]): ThreadArtifact[] {
  const artifacts: ThreadArtifact[] = [];
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as BaseMessage;
    if (message.getType() !== "tool") break;
    artifacts.unshift(...artifactsOf(message.additional_kwargs?.artifacts));
  }
  return artifacts;
}
