import { identifierCase } from "./identifier-case.js";

/** The type names one generated file has handed out (shared by its Input and Response converters). */
export class TypeNamePool {
  readonly #taken: Set<string>;

  /** `reserved`: names the file already uses or must not shadow. */
  constructor(reserved: Iterable<string>) {
    this.#taken = new Set(reserved);
  }

  /** A PascalCase name not yet taken in the file: `Filter`, then `Filter2`, ... */
  take(seed: string): string {
    const base = identifierCase.pascal(seed, "Definition");
    let name = base;
    for (let n = 2; this.#taken.has(name); n++) name = `${base}${n}`;
    this.#taken.add(name);
    return name;
  }
}
