import { useState } from "react";

/**
 * A destructive action asked twice: `label…` first, then `confirm` (danger) beside `Keep it`.
 * `onConfirm` runs only from the second button.
 */
export function ConfirmButton({ label, confirm, disabled, onConfirm }: { readonly label: string; readonly confirm: string; readonly disabled?: boolean; readonly onConfirm: () => void }) {
  const [confirming, setConfirming] = useState(false);
  if (!confirming) {
    return (
      <button type="button" className="secondary" onClick={() => setConfirming(true)}>
        {label}…
      </button>
    );
  }
  return (
    <>
      <button type="button" className="danger" disabled={disabled} onClick={onConfirm}>
        {confirm}
      </button>
      <button type="button" className="secondary" onClick={() => setConfirming(false)}>
        Keep it
      </button>
    </>
  );
}
