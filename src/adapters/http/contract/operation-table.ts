import { HTTP_ERRORS } from '../wire/http-errors.js';
import { isErrorResponse, OPERATION_METHODS, type OperationDeclaration } from './operation-declaration.js';

const PATH_PARAMETER = /\{([^}]*)\}/g;

/**
 * Fails at start, naming the declaration, when the table contradicts itself: a path parameter
 * without a schema (or a schema for none), two declarations of one method and path, a reused
 * operationId, an error answer under another status than its codes have.
 */
export function checkOperations(operations: readonly OperationDeclaration<string>[]): void {
  const problems: string[] = [];
  const routes = new Set<string>();
  const ids = new Set<string>();
  for (const operation of operations) {
    const where = `${operation.operationId} (${operation.method} ${operation.path})`;
    const route = `${operation.method} ${operation.path.replace(PATH_PARAMETER, '{}')}`;
    if (routes.has(route)) problems.push(`${where}: another declaration has the same method and path`);
    routes.add(route);
    if (ids.has(operation.operationId)) problems.push(`${where}: the operationId is declared twice`);
    ids.add(operation.operationId);
    if (!(OPERATION_METHODS as readonly string[]).includes(operation.method)) problems.push(`${where}: unknown method`);
    if (!/^(\/([a-z0-9._-]+|\{[A-Za-z]+\}))+$/.test(operation.path)) problems.push(`${where}: the path must be /segments with {name} parameters`);

    const inPath = [...operation.path.matchAll(PATH_PARAMETER)].map((match) => match[1]!);
    const declared = Object.keys(operation.params ?? {});
    for (const name of inPath) if (!declared.includes(name)) problems.push(`${where}: path parameter {${name}} has no schema`);
    for (const name of declared) if (!inPath.includes(name)) problems.push(`${where}: parameter ${name} is not in the path`);
    if (new Set(inPath).size !== inPath.length) problems.push(`${where}: a path parameter appears twice`);

    for (const [status, response] of Object.entries(operation.responses)) {
      if (!isErrorResponse(response)) continue;
      for (const code of response.errors) {
        if (HTTP_ERRORS[code].status !== Number(status)) problems.push(`${where}: ${code} is a ${HTTP_ERRORS[code].status}, declared under ${status}`);
      }
    }
  }
  if (problems.length > 0) throw new Error(`Inconsistent operation declarations:\n${problems.join('\n')}`);
}
