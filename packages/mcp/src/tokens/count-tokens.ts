import { createRequire } from "node:module";
import type * as O200kBase from "gpt-tokenizer/encoding/o200k_base";

let o200k: typeof O200kBase | undefined;

/**
 * Tokens in a text under o200k_base (the GPT-4o family's encoding), the yardstick every token
 * figure in Thinktank uses. Text that happens to spell a special token ("<|endoftext|>") is
 * counted as ordinary text, never rejected. The encoding loads on the first count (synchronously,
 * through its CommonJS build): its tables cost every start-up ~50 ms of CPU, and the servers count
 * nothing before their first request.
 */
export function countTokens(text: string): number {
  if (text === "") return 0;
  o200k ??= createRequire(import.meta.url)("gpt-tokenizer/encoding/o200k_base") as typeof O200kBase;
  return o200k.countTokens(text, { disallowedSpecial: new Set() });
}
