import fs from "node:fs";
import { Ajv, type ValidateFunction } from "ajv";
import { load as parseYaml } from "js-yaml";
import { ThinktankError } from "@thinktank/core";
import { chatScriptSchema } from "./chat-script-schema.js";
import type { ChatScript } from "./chat-script-types.js";

// Compiled once per process: compiling the schema cost more than a whole scripted run.
let compiled: ValidateFunction | undefined;
/** Scripts read from files, by path, reused while the file's size and mtime stay the same (every run builds a model). */
const loaded = new Map<string, { readonly stamp: string; readonly script: ChatScript }>();

/** Validates a chat script given as an object; `source` names it in error messages. */
export function parseChatScript(value: unknown, source = "(chat script)"): ChatScript {
  const validate = (compiled ??= new Ajv({ allErrors: true, strict: true }).compile(chatScriptSchema));
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

/**
 * Reads a chat script from a JSON or YAML file (YAML is a superset of JSON, so one parser serves both).
 * An unchanged file (same size and mtime) answers from memory; an edited one is read again.
 */
export function loadChatScript(file: string): ChatScript {
  let text: string;
  let stamp: string;
  try {
    const stat = fs.statSync(file);
    stamp = `${stat.size}:${stat.mtimeMs}`;
    const cached = loaded.get(file);
    if (cached?.stamp === stamp) return cached.script;
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
  const script = parseChatScript(parsed, file);
  loaded.set(file, { stamp, script });
  return script;
}
