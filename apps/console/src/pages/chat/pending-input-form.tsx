// A paused run's question or approval, answered in place: a question gets a typed answer (sent as
// the resume value, which becomes the tool result); an approval gets one decision per action
// request (approve, approve with edited arguments, or reject with a message), sent together as
// `{ decisions: [...] }` in request order, as the agent reads them.
import { useId, useState, type FormEvent } from "react";
import { revealBidi } from "../../text/reveal-bidi.js";
import { shownValue, type ApprovalRequest, type Decision, type PendingInput } from "./chat-model.js";

export function PendingInputForm({ pending, busy, onAnswer }: { readonly pending: PendingInput; readonly busy: boolean; readonly onAnswer: (value: unknown) => void }) {
  if (pending.kind === "question") return <QuestionForm question={pending.question} busy={busy} onAnswer={onAnswer} />;
  if (pending.kind === "approval") return <ApprovalForm requests={pending.requests} busy={busy} onAnswer={onAnswer} />;
  return (
    <section className="chat-pending" aria-label="The agent is waiting">
      <h3>The agent is waiting for input</h3>
      <pre className="card-text">{revealBidi(shownValue(pending.value))}</pre>
      <QuestionForm question="Answer" busy={busy} onAnswer={onAnswer} />
    </section>
  );
}

function QuestionForm({ question, busy, onAnswer }: { readonly question: string; readonly busy: boolean; readonly onAnswer: (value: unknown) => void }) {
  const [answer, setAnswer] = useState("");
  const id = useId();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (answer.trim() !== "") onAnswer(answer);
  };
  return (
    <form className="chat-pending" onSubmit={submit} aria-labelledby={`${id}-q`}>
      <h3 id={`${id}-q`}>The agent asks</h3>
      <p className="pending-question">{revealBidi(question)}</p>
      <label htmlFor={`${id}-a`}>Your answer</label>
      <textarea id={`${id}-a`} rows={2} value={answer} onChange={(event) => setAnswer(event.target.value)} />
      <button type="submit" disabled={busy || answer.trim() === ""}>Send answer</button>
    </form>
  );
}

interface Draft {
  readonly type: Decision["type"];
  readonly args: string;
  readonly message: string;
}

function ApprovalForm({ requests, busy, onAnswer }: { readonly requests: readonly ApprovalRequest[]; readonly busy: boolean; readonly onAnswer: (value: unknown) => void }) {
  const id = useId();
  const [drafts, setDrafts] = useState<Draft[]>(() => requests.map((request) => ({ type: "approve", args: shownValue(request.args), message: "" })));
  const [problem, setProblem] = useState<string>();
  const update = (index: number, change: Partial<Draft>) => setDrafts((current) => current.map((draft, at) => (at === index ? { ...draft, ...change } : draft)));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const decisions: Decision[] = [];
    for (const [index, draft] of drafts.entries()) {
      const request = requests[index] as ApprovalRequest;
      if (draft.type === "approve") decisions.push({ type: "approve" });
      else if (draft.type === "reject") decisions.push({ type: "reject", message: draft.message.trim() });
      else {
        let args: unknown;
        try {
          args = JSON.parse(draft.args);
        } catch {
          setProblem(`The arguments of ${request.name} are not valid JSON.`);
          return;
        }
        if (typeof args !== "object" || args === null || Array.isArray(args)) {
          setProblem(`The arguments of ${request.name} must be a JSON object.`);
          return;
        }
        decisions.push({ type: "edit", edited_action: { name: request.name, args: args as Record<string, unknown> } });
      }
    }
    setProblem(undefined);
    onAnswer({ decisions });
  };
  return (
    <form className="chat-pending" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>Approval needed</h3>
      {requests.map((request, index) => {
        const draft = drafts[index] as Draft;
        const base = `${id}-${index}`;
        return (
          <fieldset key={base} className="approval-request">
            <legend>
              Run <code>{revealBidi(request.name)}</code>?
            </legend>
            <p>{revealBidi(request.description)}</p>
            <details>
              <summary>Arguments</summary>
              <pre className="card-text">{revealBidi(shownValue(request.args))}</pre>
            </details>
            <div className="decision-choices" role="radiogroup" aria-label={`Decision for ${request.name}`}>
              {(["approve", "edit", "reject"] as const).map((type) => (
                <label key={type} className="choice">
                  <input type="radio" name={`${base}-decision`} value={type} checked={draft.type === type} onChange={() => update(index, { type })} />
                  {type === "approve" ? "Approve" : type === "edit" ? "Approve with edited arguments" : "Reject"}
                </label>
              ))}
            </div>
            {draft.type === "edit" && (
              <>
                <label htmlFor={`${base}-args`}>Arguments (JSON)</label>
                <textarea id={`${base}-args`} rows={4} value={draft.args} onChange={(event) => update(index, { args: event.target.value })} />
              </>
            )}
            {draft.type === "reject" && (
              <>
                <label htmlFor={`${base}-message`}>Message to the agent</label>
                <input id={`${base}-message`} type="text" value={draft.message} onChange={(event) => update(index, { message: event.target.value })} />
              </>
            )}
          </fieldset>
        );
      })}
      {problem && (
        <p role="alert" className="error-note">
          {problem}
        </p>
      )}
      <button type="submit" disabled={busy}>Send decision{requests.length === 1 ? "" : "s"}</button>
    </form>
  );
}
