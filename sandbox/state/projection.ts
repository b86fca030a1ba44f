/**
 * Upstream `fields` projection: a space-separated list of (possibly dotted) paths; `_id` always.
 */
export function projectFields(document: Record<string, unknown>, fields: string | null): Record<string, unknown> {
  if (fields === null || fields.trim() === '') return document;
  const projected: Record<string, unknown> = { _id: document._id };
  for (const path of fields.split(/[\s,]+/).filter(Boolean)) {
    copyPath(document, projected, path.split('.'));
  }
  return projected;
}

function copyPath(source: Record<string, unknown>, target: Record<string, unknown>, path: string[]): void {
  const [head, ...rest] = path;
  if (!(head in source)) return;
  const value = source[head];
  if (rest.length === 0 || !isPlainObject(value)) {
    target[head] = value;
    return;
  }
  const child = isPlainObject(target[head]) ? target[head] : {};
  target[head] = child;
  copyPath(value, child, rest);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
