import path from 'node:path';
import ts from 'typescript';

const TYPES_FILE = path.join(__dirname, '../../src/upstream/guesty.types.ts');

/**
 * The fields the product reads of one upstream answer: every property path of the named interface
 * of src/upstream/guesty.types.ts (the product's only reading of upstream JSON), nested objects and
 * array items included ("a.b", "list[].c"), read with the TypeScript compiler.
 */
let program: ts.Program | undefined;

export function productFields(typeName: string): string[] {
  program ??= ts.createProgram([TYPES_FILE], { strict: true, noEmit: true });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(TYPES_FILE);
  if (!source) throw new Error(`cannot read ${TYPES_FILE}`);
  const declaration = source.statements.find(
    (node): node is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(node) && node.name.text === typeName,
  );
  if (!declaration) throw new Error(`no interface ${typeName} in guesty.types.ts`);
  const fields: string[] = [];
  const walk = (type: ts.Type, prefix: string, depth: number) => {
    if (depth > 6) return;
    const plain = checker.getNonNullableType(type);
    if (checker.isArrayType(plain)) {
      const [element] = checker.getTypeArguments(plain as ts.TypeReference);
      walk(element, `${prefix}[]`, depth + 1);
      return;
    }
    if (!(plain.flags & ts.TypeFlags.Object) || plain.getCallSignatures().length > 0) return;
    for (const property of plain.getProperties()) {
      const name = prefix ? `${prefix}.${property.name}` : property.name;
      fields.push(name);
      walk(checker.getTypeOfSymbolAtLocation(property, declaration), name, depth + 1);
    }
  };
  walk(checker.getTypeAtLocation(declaration), '', 0);
  return fields;
}

type Schema = { type?: string; properties?: Record<string, Schema>; items?: Schema; allOf?: Schema[]; oneOf?: Schema[]; anyOf?: Schema[] };

/** Whether the reference's schema names the field (a path from productFields). */
export function referenceHas(schema: Schema, field: string): boolean {
  let nodes: Schema[] = [schema];
  for (const part of field.split('.').flatMap((segment) => segment.split(/(?=\[\])/))) {
    const expanded = nodes.flatMap((node) => [node, ...(node.allOf ?? []), ...(node.oneOf ?? []), ...(node.anyOf ?? [])]);
    nodes =
      part === '[]'
        ? expanded.flatMap((node) => (node.items ? [node.items] : []))
        : expanded.flatMap((node) => (node.properties?.[part.replace(/^\[\]/, '')] ? [node.properties[part.replace(/^\[\]/, '')]] : []));
    if (nodes.length === 0) return false;
  }
  return true;
}

/** Whether a published example (docs/upstream-reference/examples/) shows the field (a path from productFields). */
export function exampleHas(example: unknown, field: string): boolean {
  let nodes: unknown[] = [example];
  for (const part of field.split('.').flatMap((segment) => segment.split(/(?=\[\])/))) {
    nodes =
      part === '[]'
        ? nodes.flatMap((node) => (Array.isArray(node) ? node : []))
        : nodes.flatMap((node) =>
            node !== null && typeof node === 'object' && part.replace(/^\[\]/, '') in node
              ? [(node as Record<string, unknown>)[part.replace(/^\[\]/, '')]]
              : [],
          );
    if (nodes.length === 0) return false;
  }
  return true;
}
