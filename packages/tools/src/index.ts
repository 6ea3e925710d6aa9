// Public API of @thinktank/tools: every export is listed here by name.
export {};
