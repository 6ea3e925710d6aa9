// Public API of @thinktank/codemode: every export is listed here by name.
export {};
