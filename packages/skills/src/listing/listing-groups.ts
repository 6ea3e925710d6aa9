/**
 * "a 12, b 3, c 8, and 40 more groups (160)": counts by group in their given order, cut to
 * `budgetChars` so that the line stays the same size however many groups there are.
 */
export function listGroups(counts: ReadonlyMap<string, number>, budgetChars: number): string {
  const parts: string[] = [];
  let used = 0;
  let restGroups = 0;
  let restCount = 0;
  for (const [group, count] of counts) {
    const part = `${group} ${count}`;
    if (restGroups === 0 && used + part.length + 2 <= budgetChars) {
      parts.push(part);
      used += part.length + 2;
    } else {
      restGroups++;
      restCount += count;
    }
  }
  if (restGroups > 0) parts.push(`and ${restGroups} more group${restGroups === 1 ? "" : "s"} (${restCount})`);
  return parts.join(", ");
}
