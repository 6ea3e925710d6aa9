import type { ReactNode } from "react";

/** A table that may scroll sideways on a narrow screen: a labelled region reachable from the keyboard, so it can be scrolled without a mouse. */
export function TableWrap({ label, children }: { readonly label: string; readonly children: ReactNode }) {
  return (
    <div className="ops-table-wrap" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
