// Checks that every import in the built package resolves the way Node's ESM resolver (and
// webpack, which bundles the workflows fully specified too) will resolve it for a user:
// relative imports name an existing file, bare imports name a package the user gets (a
// declared dependency, a Node builtin, or this package itself) and a file in it, with its
// extension, never a directory. tsx, which runs this repository, forgives both a missing
// extension and a directory import, so nothing else here would notice either.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const ts = require('typescript');

function* codeFiles(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* codeFiles(p);
    else if (/\.(m?js|d\.ts)$/.test(name)) yield p;
  }
}

/** The ES module specifiers of a file: import/export ... from, import(), import('x').T in types. */
export function specifiers(file) {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const found = [];
  const visit = (node) => {
    const spec =
      ts.isImportDeclaration(node) || ts.isExportDeclaration(node)
        ? node.moduleSpecifier
        : ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword
          ? node.arguments[0]
          : ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)
            ? node.argument.literal
            : undefined;
    // a computed import(url) is the user's module or our own file by URL: not checkable here
    if (spec && ts.isStringLiteral(spec)) found.push(spec.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function packageName(spec) {
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

// Bare specifiers are resolved from this script: dist/ has no node_modules of its own, so
// Node looks them up in the same node_modules from either place.
function resolve(spec, parent) {
  if (spec.startsWith('.') || spec.startsWith('/')) return new URL(spec, parent);
  return new URL(import.meta.resolve(spec));
}

function problemOf(spec, file, allowed) {
  const builtin = spec.startsWith('node:') || builtinModules.includes(spec);
  if (builtin) return undefined;
  const bare = !spec.startsWith('.') && !spec.startsWith('/');
  // a .d.ts may name a package that only brings types (@types/node): the user's tsc checks those
  if (bare && !allowed.has(packageName(spec)) && !file.endsWith('.d.ts'))
    return `${spec}: not a dependency of the package`;
  let url;
  try {
    url = resolve(spec, pathToFileURL(file));
  } catch (err) {
    return `${spec}: ${err.code ?? err.message}`;
  }
  if (url.protocol !== 'file:') return undefined;
  let path = fileURLToPath(url);
  if (file.endsWith('.d.ts') && !bare) path = path.replace(/\.js$/, '.d.ts'); // ./x.js names x.d.ts beside it
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return `${spec}: no such file ${path} (an ES module import needs the extension)`;
  if (stat.isDirectory()) return `${spec}: a directory (an ES module import names the file, e.g. ${spec}/index.js)`;
  return undefined;
}

/** Every import in `dist` that a user's Node would refuse, as "file: problem" lines. */
export function unresolvedImports(dist, pkg) {
  const allowed = new Set([pkg.name, ...Object.keys(pkg.dependencies ?? {})]);
  const problems = [];
  for (const file of codeFiles(dist)) {
    for (const spec of specifiers(file)) {
      const problem = problemOf(spec, file, allowed);
      if (problem) problems.push(`${relative(dist, file)}: ${problem}`);
    }
  }
  return problems;
}
