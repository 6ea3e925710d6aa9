/**
 * What counts as a secret when logging or showing configuration. Deliberately broad: a masked
 * harmless value costs little, a leaked key costs a lot.
 */

/** What a masked value is replaced with (fixed, so a length never leaks). */
export const redactedMarker = "[redacted]";

const secretNamePattern = /authorization|cookie|passw(or)?d|secret|token|api[-_]?key|apikey|access[-_]?key|private[-_]?key|credential|signature|session[-_]?id|^(pat|auth|key|sig|pass)$/i;

/** Keys and header, variable, flag or query-parameter names whose values are secrets. */
export function isSecretName(name: string): boolean {
  return secretNamePattern.test(name);
}

/** Prefixes of well-known key formats (Thinktank user keys, OpenAI, Anthropic, GitHub, GitLab, Slack, AWS, Google, Stripe). */
const knownKeyPattern = /^(tt_u_|sk-|sk_live_|sk_test_|rk_live_|pk_live_|ghp_|gho_|ghu_|ghs_|ghr_|github_pat_|glpat-|xox[abposr]-|AKIA[0-9A-Z]{12}|ASIA[0-9A-Z]{12}|AIza[0-9A-Za-z_-]{20})/;

/**
 * A value that looks like a key even under an innocent name: a well-known key prefix, a JWT,
 * or a long run (24+) of letters, digits, `-` and `_` that mixes letters and digits.
 */
export function looksLikeSecret(value: string): boolean {
  const text = value.trim();
  if (knownKeyPattern.test(text)) return true;
  if (/^eyJ[\w-]+\.[\w-]+\.[\w-]*$/.test(text)) return true;
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text)) return false; // a UUID is an id, not a key
  return /^[A-Za-z0-9_-]{24,}$/.test(text) && /[A-Za-z]/.test(text) && /\d/.test(text);
}

/**
 * A URL with its password, a key-shaped user name (`https://<token>@github.com/...`, the form git
 * and GitHub document for tokens) and the values of secret-looking query parameters masked (`keep`
 * decides which values stay, e.g. `${VAR}` placeholders). Text that is not a URL comes back as it is.
 */
export function maskUrlSecrets(url: string, keep: (value: string) => boolean = () => false): string {
  const userInfo = /\b([a-z][a-z0-9+.-]*:\/\/)([^/?#:@\s]*):([^/?#@\s]*)@/gi;
  let masked = url.replace(userInfo, (whole, scheme: string, user: string, password: string) => {
    if (keep(decodeSafe(password)) && !isKeyShapedUser(user, keep)) return whole;
    return `${scheme}${isKeyShapedUser(user, keep) ? redactedMarker : user}:${keep(decodeSafe(password)) ? password : redactedMarker}@`;
  });
  const userOnly = /\b([a-z][a-z0-9+.-]*:\/\/)([^/?#:@\s]+)@/gi;
  masked = masked.replace(userOnly, (whole, scheme: string, user: string) => (isKeyShapedUser(user, keep) ? `${scheme}${redactedMarker}@` : whole));
  masked = masked.replace(/([?&;])([^=&#;\s?]+)=([^&#;\s]*)/g, (whole, separator: string, name: string, value: string) => {
    const decoded = decodeSafe(value);
    if (keep(decoded)) return whole;
    return isSecretName(decodeSafe(name)) || looksLikeSecret(decoded) ? `${separator}${name}=${redactedMarker}` : whole;
  });
  return masked;
}

/** A URL's user name that is a key (a token in the user name's place), not a kept placeholder. */
function isKeyShapedUser(user: string, keep: (value: string) => boolean): boolean {
  const decoded = decodeSafe(user);
  return decoded !== redactedMarker && !keep(decoded) && looksLikeSecret(decoded);
}

function decodeSafe(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll("+", " "));
  } catch {
    return text;
  }
}
