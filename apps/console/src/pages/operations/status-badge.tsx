// A status as a word and a colour (the word carries the meaning; the colour only repeats it).
export function StatusBadge({ status }: { readonly status: string }) {
  const known = /^[a-z_]+$/.test(status) ? status : "unknown";
  return <span className={`ops-status ops-status-${known}`}>{status.replace(/_/g, " ")}</span>;
}
