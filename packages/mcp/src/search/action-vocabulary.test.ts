import { looksPlural, TextAnalyzer } from "@thinktank/search";
import { describe, expect, it } from "vitest";
import { ActionVocabulary, shareAny } from "./action-vocabulary.js";
import { defaultActionGroups, type ActionGroup } from "./default-actions.js";

const analyzer = new TextAnalyzer();
const groups: ActionGroup[] = [
  { name: "list", reads: true, verbs: ["list", "all"] },
  { name: "read", reads: true, verbs: ["get", "show", "look up"] },
  { name: "create", reads: false, verbs: ["create", "add"], leadingVerbs: ["comment"] },
  { name: "delete", reads: false, verbs: ["delete", "remove"] },
];
const vocabulary = new ActionVocabulary(groups, analyzer);
const profile = (text: string) => {
  const words = text.split(" ");
  return vocabulary.profile(analyzer.terms(text), words.map(looksPlural));
};

describe("ActionVocabulary", () => {
  it("names the groups of every verb and, separately, of the leading one", () => {
    expect(profile("create a board and delete the old one")).toMatchObject({ groups: [2, 3], leading: [2] });
    expect(profile("the board to delete")).toMatchObject({ groups: [3], leading: [] });
  });

  it("matches verbs of several words only as a sequence", () => {
    expect(profile("look up the user").leading).toEqual([1]);
    expect(profile("look at the user").groups).toEqual([]);
  });

  it("counts a leading-only verb only at the start", () => {
    expect(profile("comment on the issue").leading).toEqual([2]);
    expect(profile("show the comment").groups).toEqual([1]);
  });

  it("tells one thing from many: list words and plural objects mean many, get means one", () => {
    expect(profile("list tables").number).toBe(1);
    expect(profile("show dashboards").number).toBe(1);
    expect(profile("get dashboard").number).toBe(-1);
    expect(profile("create board").number).toBe(0);
  });

  it("knows which groups only read", () => {
    expect(vocabulary.readingGroups()).toEqual([0, 1]);
    expect(vocabulary.reads(2)).toBe(false);
  });

  it("compiles the default groups with no verb lost to stop words", () => {
    const defaults = new ActionVocabulary(defaultActionGroups, analyzer);
    expect(defaults.groupCount).toBe(defaultActionGroups.length);
    for (const group of defaultActionGroups) for (const verb of group.verbs) expect(analyzer.terms(verb).length, `${group.name}: ${verb}`).toBeGreaterThan(0);
  });
});

describe("shareAny", () => {
  it("intersects ascending lists", () => {
    expect(shareAny([1, 4, 9], [2, 9])).toBe(true);
    expect(shareAny([1, 4], [2, 3, 5])).toBe(false);
    expect(shareAny([], [1])).toBe(false);
  });
});
