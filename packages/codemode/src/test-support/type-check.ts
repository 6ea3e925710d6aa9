import path from "node:path";
import { repositoryRoot } from "@thinktank/testing";
import ts from "typescript";

/** Type-checks files under the team's strict settings; one line per diagnostic, [] when clean. */
export function typeCheck(files: readonly string[]): string[] {
  const program = ts.createProgram([...files], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ["lib.es2023.d.ts"],
    strict: true,
    noUncheckedIndexedAccess: true,
    noImplicitReturns: true,
    verbatimModuleSyntax: true,
    isolatedModules: true,
    allowImportingTsExtensions: true,
    noEmit: true,
    skipLibCheck: true,
    types: ["node"],
    typeRoots: [path.join(repositoryRoot(), "node_modules", "@types")],
  });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
    if (!diagnostic.file || diagnostic.start === undefined) return message;
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    return `${diagnostic.file.fileName}:${line + 1}: ${message}`;
  });
}
