import { RuleTester } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, it } from 'vitest';
import docCommentPlacement from '../../eslint-rules/doc-comment-placement.js';

RuleTester.describe = describe;
RuleTester.it = it;

const tester = new RuleTester({ languageOptions: { parser: tseslint.parser } });

tester.run('doc-comment-placement', docCommentPlacement, {
  valid: [
    '/** A constant. */\nexport const a = 1;',
    '/**\n * The module.\n */\n\nexport const a = 1;',
    'interface Shape {\n  /** Its width. */\n  readonly width: number;\n}',
    'type Outcome =\n  /** Done. */\n  | { kind: "done" }\n  | { kind: "failed" };',
    'const table = {\n  /** One. */\n  one: 1,\n};',
    'class Box {\n  /** Its size. */\n  size = 1;\n  /** Grows it. */\n  grow(): void {}\n}',
    '/** A function. */\n// eslint-disable-next-line no-console\nfunction f(): void {}',
  ],
  invalid: [
    { code: 'import x from "x";\n/** Lost. */\n\nexport const a = x;', errors: [{ messageId: 'detached' }] },
    { code: '/** First. */\n/** Second. */\nexport const a = 1;', errors: [{ messageId: 'stacked' }] },
    { code: 'function f(): () => void {\n  /** Returned. */\n  return () => {};\n}', errors: [{ messageId: 'notDeclaration' }] },
    { code: 'export const a = 1;\n/** Nothing after. */', errors: [{ messageId: 'dangling' }] },
  ],
});
