// Public API of @thinktank/identity: every export is listed here by name (README.md says what each is for).
export {};
