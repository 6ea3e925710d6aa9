// Public API of @thinktank/models: every export is listed here by name.
export {};
