import fs from "node:fs";
import { Ajv } from "ajv";
import { load as parseYaml } from "js-yaml";
import { ThinktankError } from "@thinktank/core";
import { chatScriptSchema } from "./chat-script-schema.js";
import type { ChatScript } from "./chat-script-types.js";

/** Validates a chat script given as an object; `source` names it in error messages. */
export function parseChatScript(value: unknown, source = "(chat script)"): ChatScript {
  const validate = new Ajv({ allErrors: true, strict: true }).compile(chatScriptSchema);
  if (!validate(value)) {
    const problems = (validate.errors ?? []).map((e) => {
      const key = e.instancePath.replaceAll("/", ".").replace(/^\./, "") || "(top level)";
      const extra = e.keyword === "additionalProperties" ? ` '${String(e.params.additionalProperty)}'` : "";
      return `${source}: ${key}: ${e.message ?? "is invalid"}${extra}`;
    });
    throw new ThinktankError("VALIDATION_FAILED", problems.join("\n"), { details: { problems } });
  }
  const script = value as unknown as ChatScript;
  script.rules.forEach((rule, index) => {
    const pattern = rule.when?.last_human;
    if (pattern === undefined) return;
    try {
      new RegExp(pattern, "i");
    } catch (error) {
      throw new ThinktankError("VALIDATION_FAILED", `${source}: rules.${index}.when.last_human: not a valid regular expression: ${(error as Error).message}`);
    }
  });
  return script;
}

/** Reads a chat script from a JSON or YAML file (YAML is a superset of JSON, so one parser serves both). */
export function loadChatScript(file: string): ChatScript {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    throw new ThinktankError("NOT_FOUND", `chat script ${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, { cause: error });
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(text, { filename: file });
  } catch (error) {
    throw new ThinktankError("INVALID_YAML", `chat script ${file} is not valid JSON or YAML: ${(error as Error).message}`, { cause: error });
  }
  return parseChatScript(parsed, file);
}
