// Public API of @thinktank/skills: every export is listed here by name.
export {};
