/** Which slash command a message ran: recorded on the expanded message (additional_kwargs.slash_command). */
export interface CommandInvocation {
  /** A plugin command, or a user-invocable skill (public, custom or plugin). */
  readonly kind: "command" | "skill";
  readonly name: string;
  /** How it is invoked: `/<plugin>:<name>` for plugin entries, `/<name>` for public and custom skills. */
  readonly invocation: string;
  readonly plugin?: string;
  /** For a skill: its identity (`public:notes`, `plugin:sales:call-prep`). */
  readonly identity?: string;
  /** What the user typed as the command (`/sales:call-prep`, `/call-prep`). */
  readonly typed: string;
  readonly arguments: { readonly raw: string; readonly positional: readonly string[] };
}

/** What a user message resolves to: not a command, an expansion, or an error for the user (never a throw). */
export type CommandResolution =
  | { readonly kind: "none" }
  | { readonly kind: "expanded"; readonly text: string; readonly command: CommandInvocation }
  | {
      readonly kind: "error";
      readonly error: { readonly code: "COMMAND_NOT_FOUND" | "COMMAND_AMBIGUOUS"; readonly message: string; readonly suggestions: readonly string[] };
    };
