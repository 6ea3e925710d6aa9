// A form generated from a tool's input schema (schema-form-model.ts): one labelled control per
// property, required ones marked, descriptions as hints. Names and descriptions are rendered as text.
import { useId, useMemo, useState, type FormEvent } from "react";
import { revealBidi } from "../../text/reveal-bidi.js";
import { formArguments, formFields, type FieldValue, type FormField } from "./schema-form-model.js";

export interface SchemaFormProps {
  readonly schema: unknown;
  /** The submit button's text. */
  readonly action: string;
  readonly busy?: boolean;
  readonly onSubmit: (args: Record<string, unknown>) => void;
}

export function SchemaForm({ schema, action, busy, onSubmit }: SchemaFormProps) {
  const fields = useMemo(() => formFields(schema), [schema]);
  const [values, setValues] = useState<Record<string, FieldValue>>(() => Object.fromEntries(fields.map((field) => [field.name, field.initial])));
  const [problem, setProblem] = useState<string>();
  const prefix = useId();
  const set = (name: string, value: FieldValue) => setValues((current) => ({ ...current, [name]: value }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const outcome = formArguments(fields, values);
    if (!outcome.ok) {
      setProblem(outcome.message);
      document.getElementById(`${prefix}-${fields.findIndex((field) => field.name === outcome.field)}`)?.focus();
      return;
    }
    setProblem(undefined);
    onSubmit(outcome.value);
  };
  return (
    <form className="schema-form" onSubmit={submit} noValidate>
      {fields.length === 0 && <p className="muted">This tool takes no arguments.</p>}
      {fields.map((field, index) => (
        <FieldControl key={field.name} id={`${prefix}-${index}`} field={field} value={values[field.name] ?? field.initial} onChange={(value) => set(field.name, value)} />
      ))}
      {problem && (
        <p role="alert" className="error-note">
          {revealBidi(problem)}
        </p>
      )}
      <button type="submit" disabled={busy}>
        {action}
      </button>
    </form>
  );
}

function FieldControl({ id, field, value, onChange }: { readonly id: string; readonly field: FormField; readonly value: FieldValue; readonly onChange: (value: FieldValue) => void }) {
  const hintId = `${id}-hint`;
  const name = revealBidi(field.name);
  const hint = field.description ? (
    <span id={hintId} className="ops-field-hint">
      {revealBidi(field.description)}
    </span>
  ) : null;
  const described = field.description ? { "aria-describedby": hintId } : {};
  const marker = field.required ? <span className="ops-required-mark"> (required)</span> : null;
  if (field.kind === "boolean") {
    return (
      <div className="ops-field ops-field-check">
        <input id={id} type="checkbox" checked={value === true} onChange={(event) => onChange(event.target.checked)} {...described} />
        <label htmlFor={id}>
          {name}
          {marker}
        </label>
        {hint}
      </div>
    );
  }
  if (field.kind === "enum-list") {
    const picked = Array.isArray(value) ? value : [];
    return (
      <fieldset className="ops-field" {...described}>
        <legend>
          {name}
          {marker}
        </legend>
        {field.choices?.map((choice, index) => (
          <div className="ops-field-check" key={index}>
            <input id={`${id}-${index}`} type="checkbox" checked={picked.includes(index)} onChange={(event) => onChange(event.target.checked ? [...picked, index] : picked.filter((each) => each !== index))} />
            <label htmlFor={`${id}-${index}`}>{revealBidi(String(choice))}</label>
          </div>
        ))}
        {hint}
      </fieldset>
    );
  }
  const label = (
    <label htmlFor={id}>
      {name}
      {marker}
      {field.kind === "list" && <span className="muted"> (one per line)</span>}
      {field.kind === "json" && <span className="muted"> (JSON)</span>}
    </label>
  );
  const text = typeof value === "string" ? value : "";
  let control;
  if (field.kind === "enum") {
    control = (
      <select id={id} value={text} onChange={(event) => onChange(event.target.value)} aria-required={field.required} {...described}>
        <option value="">{field.required ? "Choose…" : "(none)"}</option>
        {field.choices?.map((choice, index) => (
          <option key={index} value={String(index)}>
            {revealBidi(String(choice))}
          </option>
        ))}
      </select>
    );
  } else if (field.kind === "list" || field.kind === "json") {
    control = <textarea id={id} rows={field.kind === "json" ? 4 : 3} value={text} onChange={(event) => onChange(event.target.value)} aria-required={field.required} spellCheck={false} {...described} />;
  } else {
    const numeric = field.kind === "number" || field.kind === "integer";
    control = (
      <input
        id={id}
        type="text"
        inputMode={numeric ? (field.kind === "integer" ? "numeric" : "decimal") : undefined}
        value={text}
        onChange={(event) => onChange(event.target.value)}
        aria-required={field.required}
        {...described}
      />
    );
  }
  return (
    <div className="ops-field">
      {label}
      {control}
      {hint}
    </div>
  );
}
