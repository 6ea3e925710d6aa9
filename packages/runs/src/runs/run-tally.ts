import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { BaseMessage } from "@langchain/core/messages";
import type { LLMResult } from "@langchain/core/outputs";
import type { RunFigures } from "./run-figures.js";

/** Counts text as model tokens (the agent passes an o200k counter), for models that report no usage. */
export type TokenCounter = (text: string) => number;

/**
 * What one run spent, counted from its callbacks (LangChain callback handler methods, added to the
 * run's config so nested graphs and sub-agents count too): model tokens as each call reports them
 * (usage_metadata), else counted with `countTokens` when given (`estimated`), and tool calls with
 * those that failed (a thrown error, or a tool message with status `error`). A LangChain handler, so
 * it is awaited where it is called (awaitCallbackHandlers): no count lands after the run ended.
 */
export class RunTally extends BaseCallbackHandler {
  readonly name = "thinktank_run_tally";
  readonly #countTokens: TokenCounter | undefined;
  readonly #prompts = new Map<string, number>();
  #input = 0;
  #output = 0;
  #reported = false;
  #estimated = false;
  #toolCalls = 0;
  #toolErrors = 0;

  constructor(countTokens?: TokenCounter) {
    super();
    this.#countTokens = countTokens;
  }

  override handleChatModelStart(_llm: unknown, messages: BaseMessage[][], runId: string): void {
    if (this.#countTokens) this.#prompts.set(runId, messages.flat().reduce((sum, message) => sum + this.#count(message), 0));
  }

  override handleLLMEnd(output: LLMResult, runId: string): void {
    const prompt = this.#prompts.get(runId);
    this.#prompts.delete(runId);
    for (const generation of output.generations.flat()) {
      const message = (generation as { message?: BaseMessage & { usage_metadata?: { input_tokens?: number; output_tokens?: number } } }).message;
      const usage = message?.usage_metadata;
      if (usage && (usage.input_tokens !== undefined || usage.output_tokens !== undefined)) {
        this.#input += usage.input_tokens ?? 0;
        this.#output += usage.output_tokens ?? 0;
        this.#reported = true;
      } else if (this.#countTokens) {
        this.#input += prompt ?? 0;
        this.#output += message ? this.#count(message) : this.#countTokens(generation.text ?? "");
        this.#estimated = true;
      }
      // One answer per call: the prompt counts once.
      break;
    }
  }

  override handleLLMError(_error: unknown, runId: string): void {
    this.#prompts.delete(runId);
  }

  override handleToolStart(): void {
    this.#toolCalls += 1;
  }

  override handleToolEnd(output: unknown): void {
    if ((output as { status?: unknown } | undefined)?.status === "error") this.#toolErrors += 1;
  }

  override handleToolError(): void {
    this.#toolErrors += 1;
  }

  /** The figures so far (tokens absent when no call reported usage and nothing counts them). */
  figures(): RunFigures {
    const tokens = this.#reported || this.#estimated ? { tokens: { input: this.#input, output: this.#output, total: this.#input + this.#output, ...(this.#estimated ? { estimated: true } : {}) } } : {};
    return { ...tokens, tool_calls: this.#toolCalls, tool_errors: this.#toolErrors };
  }

  #count(message: BaseMessage): number {
    const count = this.#countTokens;
    if (!count) return 0;
    const content = typeof message.content === "string" ? message.content : JSON.stringify(message.content);
    const calls = (message as { tool_calls?: readonly { name: string; args: unknown }[] }).tool_calls;
    return count(content) + (calls && calls.length > 0 ? count(JSON.stringify(calls.map(({ name, args }) => ({ name, args })))) : 0);
  }
}
