import { describe, expect, it } from "vitest";
import { defaultSynonymGroups } from "./default-synonyms.js";
import { defaultPhraseHints } from "./default-phrase-hints.js";
import { PhraseHintTable } from "./phrase-hints.js";
import { planQuery } from "./query-plan.js";
import { SynonymTable } from "./synonym-table.js";
import { TextAnalyzer } from "../text/text-analyzer.js";

const analyzer = new TextAnalyzer();
const synonyms = new SynonymTable(defaultSynonymGroups, analyzer);
const phrases = new PhraseHintTable(defaultPhraseHints, analyzer);
const weights = { synonym: 0.5, quoted: 0.4, context: 0.5, entity: 0.5 };
const fullPlan = (query: string, known: string[] = []) => planQuery(query, { analyzer, synonyms, phrases, weights, isKnownTerm: (term) => known.includes(term) });
const plan = (query: string, known: string[] = []) => fullPlan(query, known).concepts;
const alternativesOf = (query: string, term: string, known: string[] = []) =>
  plan(query, known)
    .find((concept) => concept.term === term)
    ?.alternatives.map((alternative) => `${alternative.terms.join("+")}@${alternative.weight}`);

describe("planQuery", () => {
  it("makes one concept per distinct word and adds synonyms at the synonym weight", () => {
    expect(plan("delete delete the repo").map((concept) => concept.term)).toEqual(["delet", "repo"]);
    expect(alternativesOf("remove a ticket", "ticket")).toEqual(expect.arrayContaining(["ticket@1", "issu@0.5", "bug@0.5"]));
  });

  it("matches multi-word synonyms in both directions", () => {
    expect(alternativesOf("open a pr", "pr")).toEqual(expect.arrayContaining(["pull+request@0.5", "merg+request@0.5"]));
    expect(alternativesOf("review the pull request", "pull")).toContain("pr@0.5");
    expect(alternativesOf("review the pull request", "request")).toContain("pr@0.5");
  });

  it("skips a synonym that is itself a word of the query", () => {
    expect(alternativesOf("create new page", "creat")).not.toContain("new@0.5");
  });

  it("joins two adjacent words into a word the index knows", () => {
    expect(alternativesOf("sync the app in argo cd", "argo", ["argocd"])).toContain("argocd@1");
    expect(alternativesOf("sync the app in argo cd", "argo", [])).not.toContain("argocd@1");
    expect(plan("for the record", ["forth"]).map((concept) => concept.term)).toEqual(["record"]);
  });

  it("treats a CamelCase product name as one word that its parts also match", () => {
    expect(plan("open an issue on GitHub").map((concept) => concept.term)).toEqual(["open", "issu", "github"]);
    expect(alternativesOf("open an issue on GitHub", "github")).toContain("git+hub@1");
  });

  it("weighs words that appear only inside quotes lower", () => {
    expect(alternativesOf("post 'deploy finished' on slack", "finish")?.[0]).toBe("finish@0.4");
    expect(alternativesOf("post 'deploy finished' on slack", "post")?.[0]).toBe("post@1");
    expect(alternativesOf("it's the customer's invoice", "custom")?.[0]).toBe("custom@1");
  });

  it("weighs a name or message after called/named/titled/saying as content", () => {
    expect(alternativesOf("create a repo called payments-api, then open it", "payment")?.[0]).toBe("payment@0.4");
    expect(alternativesOf("create a repo called payments-api, then open it", "open")?.[0]).toBe("open@1");
    expect(alternativesOf("post an update saying we ship friday", "ship")?.[0]).toBe("ship@0.4");
  });

  it("turns who/when/where into the kind of thing asked for", () => {
    const concepts = plan("who is in the channel");
    expect(concepts.map((concept) => concept.term).sort()).toEqual(["channel", "who"]);
    expect(alternativesOf("who is in the channel", "who")).toEqual(["user@0.5", "member@0.5", "peopl@0.5"]);
  });

  it("answers no concepts for a query of filler words", () => {
    expect(plan("can you please do it for me")).toEqual([]);
  });

  it("joins words a few places apart into a word the index knows, at the synonym weight", () => {
    expect(alternativesOf("log 2 hours of work on this issue", "log", ["worklog"])).toContain("worklog@0.5");
    expect(alternativesOf("log 2 hours of work on this issue", "log", [])).not.toContain("worklog@0.5");
  });

  it("turns a phrase of filler words into a concept of its own, and hints on content words into alternatives", () => {
    expect(alternativesOf("who am I on linear", "who am i")).toEqual(expect.arrayContaining(["current+user@0.5", "whoami@0.5", "viewer@0.5"]));
    expect(alternativesOf("read both files", "both")).toEqual(["both@1", "multipl@0.5", "batch@0.5", "bulk@0.5"]);
  });

  it("adds the kind of a typed value as a concept and weighs the value's own words as content", () => {
    const concepts = plan("show the contents of notes.md");
    expect(concepts.find((concept) => concept.term === "file")?.alternatives).toEqual([{ terms: ["file"], weight: 0.5, source: "entity" }]);
    expect(alternativesOf("show the contents of notes.md", "note")?.[0]).toBe("note@0.4");
  });

  it("weighs words of a subordinate clause as context and leaves them out of the intent", () => {
    const query = "confirm with the user before sending the email";
    expect(alternativesOf(query, "send")?.[0]).toBe("send@0.5");
    expect(alternativesOf(query, "confirm")?.[0]).toBe("confirm@1");
    expect(fullPlan(query).intent.terms).toEqual(["confirm", "user"]);
  });

  it("records the intent: the terms outside quotes, which look plural, and whether it is a question", () => {
    expect(fullPlan("which tables are in this base?").intent).toEqual({ terms: ["tabl", "base"], plural: [true, false], question: true });
    expect(fullPlan("post 'deploy done' in slack").intent).toMatchObject({ terms: ["post", "slack"], question: false });
    expect(fullPlan("What’s the schema?").intent.question).toBe(true);
  });
});
