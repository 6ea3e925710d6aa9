// Public API of @thinktank/codegen: every export is listed here by name.
export {};
