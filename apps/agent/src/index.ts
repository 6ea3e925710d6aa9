// Public API of @thinktank/agent: every export is listed here by name.
export {};
