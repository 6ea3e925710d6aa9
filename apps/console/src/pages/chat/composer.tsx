// The message box: Enter sends (Shift+Enter a new line), a draft starting with `/` offers the slash
// commands that complete it (a combobox: arrows move, Enter or Tab completes, Escape closes), and
// files can be attached to the thread (they reach the agent with the next message).
import { useId, useRef, useState, type ChangeEvent, type FormEvent, type KeyboardEvent } from "react";
import { revealBidi } from "../../text/reveal-bidi.js";
import { completionsFor, type SlashCommand } from "./slash-commands.js";

export interface ComposerProps {
  readonly busy: boolean;
  readonly commands: readonly SlashCommand[];
  readonly onSend: (text: string) => void;
  readonly onFiles: (files: File[]) => void;
  readonly onCancel?: () => void;
}

export function Composer({ busy, commands, onSend, onFiles, onCancel }: ComposerProps) {
  const id = useId();
  const [draft, setDraft] = useState("");
  const [active, setActive] = useState(0);
  const [closed, setClosed] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const options = closed ? [] : completionsFor(draft, commands);
  const open = options.length > 0;

  const complete = (command: SlashCommand) => {
    setDraft(`${command.invocation} `);
    setActive(0);
  };
  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    if (busy || draft.trim() === "") return;
    onSend(draft.trim());
    setDraft("");
  };
  const keyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (open && (event.key === "ArrowDown" || event.key === "ArrowUp")) {
      event.preventDefault();
      setActive((current) => (current + (event.key === "ArrowDown" ? 1 : options.length - 1)) % options.length);
    } else if (open && (event.key === "Tab" || event.key === "Enter")) {
      event.preventDefault();
      complete(options[Math.min(active, options.length - 1)] as SlashCommand);
    } else if (open && event.key === "Escape") {
      event.preventDefault();
      setClosed(true);
    } else if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      submit();
    }
  };
  const change = (event: ChangeEvent<HTMLTextAreaElement>) => {
    setDraft(event.target.value);
    setActive(0);
    setClosed(false);
  };
  const picked = (event: ChangeEvent<HTMLInputElement>) => {
    const files = [...(event.target.files ?? [])];
    event.target.value = "";
    if (files.length > 0) onFiles(files);
  };

  return (
    <form className="chat-composer" onSubmit={submit}>
      <label htmlFor={`${id}-message`} className="visually-hidden">
        Message
      </label>
      <div className="composer-field">
        <textarea
          id={`${id}-message`}
          rows={3}
          value={draft}
          placeholder="Message the agent (/ for commands)"
          onChange={change}
          onKeyDown={keyDown}
          role="combobox"
          aria-expanded={open}
          aria-controls={`${id}-commands`}
          aria-autocomplete="list"
          aria-activedescendant={open ? `${id}-command-${Math.min(active, options.length - 1)}` : undefined}
        />
        <ul id={`${id}-commands`} role="listbox" aria-label="Slash commands" className="command-list" hidden={!open}>
          {options.map((command, index) => (
            <li
              key={command.invocation}
              id={`${id}-command-${index}`}
              role="option"
              aria-selected={index === active}
              onMouseDown={(event) => {
                event.preventDefault();
                complete(command);
              }}
            >
              <code>{revealBidi(command.invocation)}</code>
              {command.argumentHint && <span className="muted"> {revealBidi(command.argumentHint)}</span>}
              <span className="command-description">{revealBidi(command.description)}</span>
            </li>
          ))}
        </ul>
      </div>
      <div className="composer-actions">
        <input ref={fileInput} id={`${id}-files`} type="file" multiple className="visually-hidden" onChange={picked} tabIndex={-1} aria-label="Files to attach" />
        <button type="button" className="secondary" onClick={() => fileInput.current?.click()}>
          Attach files
        </button>
        {busy && onCancel ? (
          <button type="button" className="secondary" onClick={onCancel}>
            Stop
          </button>
        ) : null}
        <button type="submit" disabled={busy || draft.trim() === ""}>
          Send
        </button>
      </div>
    </form>
  );
}
