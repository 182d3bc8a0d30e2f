/**
 * A doc comment (`/** ... *\/`) documents the declaration right below it: editors show it on
 * that declaration and nowhere else. One left above a blank line, another doc comment, a plain
 * statement or the end of the file documents nothing, or the wrong thing, so it is reported.
 */

/** Nodes a doc comment may sit on: declarations, members, properties and the `|` of a union member. */
const DOCUMENTABLE = new Set([
  'ExportNamedDeclaration',
  'ExportDefaultDeclaration',
  'ExportAllDeclaration',
  'VariableDeclaration',
  'FunctionDeclaration',
  'ClassDeclaration',
  'TSInterfaceDeclaration',
  'TSTypeAliasDeclaration',
  'TSEnumDeclaration',
  'TSEnumMember',
  'TSModuleDeclaration',
  'TSDeclareFunction',
  'MethodDefinition',
  'PropertyDefinition',
  'TSAbstractMethodDefinition',
  'TSAbstractPropertyDefinition',
  'TSPropertySignature',
  'TSMethodSignature',
  'TSIndexSignature',
  'TSCallSignatureDeclaration',
  'TSConstructSignatureDeclaration',
  'Property',
  'TSParameterProperty',
  'AccessorProperty',
  'StaticBlock',
]);

/** The outermost node that starts where `token` does: the statement or member the comment is above. */
function nodeStartingAt(sourceCode, token) {
  let node = sourceCode.getNodeByRangeIndex(token.range[0]);
  while (node?.parent && node.parent.range[0] === token.range[0] && node.parent.type !== 'Program') node = node.parent;
  return node;
}

export default {
  meta: {
    type: 'problem',
    docs: { description: 'A doc comment sits directly above the declaration it documents' },
    schema: [],
    messages: {
      detached: 'This doc comment is separated from what follows by a blank line: it documents nothing. Move it onto its declaration or make it a // comment.',
      stacked: 'Two doc comments in a row: only the second documents the declaration below. Merge them or make the first a // comment.',
      notDeclaration: 'This doc comment sits on a {{type}}, which no editor shows it for: put it on a declaration or make it a // comment.',
      dangling: 'This doc comment ends the file: it documents nothing.',
    },
  },
  create(context) {
    const { sourceCode } = context;
    return {
      Program() {
        for (const comment of sourceCode.getAllComments()) {
          if (comment.type !== 'Block' || !comment.value.startsWith('*') || comment.value.startsWith('**')) continue;
          // The file's opening comment describes the module, not its first declaration.
          if (sourceCode.getTokenBefore(comment, { includeComments: true }) === null && comment.value.includes('\n')) continue;
          const next = sourceCode.getTokenAfter(comment, { includeComments: true });
          if (next === null) {
            context.report({ loc: comment.loc, messageId: 'dangling' });
          } else if (next.loc.start.line - comment.loc.end.line > 1) {
            context.report({ loc: comment.loc, messageId: 'detached' });
          } else if (next.type === 'Block' && next.value.startsWith('*')) {
            context.report({ loc: comment.loc, messageId: 'stacked' });
          } else if (next.type !== 'Line' && next.type !== 'Block' && next.value !== '|') {
            const node = nodeStartingAt(sourceCode, next);
            if (node !== null && !DOCUMENTABLE.has(node.type)) context.report({ loc: comment.loc, messageId: 'notDeclaration', data: { type: node.type } });
          }
        }
      },
    };
  },
};
