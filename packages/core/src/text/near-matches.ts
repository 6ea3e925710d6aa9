/** Levenshtein distance with adjacent transpositions counted as one edit (optimal string alignment). */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, beforePrevious[j - 2]! + 1);
      current.push(value);
    }
    beforePrevious = previous;
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The candidates closest to what was typed: within a distance that grows with the length
 * (at least 2), or containing it; best first, at most `limit`.
 */
export function nearMatches(typed: string, candidates: readonly string[], limit = 5): string[] {
  const lowered = typed.toLowerCase();
  const allowed = Math.max(2, Math.floor(lowered.length / 3));
  return candidates
    .map((candidate) => {
      const name = candidate.toLowerCase();
      const bare = name.includes(":") ? name.slice(name.indexOf(":") + 1) : name;
      const distance = Math.min(editDistance(lowered, name), editDistance(lowered, bare));
      const contains = lowered.length >= 3 && (name.includes(lowered) || lowered.includes(bare));
      return { candidate, distance: contains ? Math.min(distance, allowed) : distance };
    })
    .filter((scored) => scored.distance <= allowed)
    .sort((x, y) => x.distance - y.distance || (x.candidate < y.candidate ? -1 : 1))
    .slice(0, limit)
    .map((scored) => scored.candidate);
}
