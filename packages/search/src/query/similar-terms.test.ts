import { describe, expect, it } from "vitest";
import { editDistance, SimilarTerms } from "./similar-terms.js";

describe("SimilarTerms", () => {
  const terms = new SimilarTerms([
    ["dockerfil", 3],
    ["docker", 5],
    ["secur", 9],
    ["color", 4],
    ["imag", 6],
    ["case", 30],
    ["cake", 1],
  ]);

  it("finds the index term a typo or a British spelling away, comparing the word as typed and its stem", () => {
    expect(terms.find("dokerfile", "dokerfil")).toEqual(["dockerfil"]);
    expect(terms.find("securty", "securti")).toEqual([]);
    expect(new SimilarTerms([["secur", 9]], { twoEditsFrom: 7 }).find("securty", "securti")).toEqual(["secur"]);
    expect(terms.find("colour", "colour")).toEqual(["color"]);
    // Two letters swapped are one edit.
    expect(terms.find("imgae", "imga")).toEqual(["imag"]);
  });

  it("leaves short words, words with digits and other first letters alone", () => {
    expect(terms.find("cate", "cate")).toEqual([]);
    expect(terms.find("docker2", "docker2")).toEqual([]);
    expect(terms.find("bocker", "bocker")).toEqual([]);
  });

  it("bounds the edit distance", () => {
    expect(editDistance("kitten", "sitting", 3)).toBe(3);
    expect(editDistance("kitten", "sitting", 1)).toBe(2);
    expect(editDistance("ab", "ba", 2)).toBe(1);
    expect(editDistance("same", "same", 0)).toBe(0);
  });
});
