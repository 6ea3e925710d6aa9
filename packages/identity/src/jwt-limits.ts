/** Longer bearer JWTs are refused before any parsing (real access tokens are a few kilobytes at most). */
export const maxTokenBytes = 12 * 1024;
