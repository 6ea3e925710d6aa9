/**
 * Everyday phrases and what a tool author would call the same thing. Most of these phrases are
 * made of stop words ("who am I", "how long", "at once"), so they are matched on the raw query;
 * their hints are searched at the synonym weight. General phrases only: no tool or server names.
 */
export interface PhraseHint {
  /** Lowercase words matched as a phrase on word boundaries; `|` separates variants. */
  readonly phrase: string;
  readonly hints: readonly string[];
}

export const defaultPhraseHints: readonly PhraseHint[] = [
  // who/when/where: the kind of thing asked for
  { phrase: "who", hints: ["user", "member", "people"] },
  { phrase: "when", hints: ["date", "time", "schedule"] },
  { phrase: "where", hints: ["location", "place", "address"] },
  // the signed-in account
  { phrase: "who am i|logged in as|signed in as|my account|my user|my profile", hints: ["current user", "authenticated user", "viewer", "whoami", "self"] },
  // quantities
  { phrase: "how long ago|how long since|how much time has passed", hints: ["relative time", "ago"] },
  { phrase: "how long|how much time", hints: ["duration", "distance", "length", "time"] },
  { phrase: "how far|distance between|distance from", hints: ["distance"] },
  { phrase: "how big|how large|how much space|how much disk", hints: ["size", "storage", "usage"] },
  { phrase: "how much", hints: ["cost", "price", "amount", "total"] },
  { phrase: "how many", hints: ["count", "number", "total"] },
  // clocks and calendars
  { phrase: "time is it in|time in|time zone|timezone|o'clock in", hints: ["timezone", "convert time", "local time"] },
  { phrase: "on my calendar|on my google calendar|on my outlook calendar|on my schedule|my agenda|my schedule", hints: ["events", "calendar", "meetings"] },
  { phrase: "remind me|reminder|don't let me forget", hints: ["reminder", "schedule", "due"] },
  // many things in one request
  { phrase: "at once|in one go|in one call|in bulk|in a batch|all together|both|several|multiple", hints: ["multiple", "batch", "bulk"] },
  // the person the agent works for
  { phrase: "check with me|ask me|ask the user|with the user|confirm with|my approval|my ok|my okay|wait for me", hints: ["ask user", "human input", "question", "approval", "clarification"] },
  // kinds of questions and the tools that answer them
  { phrase: "why did|why does|why is|why was|what went wrong|what failed|root cause", hints: ["failure", "error", "root cause"] },
  { phrase: "done yet|finished yet|ready yet|still running|how is it going|how's it going|on track|status of", hints: ["status", "progress"] },
  { phrase: "how do i|how to|how can i|how should i", hints: ["documentation", "docs", "guide", "example"] },
  { phrase: "assigned to me|my own|mine", hints: ["current user", "authenticated user", "assignee", "assigned"] },
  // shell commands name the shell; asking for a script or program names code execution
  { phrase: "ls|du|df|pip install|pip|npm install|npm run|npm test", hints: ["bash", "shell", "command", "terminal"] },
  { phrase: "write a script|write a program|quick script|small script|a script that|a program that|some code that", hints: ["execute code", "program", "run code", "sandbox"] },
  // telling people
  { phrase: "tell the team|let the team know|let everyone know|tell everyone|let them know|announce", hints: ["send message", "post message", "notify", "channel", "broadcast"] },
];
