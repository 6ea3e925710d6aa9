/** The small page a sign-in callback answers (the gateway's without a frontend URL, `thinktank mcp login`'s loopback). */
export function signInPage(outcome: { readonly ok: true; readonly server: string } | { readonly ok: false; readonly code: string; readonly message: string }): string {
  const title = outcome.ok ? "Connected" : "Sign-in failed";
  const body = outcome.ok
    ? `<p>Connected to <strong>${escapeHtml(outcome.server)}</strong>. You can close this window.</p>`
    : `<p><code>${escapeHtml(outcome.code)}</code>: ${escapeHtml(outcome.message)}</p><p>Close this window and start the sign-in again.</p>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${title}</title></head><body style="font-family:system-ui,sans-serif;margin:3rem auto;max-width:36rem"><h1 id="outcome">${title}</h1>${body}</body></html>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
