import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

// The statements a service verb runs, found in the services' source (Node only: docs/routes.md's
// generator and its test, never the Worker). A statement is a function of db/statements whose
// first parameter is the Database. From the verb's declaration the walk follows every name it
// uses: a statement is recorded, a function of services/ (its own file's or another's) is walked
// in turn, anything else is left; what a verb hands ctx.defer runs after the answer, and its
// statements are marked so (`after`). A resource service's verb (tasks.update) is the statement its
// declaration hands resourceService for that verb, and whatever services/resource-service.ts's
// verb of that name calls. Names only, no types: a verb that reaches a statement through a value
// computed at run time (a batch's operations) shows the statements it names itself.

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** A declaration of the project's source: the file (from the root) and the name it is exported by. */
export interface Declared {
  file: string;
  name: string;
}

/** A statement a verb runs; `after`: only once the answer is sent (handed to ctx.defer). */
export interface StatementRun extends Declared {
  after: boolean;
}

interface Source {
  /** Local name -> where it is imported from (a file from the root) and by which name ("*" for a namespace). */
  imports: Map<string, Declared>;
  /** Top-level declarations by name: a function, or a variable's declaration. */
  declarations: Map<string, ts.Node>;
}

const sources = new Map<string, Source>();

function sourceOf(file: string): Source {
  let source = sources.get(file);
  if (source) return source;
  const tree = ts.createSourceFile(file, readFileSync(join(ROOT, file), "utf8"), ts.ScriptTarget.Latest, true);
  source = { imports: new Map(), declarations: new Map() };
  for (const statement of tree.statements) {
    if (
      ts.isImportDeclaration(statement) &&
      ts.isStringLiteral(statement.moduleSpecifier) &&
      statement.moduleSpecifier.text.startsWith(".")
    ) {
      const clause = statement.importClause;
      if (!clause || clause.isTypeOnly) continue;
      const from = relative(ROOT, resolve(ROOT, dirname(file), statement.moduleSpecifier.text));
      const bindings = clause.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) source.imports.set(bindings.name.text, { file: from, name: "*" });
      if (bindings && ts.isNamedImports(bindings)) {
        for (const element of bindings.elements)
          if (!element.isTypeOnly) source.imports.set(element.name.text, { file: from, name: (element.propertyName ?? element.name).text });
      }
    }
    if (ts.isFunctionDeclaration(statement) && statement.name) source.declarations.set(statement.name.text, statement);
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations)
        if (ts.isIdentifier(declaration.name)) source.declarations.set(declaration.name.text, declaration);
    }
  }
  sources.set(file, source);
  return source;
}

/** The function a declaration is (a function, or a variable holding an arrow or function expression). */
function functionOf(node: ts.Node | undefined): ts.SignatureDeclaration | undefined {
  if (node && ts.isFunctionDeclaration(node)) return node;
  const value = node && ts.isVariableDeclaration(node) ? node.initializer : undefined;
  return value && (ts.isArrowFunction(value) || ts.isFunctionExpression(value)) ? value : undefined;
}

/** Whether `name` of db/statements' `file` is a statement: a function taking the Database first. */
function isStatement({ file, name }: Declared): boolean {
  const first = functionOf(sourceOf(file).declarations.get(name))?.parameters[0];
  return first?.type?.getText() === "Database";
}

/** Whether an identifier names something here (not a member's or a parameter's own name). */
function isReference(id: ts.Identifier): boolean {
  const parent = id.parent;
  if ((ts.isPropertyAccessExpression(parent) || ts.isPropertyAssignment(parent) || ts.isMethodDeclaration(parent)) && parent.name === id)
    return false;
  if (
    (ts.isParameter(parent) || ts.isVariableDeclaration(parent) || ts.isFunctionDeclaration(parent) || ts.isBindingElement(parent)) &&
    parent.name === id
  )
    return false;
  return !(ts.isBindingElement(parent) && parent.propertyName === id);
}

/** Whether `node` is a call of `<something>.defer(...)`: work registered for after the answer. */
const isDeferred = (node: ts.Node) =>
  ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === "defer";

class Walk {
  readonly statements: StatementRun[] = [];
  private readonly seen = new Set<string>();

  /** Follows what `node` (of `file`) names: statements are recorded, functions of services/ walked. */
  names(node: ts.Node, file: string, after = false): void {
    if (ts.isTypeNode(node)) return;
    if (ts.isIdentifier(node) && isReference(node)) this.follow(this.target(node, file), after);
    const later = after || isDeferred(node);
    node.forEachChild((child) => this.names(child, file, later));
  }

  /** What an identifier of `file` names: an import (a namespace's member), or a declaration of the file. */
  private target(id: ts.Identifier, file: string): Declared | undefined {
    const { imports, declarations } = sourceOf(file);
    const imported = imports.get(id.text);
    if (!imported) return declarations.has(id.text) ? { file, name: id.text } : undefined;
    if (imported.name !== "*") return imported;
    const access = id.parent;
    return ts.isPropertyAccessExpression(access) && access.expression === id ? { file: imported.file, name: access.name.text } : undefined;
  }

  follow(target: Declared | undefined, after = false): void {
    if (!target || !target.file.endsWith(".ts")) return;
    const key = `${target.file}#${target.name}#${after}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    if (target.file.startsWith("db/statements/")) {
      if (isStatement(target)) this.statements.push({ ...target, after });
    } else if (target.file.startsWith("services/")) {
      const declaration = sourceOf(target.file).declarations.get(target.name);
      if (declaration) this.names(declaration, target.file, after);
    }
  }
}

/** The first property or method named `name` within `node`. */
function memberIn(node: ts.Node, name: string): ts.Node | undefined {
  if ((ts.isPropertyAssignment(node) || ts.isMethodDeclaration(node)) && node.name.getText() === name) return node;
  return node.forEachChild((child) => memberIn(child, name));
}

/**
 * The verb `member` of the resource service `declared` (tasks.update): the statement its
 * declaration gives resourceService (`statements: { update: ... }`), and what the factory's
 * verb of that name runs.
 */
function resourceVerb(walk: Walk, declared: Declared, member: string): void {
  const declaration = sourceOf(declared.file).declarations.get(declared.name);
  const call = declaration && ts.isVariableDeclaration(declaration) ? declaration.initializer : undefined;
  if (!call || !ts.isCallExpression(call) || !ts.isIdentifier(call.expression))
    throw new Error(`${declared.file}: ${declared.name} is not made by a call`);
  const [spec] = call.arguments;
  const statements = spec && memberIn(spec, "statements");
  const given = statements && memberIn(statements, member);
  if (given) walk.names(given, declared.file);
  const factory = sourceOf(declared.file).imports.get(call.expression.text) ?? { file: declared.file, name: call.expression.text };
  const body = sourceOf(factory.file).declarations.get(factory.name);
  const verb = body && memberIn(body, member);
  if (verb) walk.names(verb, factory.file);
}

/**
 * The statements the verb `declared` runs (`member`: a verb of the service object it exports),
 * each with its file, in the order the walk meets them.
 */
export function statementsOf(declared: Declared, member?: string): StatementRun[] {
  const walk = new Walk();
  if (member) resourceVerb(walk, declared, member);
  else walk.follow(declared);
  return walk.statements;
}
