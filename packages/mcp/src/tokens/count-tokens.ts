import { countTokens as countO200k } from "gpt-tokenizer/encoding/o200k_base";

/**
 * Tokens in a text under o200k_base (the GPT-4o family's encoding), the yardstick every token
 * figure in Thinktank uses. Text that happens to spell a special token ("<|endoftext|>") is
 * counted as ordinary text, never rejected.
 */
export function countTokens(text: string): number {
  if (text === "") return 0;
  return countO200k(text, { disallowedSpecial: new Set() });
}
