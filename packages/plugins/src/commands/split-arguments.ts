/**
 * Splits a command's argument string into positional arguments, the way a shell user expects:
 * whitespace separates, "double" or 'single' quotes keep an argument whole (the quotes go), and
 * inside double quotes \" is a quote. An unclosed quote runs to the end of the string.
 */
export function splitArguments(raw: string): string[] {
  const args: string[] = [];
  let current = "";
  let inArgument = false;
  let quote: '"' | "'" | undefined;
  for (let index = 0; index < raw.length; index++) {
    const character = raw[index]!;
    if (quote) {
      if (character === "\\" && quote === '"' && (raw[index + 1] === '"' || raw[index + 1] === "\\")) {
        current += raw[++index];
      } else if (character === quote) {
        quote = undefined;
      } else {
        current += character;
      }
      continue;
    }
    if (character === '"' || character === "'") {
      quote = character;
      inArgument = true;
    } else if (/\s/.test(character)) {
      if (inArgument) args.push(current);
      current = "";
      inArgument = false;
    } else {
      current += character;
      inArgument = true;
    }
  }
  if (inArgument) args.push(current);
  return args;
}
