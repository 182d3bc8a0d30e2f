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
      name: 'pglite-store-uses-only-the-public-surface',
      severity: 'error',
      comment:
        'The PGlite store is the worked example of docs/embedding.md ("Writing your own store"): written as a store outside this package would be, it imports the package through its entry points (src/index.ts, src/postgres.ts) and nothing behind them.',
      from: { path: '^src/adapters/pglite/' },
      to: { path: '^src/', pathNot: ['^src/adapters/pglite/', '^src/(index|postgres)\\.ts$'] },
    },
    {
      name: 'http-wire-is-the-floor',
      severity: 'error',
      comment:
        'adapters/http/wire writes and reads the bytes (bodies, header fields, errors, the request context every answer goes through); it knows no operation, no route, no pipeline step.',
      from: { path: '^src/adapters/http/wire/' },
      to: { path: '^src/adapters/http/', pathNot: '^src/adapters/http/wire/' },
    },
    {
      name: 'http-contract-is-declarations',
      severity: 'error',
      comment: 'adapters/http/contract declares the operations and folds them into OpenAPI: it never reaches the pipeline, the operations or the entry points.',
      from: { path: '^src/adapters/http/contract/' },
      to: { path: '^src/adapters/http/', pathNot: '^src/adapters/http/(contract|wire|docs)/' },
    },
    {
      name: 'http-pipeline-knows-no-operation',
      severity: 'error',
      comment:
        'The request pipeline runs whatever operations it is handed (request-handler.ts and admin-key-handler.ts hand it their tables): it imports none of them, the public API\'s nor the admin API\'s.',
      from: { path: '^src/adapters/http/pipeline/' },
      to: { path: '^src/adapters/http/(operations|docs|admin)/' },
    },
    {
      name: 'http-operations-never-see-the-pipeline',
      severity: 'error',
      comment:
        'An operation is a declaration and a handler of a request context, on the public API (operations, docs) as on the admin API (admin): the pipeline around it may change without it.',
      from: { path: '^src/adapters/http/(operations|docs|admin)/' },
      to: { path: '^src/adapters/http/pipeline/' },
    },
    {
      name: 'http-apis-share-only-the-stack',
      severity: 'error',
      comment: 'The admin API and the public API share the contract, the wire and the pipeline, never each other\'s operations.',
      from: { path: '^src/adapters/http/(operations|docs)/' },
      to: { path: '^src/adapters/http/admin/' },
    },
    {
      name: 'http-admin-is-its-own-api',
      severity: 'error',
      from: { path: '^src/adapters/http/admin/' },
      to: { path: '^src/adapters/http/(operations|docs)/' },
    },
    {
      name: 'app-reaches-http-through-its-entry-points',
      severity: 'error',
      comment:
        'The app builds either API through its entry points (request-handler.ts, admin-key-handler.ts) and hands the admin API its key verbs as a KeyAdministration: it runs no operation and no request step of the pipeline itself.',
      from: { path: '^src/app/' },
      to: {
        path: '^src/adapters/http/(operations/|admin/|pipeline/(api-router|unrouted|bearer-token|credential-headers|request-pipeline)\\.ts$)',
        pathNot: '^src/adapters/http/admin/key-administration\\.ts$',
      },
    },
    {
      name: 'app-config-stands-alone',
      severity: 'error',
      comment: 'Configuration is parsed before anything is built: app/config imports no other room of the app.',
      from: { path: '^src/app/config/' },
      to: { path: '^src/app/', pathNot: '^src/app/config/' },
    },
    {
      name: 'app-operations-surface-is-wired-not-wiring',
      severity: 'error',
      comment: 'Logs, metrics and the admin listener are built by the container and started by start-pet-store; they never reach back to them or to the command line.',
      from: { path: '^src/app/(logging|admin)/' },
      to: { path: '^src/app/(container/|cli/|start-pet-store\\.ts$|pet-store-app\\.ts$)' },
    },
    {
      name: 'app-container-is-below-the-entry-points',
      severity: 'error',
      from: { path: '^src/app/container/' },
      to: { path: '^src/app/(cli/|start-pet-store\\.ts$|pet-store-app\\.ts$)' },
    },
    {
      name: 'one-composition-function',
      severity: 'error',
      comment:
        'composePetStore (src/app/pet-store-app.ts) is the one way in to the container: the server, createPetStore, every CLI command and the supervisor compose the app there, none builds or resolves a container itself.',
      from: { path: '^src/', pathNot: ['^src/app/container/', '^src/app/pet-store-app\\.ts$'] },
      to: { path: '^src/app/container/' },
    },
    {
      name: 'one-composition-root',
      severity: 'error',
      comment:
        'Stores and their wrappers are chosen and built in src/app/container alone: the server, every CLI command and the test helpers resolve them from it, so a new kind of store is wired in one module.',
      from: { path: '^src/app/', pathNot: '^src/app/container/' },
      to: { path: '^src/adapters/(memory|redis|postgres|pglite|wrappers|system)/', dependencyTypesNot: ['type-only'] },
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
      name: 'testing-kit-stays-a-kit',
      severity: 'error',
      comment:
        'petstore-service/testing (src/testing.ts, src/testing/) checks stores through the ports, with the domain, the memory adapters, node:assert and fast-check: never the app, another adapter or a test framework, so it runs under any runner.',
      from: { path: '^src/testing(/|\\.ts$)' },
      to: { path: ['^src/app/', '^src/adapters/(?!memory/)', '^src/(index|redis|http|server|client)\\.ts$', 'node_modules/(vitest|@vitest|jest|@jest|mocha)/'] },
    },
    {
      name: 'nothing-runs-on-the-testing-kit',
      severity: 'error',
      comment: 'The kit is for tests: no code of the service imports it.',
      from: { path: '^src/', pathNot: '^src/testing(/|\\.ts$)' },
      to: { path: '^src/testing(/|\\.ts$)' },
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
