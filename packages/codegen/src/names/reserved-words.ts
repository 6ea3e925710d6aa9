/**
 * Names a generated identifier must not take. A clash gets a trailing underscore (`delete` →
 * `delete_`), the PEP 8 convention, used for both languages so the rule is one rule.
 */

/** ECMAScript reserved and strict-mode words, globals a declaration must not shadow, and names the generated files use. */
export const typeScriptReservedWords: ReadonlySet<string> = new Set([
  "break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete", "do", "else", "enum",
  "export", "extends", "false", "finally", "for", "function", "if", "import", "in", "instanceof", "new", "null",
  "return", "super", "switch", "this", "throw", "true", "try", "typeof", "var", "void", "while", "with",
  "implements", "interface", "let", "package", "private", "protected", "public", "static", "yield", "await",
  "arguments", "eval", "undefined", "NaN", "Infinity", "globalThis",
  // Used by the generated files themselves (the helper import, the barrel file).
  "callMCPTool", "index",
]);

/** Type names the generated TypeScript refers to, or that would shadow a global it relies on. */
export const typeScriptReservedTypeNames: ReadonlySet<string> = new Set([
  "Input", "Response", "Promise", "Array", "Record", "Object", "String", "Number", "Boolean", "Error", "MCPToolError",
]);

/** Python keywords, soft keywords and builtins (a wrapper named `list` would shadow `list[...]`), and names the generated modules import. */
export const pythonReservedWords: ReadonlySet<string> = new Set([
  "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
  "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
  "not", "or", "pass", "raise", "return", "try", "while", "with", "yield", "match", "case", "type",
  "abs", "all", "any", "ascii", "bin", "bool", "breakpoint", "bytearray", "bytes", "callable", "chr", "classmethod",
  "compile", "complex", "copyright", "credits", "delattr", "dict", "dir", "divmod", "enumerate", "eval", "exec",
  "exit", "filter", "float", "format", "frozenset", "getattr", "globals", "hasattr", "hash", "help", "hex", "id",
  "input", "int", "isinstance", "issubclass", "iter", "len", "license", "list", "locals", "map", "max",
  "memoryview", "min", "next", "object", "oct", "open", "ord", "pow", "print", "property", "quit", "range", "repr",
  "reversed", "round", "set", "setattr", "slice", "sorted", "staticmethod", "str", "sum", "super", "tuple", "vars",
  "zip",
  // Imported by every generated module.
  "call_mcp_tool", "annotations",
]);

/** Class names the generated Python imports or defines itself. */
export const pythonReservedTypeNames: ReadonlySet<string> = new Set([
  "Input", "Response", "Any", "Literal", "NotRequired", "Optional", "TypedDict", "Union", "MCPToolError",
  "None", "True", "False",
]);
