import { defaultStopWords } from "@thinktank/search";

/**
 * The words skill search drops: the engine's stop words, their inflections (the engine stops
 * "want" and "need" but not "wanted", "needed"), and the filler of chatty, typed or non-native
 * requests ("honestly", "idk", "stuff", "somebody"), which otherwise match a random skill's body
 * and count as a concept it covers.
 */
export const skillStopWords: ReadonlySet<string> = new Set([
  ...defaultStopWords,
  "wanted", "wanting", "wants", "needed", "needing", "liked", "likes", "uses", "used",
  "really", "honestly", "actually", "basically", "maybe",
  "probably", "perhaps", "sure", "thing", "things", "stuff", "something", "anything", "everything",
  "someone", "anyone", "somebody", "everyone", "everybody", "lot", "lots", "bit", "kinda", "sorta",
  "able", "sorry", "hello", "hiya", "yes", "yeah", "im", "ive", "dont", "doesnt", "cant", "wont",
  "isnt", "arent", "didnt", "u", "ur", "plz", "pls", "thx", "tho", "idk", "btw", "lol", "guys",
  "guess", "wondering", "supposed", "quite", "pretty",
]);
