import { ApiError } from "../api/api-client.js";

/** An error as people read it: the API's message and code, never a stack. */
export function ErrorNote({ error }: { readonly error: unknown }) {
  if (error === undefined || error === null) return null;
  const code = error instanceof ApiError ? error.code : undefined;
  const message = error instanceof Error ? error.message : String(error);
  return (
    <p role="alert" className="error-note">
      {message}
      {code && <code className="error-code">{code}</code>}
    </p>
  );
}
