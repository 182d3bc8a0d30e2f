import ts from 'typescript';

/**
 * The type errors of a consumer project's own files and of one installed package's declaration
 * files, under the project's tsconfig, leaving every other library's declarations unchecked.
 * `tsc` without skipLibCheck also checks all of typebox's ~300 declaration files (55 of the 60 s it
 * took here); skipLibCheck would skip the package's own declarations too, so a client type that
 * needed @types/node would turn into `any` without a word. Checking these files alone keeps that
 * error and drops typebox's.
 */
export function ownTypeErrors(tsconfigPath: string, packageName: string): string[] {
  const parsed = ts.getParsedCommandLineOfConfigFile(tsconfigPath, {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  });
  if (parsed === undefined) throw new Error(`cannot read ${tsconfigPath}`);
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: { ...parsed.options, skipLibCheck: false } });
  const ownFile = (file: ts.SourceFile): boolean => file.fileName.includes(`/node_modules/${packageName}/`) || !file.fileName.includes('/node_modules/');
  const checked = program.getSourceFiles().filter(ownFile);
  if (!checked.some((file) => file.fileName.includes(`/node_modules/${packageName}/`))) throw new Error(`the program loads no declaration of ${packageName}`);
  const diagnostics = [
    ...parsed.errors,
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...checked.flatMap((file) => [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)]),
  ];
  return diagnostics.map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    if (diagnostic.file === undefined || diagnostic.start === undefined) return message;
    const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    return `${diagnostic.file.fileName}:${line + 1}:${character + 1} ${message}`;
  });
}
