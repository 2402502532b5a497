// Writes the part of cdk8s-plus-28's generated k8s module that the child constructs use
// (imports/k8s.cjs): the classes named in K8S_IMPORTS and every function,
// class and enum they reach, as the generator wrote them. The full module is 2.7 MB of
// JavaScript (and an inline source map) for 141 kinds; `den manager` renders thirteen and
// would hold the rest in memory for its whole life (docs/manager.md, "At rest"). Run with
// `npm run k8s-imports` after upgrading cdk8s-plus-28 or using another kind; a test fails until then.
import ts from 'typescript';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** What the children the hooks render import as values; types come from the full module's declarations. */
export const K8S_IMPORTS = [
  'IntOrString',
  'KubeClusterRole',
  'KubeClusterRoleBinding',
  'KubeLimitRange',
  'KubeNamespace',
  'KubeNetworkPolicy',
  'KubeResourceQuota',
  'KubeRole',
  'KubeRoleBinding',
  'KubeSecret',
  'KubeService',
  'KubeServiceAccount',
  'KubeStatefulSet',
  'Quantity',
] as const;

/** Where the trimmed module lives, beside this file (the build copies it to build/). */
export const K8S_IMPORTS_PATH = fileURLToPath(new URL('k8s.cjs', import.meta.url));

export const FULL_MODULE = 'cdk8s-plus-28/lib/imports/k8s.js';

export function fullModulePath(): string {
  return createRequire(import.meta.url).resolve(FULL_MODULE);
}

/** The top-level name a statement belongs to: its declaration, or what it assigns to. */
function ownerOf(statement: ts.Statement): string | undefined {
  if ((ts.isClassDeclaration(statement) || ts.isFunctionDeclaration(statement)) && statement.name) return statement.name.text;
  if (ts.isVariableStatement(statement)) {
    const [first, ...rest] = statement.declarationList.declarations;
    // `var SomeEnum;` opens a TypeScript enum; `var _a, _b, …` and the requires are the header.
    if (first && rest.length === 0 && !first.initializer && ts.isIdentifier(first.name) && !first.name.text.startsWith('_')) return first.name.text;
    return undefined;
  }
  if (!ts.isExpressionStatement(statement)) return undefined;
  let expr = statement.expression;
  // `(function (E) { … })(E || (exports.E = E = {}));`: the enum's body.
  if (ts.isCallExpression(expr) && expr.arguments.length === 1) {
    const callee = ts.isParenthesizedExpression(expr.expression) ? expr.expression.expression : expr.expression;
    if (ts.isFunctionExpression(callee) && callee.parameters.length === 1) return callee.parameters[0]!.name.getText();
  }
  if (!ts.isBinaryExpression(expr) || expr.operatorToken.kind !== ts.SyntaxKind.EqualsToken) return undefined;
  expr = expr.left;
  // `exports.X = X;` belongs to X.
  if (ts.isPropertyAccessExpression(expr) && expr.expression.getText() === 'exports') return expr.name.text;
  // `X.GVK = …`, `X[_53] = …`.
  while (ts.isPropertyAccessExpression(expr) || ts.isElementAccessExpression(expr)) expr = expr.expression;
  return ts.isIdentifier(expr) && !expr.text.startsWith('_') ? expr.text : undefined;
}

function identifiersIn(node: ts.Node, into: Set<string>): Set<string> {
  if (ts.isIdentifier(node)) into.add(node.text);
  node.forEachChild((child) => void identifiersIn(child, into));
  return into;
}

/** The trimmed module's text for `roots` out of the generated module's `source`. */
export function trimK8sModule(source: string, roots: readonly string[] = K8S_IMPORTS): string {
  const file = ts.createSourceFile('k8s.js', source, ts.ScriptTarget.ES2022, true, ts.ScriptKind.JS);
  const header: ts.Statement[] = [];
  const owned = new Map<string, ts.Statement[]>();
  let previous: string | undefined;
  for (const statement of file.statements) {
    const text = statement.getText();
    // `exports.a = exports.b = … = void 0;` names every export of the full module.
    if (/^exports\.\w+ = exports\./.test(text)) continue;
    // `_53 = JSII_RTTI_SYMBOL_1;` goes with the class before it.
    const owner = ownerOf(statement) ?? (/^_\w+ = /.test(text) ? previous : undefined);
    if (!owner) {
      header.push(statement);
      continue;
    }
    owned.set(owner, [...(owned.get(owner) ?? []), statement]);
    previous = owner;
  }
  const missing = roots.filter((name) => !owned.has(name));
  if (missing.length) throw new Error(`${FULL_MODULE} has no ${missing.join(', ')}`);
  const kept = new Set<string>();
  const visit = (name: string): void => {
    if (kept.has(name)) return;
    kept.add(name);
    const refs = new Set<string>();
    for (const statement of owned.get(name)!) identifiersIn(statement, refs);
    for (const ref of refs) if (owned.has(ref)) visit(ref);
  };
  for (const root of roots) visit(root);
  const body: string[] = [];
  for (const [name, statements] of owned) if (kept.has(name)) body.push(...statements.map((s) => s.getText()));
  const exported = [...kept].filter((name) => owned.get(name)!.some((s) => s.getText().startsWith(`exports.${name} = `) || s.getText().includes(`(exports.${name} = `)));
  return [
    `// Generated by imports/trim.ts from ${FULL_MODULE} (npm run k8s-imports): the`,
    `// ${roots.length} kinds the child constructs use and what they reach, ${kept.size} of its ${owned.size} declarations. Do not edit.`,
    ...header.map((s) => s.getText()).filter((text) => !text.startsWith('//# sourceMappingURL')),
    `exports.${exported.join(' = exports.')} = void 0;`,
    ...body,
    '',
  ].join('\n');
}

/**
 * Its declarations: the kept values by name, and every interface of the full module's
 * declarations (`declarations`) as a type, so the constructs' props keep their types.
 */
export function trimmedDeclarations(declarations: string, roots: readonly string[] = K8S_IMPORTS): string {
  const interfaces = [...declarations.matchAll(/^export interface (\w+)/gm)].map((m) => m[1]!);
  return [
    '// Generated by imports/trim.ts (npm run k8s-imports). Do not edit.',
    `export { ${roots.join(', ')} } from '${FULL_MODULE}';`,
    `export type {\n${interfaces.map((name) => `  ${name},\n`).join('')}} from '${FULL_MODULE}';`,
    '',
  ].join('\n');
}

export function trimmedFromInstalled(): { module: string; declarations: string } {
  const path = fullModulePath();
  return { module: trimK8sModule(readFileSync(path, 'utf8')), declarations: trimmedDeclarations(readFileSync(path.replace(/\.js$/, '.d.ts'), 'utf8')) };
}
