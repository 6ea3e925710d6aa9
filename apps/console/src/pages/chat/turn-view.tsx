// One turn of the chat: what the user typed, then the answer in order (text through Markdown, each
// tool call a collapsible card with its arguments and result as text, each `task` call a nested card
// with the sub-agent's own steps), then which skills it was offered and read, and its tokens.
import { createContext, memo, useContext } from "react";
import { Markdown } from "../../components/markdown.js";
import { revealBidi } from "../../text/reveal-bidi.js";
import { shownValue, textOf, toTurns, typedText, type AnswerPart, type ChatMessage, type Delegation, type ToolStep, type Turn } from "./chat-model.js";
import type { RunTokens } from "./run-tokens.js";
import type { Partials } from "./use-thread-run.js";

/** What nested cards read: sub-agents' transcripts and streamed text, and the delegation records. */
export interface TurnContext {
  readonly transcripts: ReadonlyMap<string, readonly ChatMessage[]>;
  readonly partials: Partials;
  readonly delegations: ReadonlyMap<string, Delegation>;
  /** A run is streaming: calls without a result are running, not stopped. */
  readonly running: boolean;
  /** The run waits for the user (an approval or a question): calls without a result wait too. */
  readonly waiting: boolean;
}

export const TurnContextValue = createContext<TurnContext>({ transcripts: new Map(), partials: new Map(), delegations: new Map(), running: false, waiting: false });

/** One turn; memoised, so a streamed chunk re-renders only the turn it belongs to. */
export const TurnView = memo(function TurnView({ turn, streamed, runTokens }: { readonly turn: Turn; readonly streamed?: readonly string[]; readonly runTokens?: RunTokens }) {
  return (
    <li className="chat-turn">
      {turn.human && (
        <div className="chat-human">
          <span className="visually-hidden">You:</span>
          <p>{typedText(turn.human)}</p>
        </div>
      )}
      <div className="chat-answer">
        <Parts parts={turn.parts} />
        {streamed?.map((text, index) => <Markdown key={index} source={text} className="chat-streaming" />)}
        <TurnFacts turn={turn} {...(runTokens ? { runTokens } : {})} />
      </div>
    </li>
  );
});

function Parts({ parts }: { readonly parts: readonly AnswerPart[] }) {
  return (
    <>
      {parts.map((part) => (part.kind === "text" ? <Markdown key={part.id} source={part.text} /> : part.step.call.name === "task" ? <SubagentCard key={part.id} step={part.step} /> : <ToolCard key={part.id} step={part.step} />))}
    </>
  );
}

function stepStatus(step: ToolStep, context: Pick<TurnContext, "running" | "waiting">): string {
  if (!step.result) return context.running ? "running" : context.waiting ? "waiting for you" : "no result";
  return step.result.status === "error" ? "error" : "done";
}

/** The card's class for a status (prefixed: other pages style `status-*` badges). */
const statusClass = (status: string) => `chat-card-${status.replace(/\s+/g, "-")}`;

export function ToolCard({ step }: { readonly step: ToolStep }) {
  const status = stepStatus(step, useContext(TurnContextValue));
  return (
    <details className={`chat-card tool-card ${statusClass(status)}`}>
      <summary>
        <span className="card-kind">Tool</span> <code>{revealBidi(step.call.name)}</code> <span className="card-status">{status}</span>
      </summary>
      <h4>Arguments</h4>
      <pre className="card-text">{revealBidi(shownValue(step.call.args))}</pre>
      {step.result && (
        <>
          <h4>Result</h4>
          <pre className="card-text">{revealBidi(textOf(step.result))}</pre>
        </>
      )}
    </details>
  );
}

export function SubagentCard({ step }: { readonly step: ToolStep }) {
  const context = useContext(TurnContextValue);
  const callId = step.call.id ?? "";
  const agent = typeof step.call.args.subagent_type === "string" ? step.call.args.subagent_type : "sub-agent";
  const description = typeof step.call.args.description === "string" ? step.call.args.description : "";
  const record = context.delegations.get(callId);
  const transcript = context.transcripts.get(callId) ?? [];
  const streamed = [...(context.partials.get(callId)?.values() ?? [])];
  const inner = toTurns(transcript).flatMap((turn) => turn.parts);
  const status = record?.status ?? stepStatus(step, context);
  return (
    <details className={`chat-card subagent-card ${statusClass(status)}`} open={!step.result}>
      <summary>
        <span className="card-kind">Sub-agent</span> <code>{revealBidi(agent)}</code> <span className="card-description">{revealBidi(description)}</span> <span className="card-status">{status}</span>
      </summary>
      {inner.length > 0 || streamed.length > 0 ? (
        <div className="subagent-steps">
          <Parts parts={inner} />
          {streamed.map((text, index) => <Markdown key={index} source={text} className="chat-streaming" />)}
        </div>
      ) : (
        !step.result && <p className="muted">Working…</p>
      )}
      {step.result && (
        <>
          <h4>Answer</h4>
          <Markdown source={textOf(step.result)} />
        </>
      )}
      {record && (
        <p className="card-facts">
          {record.input_tokens.toLocaleString()} tokens in, {record.output_tokens.toLocaleString()} out{record.tokens_estimated ? " (estimated)" : ""} · {(record.duration_ms / 1000).toFixed(1)} s
          {record.error ? ` · ${record.error}` : ""}
        </p>
      )}
    </details>
  );
}

/** Skills offered and read, and tokens, under an answer. */
function TurnFacts({ turn, runTokens }: { readonly turn: Turn; readonly runTokens?: RunTokens }) {
  if (turn.parts.length === 0) return null;
  const { offered, read } = turn.skills;
  const { reported, delegated } = turn.tokens;
  const count = (value: number) => value.toLocaleString();
  return (
    <dl className="chat-facts">
      <dt>Skills offered</dt>
      <dd>{offered === undefined ? "every enabled skill (listed in the prompt)" : offered.length === 0 ? "none" : offered.map(revealBidi).join(", ")}</dd>
      <dt>Skills read</dt>
      <dd>{read.length === 0 ? "none" : read.map(revealBidi).join(", ")}</dd>
      <dt>Tokens</dt>
      <dd>
        {runTokens
          ? `${count(runTokens.input)} in, ${count(runTokens.output)} out${runTokens.runs > 1 ? ` over ${runTokens.runs} runs` : ""}${runTokens.estimated ? " (counted: the model reported none)" : ""}`
          : reported
            ? `${count(reported.input)} in, ${count(reported.output)} out`
            : "not reported by the model"}
        {delegated ? ` · ${runTokens ? "of which " : ""}sub-agents ${count(delegated.input)} in, ${count(delegated.output)} out${delegated.estimated ? " (estimated)" : ""}` : ""}
      </dd>
    </dl>
  );
}
