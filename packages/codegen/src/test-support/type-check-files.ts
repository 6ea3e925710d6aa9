import path from "node:path";
import { repositoryRoot } from "@thinktank/testing";
import ts from "typescript";

/**
 * Type-checks files with the team's strict settings (docs/architecture.md, house style: strict, noUncheckedIndexedAccess,
 * ...) and answers one line per diagnostic; [] means the files compile cleanly. Test support only.
 * `extra` adds compiler options (e.g. allowImportingTsExtensions for a program importing the code API's .ts files).
 */
export function typeCheckFiles(files: readonly string[], extra: ts.CompilerOptions = {}): string[] {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ["lib.es2023.d.ts"],
    strict: true,
    noUncheckedIndexedAccess: true,
    noImplicitOverride: true,
    noImplicitReturns: true,
    noFallthroughCasesInSwitch: true,
    verbatimModuleSyntax: true,
    isolatedModules: true,
    noEmit: true,
    skipLibCheck: true,
    types: ["node"],
    typeRoots: [path.join(repositoryRoot(), "node_modules", "@types")],
    ...extra,
  };
  const program = ts.createProgram([...files], options);
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
    if (!diagnostic.file || diagnostic.start === undefined) return message;
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    return `${diagnostic.file.fileName}:${line + 1}: ${message}`;
  });
}
