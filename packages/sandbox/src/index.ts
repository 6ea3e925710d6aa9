// Public API of @thinktank/sandbox: every export is listed here by name.
export {};
