/** Layer rules of DESIGN.md: dependencies point inward. */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No file-level import cycles.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment: 'The domain imports only itself and the port interfaces: no node:*, no packages, no adapters, no app.',
      from: { path: '^src/domain/' },
      to: { pathNot: ['^src/domain/', '^src/ports/'] },
    },
    {
      name: 'ports-see-only-domain',
      severity: 'error',
      comment: 'Ports are interfaces over domain types.',
      from: { path: '^src/ports/' },
      to: { pathNot: ['^src/domain/', '^src/ports/'] },
    },
    {
      name: 'adapters-never-import-app',
      severity: 'error',
      from: { path: '^src/adapters/' },
      to: { path: '^src/app/' },
    },
    {
      name: 'adapters-never-import-each-other',
      severity: 'error',
      comment: 'An adapter may use its own folder and the shared files directly under src/adapters/, never another adapter.',
      from: { path: '^src/adapters/([^/]+)/' },
      to: { path: '^src/adapters/[^/]+/', pathNot: '^src/adapters/$1/' },
    },
    {
      name: 'client-loads-only-itself',
      severity: 'error',
      comment:
        'petstore-service/client runs in browsers and loads nothing else: outside src/client only `import type` (gone once compiled), e.g. the schemas its types derive from.',
      from: { path: '^src/client(/|\\.ts$)' },
      to: { pathNot: '^src/client(/|\\.ts$)', preCompilationOnly: false },
    },
    {
      name: 'src-never-imports-tests-or-bench',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    // Every import TypeScript sees, type-only ones too, each marked with whether it survives
    // compilation (transpiled with this tsconfig): the client rule allows only those that do not.
    tsPreCompilationDeps: 'specify',
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
