/**
 * Words that carry no meaning for choosing a tool: English function words, the polite filler of
 * typed requests ("can you please ..."), and "use"/"tool", which nearly every tool description says.
 * Words that name an action or a scope ("all", "new", "up") are not here, so they still count.
 * "my"/"me" are filler: nearly every request is about the user's own things, and tools with "my"
 * in their names (get_my_tasks) still match on their other words.
 */
export const defaultStopWords: ReadonlySet<string> = new Set([
  "a", "an", "the", "and", "or", "but", "nor", "of", "to", "in", "on", "for", "with", "by", "from",
  "at", "as", "into", "onto", "about", "per", "than", "then", "so", "if", "else", "also",
  "is", "are", "was", "were", "be", "been", "being", "am", "it", "its", "it's", "this", "that",
  "these", "those", "there", "here", "i", "me", "my", "mine", "you", "your", "yours", "we", "our",
  "ours", "us", "they", "them", "their", "he", "she", "his", "her", "him", "one's",
  "do", "does", "did", "doing", "can", "could", "would", "should", "will", "shall", "may",
  "might", "must", "please", "pls", "kindly", "want", "wanna", "need", "needs", "like", "let",
  "lets", "let's", "just", "some", "any", "what", "which", "who", "whom", "whose", "when", "where",
  "why", "how", "hey", "hi", "thanks", "thank", "ok", "okay", "don", "doesn", "isn", "aren", "t",
  "s", "ll", "ve", "re", "d", "m", "etc", "e", "g", "eg", "ie", "via", "using", "use", "tool",
  "tools",
]);
