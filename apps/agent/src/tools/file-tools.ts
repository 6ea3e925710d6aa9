import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import { FileOperations, type FileOperationsOptions, type VirtualFileSystem } from "@thinktank/sandbox";
import { withCodedErrors } from "./tool-failure.js";

const pathProperty = { type: "string", description: "Absolute path under /mnt/user-data or /mnt/skills." };

/**
 * read_file, write_file, str_replace and ls over the virtual folders of one thread: the sandbox
 * package's FileOperations as LangChain tools, its refusals as `CODE: message` errors.
 */
export function createFileTools(files: VirtualFileSystem, options: FileOperationsOptions = {}): StructuredToolInterface[] {
  const operations = new FileOperations(files, options);

  const readFile = tool(({ path, offset, limit }: { path: string; offset?: number; limit?: number }) => withCodedErrors(() => operations.read(path, offset, limit)), {
    name: "read_file",
    description: "Read a text file (a skill's SKILL.md and the files it points to, or your own files). offset/limit read a range of lines.",
    schema: {
      type: "object",
      properties: {
        path: pathProperty,
        offset: { type: "integer", minimum: 1, description: "First line to read (1-based)." },
        limit: { type: "integer", minimum: 1, description: "Number of lines to read." },
      },
      required: ["path"],
      additionalProperties: false,
    },
  });

  const writeFile = tool(({ path, content, append }: { path: string; content: string; append?: boolean }) => withCodedErrors(() => operations.write(path, content, append)), {
    name: "write_file",
    description: "Create or overwrite a text file under /mnt/user-data/workspace or /mnt/user-data/outputs (folders are created). append adds to the end instead.",
    schema: {
      type: "object",
      properties: { path: pathProperty, content: { type: "string", description: "The whole text to write." }, append: { type: "boolean", description: "Add to the end of the file instead of replacing it." } },
      required: ["path", "content"],
      additionalProperties: false,
    },
  });

  const strReplace = tool(
    ({ path, old_str: oldText, new_str: newText, replace_all: replaceAll }: { path: string; old_str: string; new_str: string; replace_all?: boolean }) =>
      withCodedErrors(() => operations.replace(path, oldText, newText, replaceAll)),
    {
      name: "str_replace",
      description: "Edit a file under /mnt/user-data/workspace or /mnt/user-data/outputs: replace old_str (which must appear exactly once, unless replace_all) with new_str.",
      schema: {
        type: "object",
        properties: {
          path: pathProperty,
          old_str: { type: "string", description: "The exact text to replace, with enough context to be unique." },
          new_str: { type: "string", description: "The replacement text." },
          replace_all: { type: "boolean", description: "Replace every occurrence." },
        },
        required: ["path", "old_str", "new_str"],
        additionalProperties: false,
      },
    },
  );

  const ls = tool(({ path }: { path: string }) => withCodedErrors(() => operations.list(path)), {
    name: "ls",
    description: "List a folder: /mnt/skills/... (skills) or /mnt/user-data/{workspace,uploads,outputs}/... Folders end with '/'.",
    schema: { type: "object", properties: { path: pathProperty }, required: ["path"], additionalProperties: false },
  });

  return [readFile, writeFile, strReplace, ls];
}
