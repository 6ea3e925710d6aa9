// Placeholder while the console is being built (issue 31); each page replaces it in page-list.tsx.
export function PendingPage() {
  return <p>This page is not built yet.</p>;
}
