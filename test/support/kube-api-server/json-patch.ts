// RFC 6902 JSON patch (add, remove, replace, move, copy, test) with RFC 6901 pointers.
import { isDeepStrictEqual } from 'node:util';

/** Any failure applying a patch; the API server answers 422 with its message. */
export class JsonPatchError extends Error {}

interface Op {
  op: string;
  path: string;
  from?: string;
  value?: unknown;
}

function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new JsonPatchError(`invalid JSON pointer ${JSON.stringify(pointer)}`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

type Container = Record<string, unknown> | unknown[];

function resolveParent(doc: unknown, tokens: string[], path: string): { parent: Container; key: string } {
  let cur = doc;
  for (const t of tokens.slice(0, -1)) {
    cur = child(cur, t, path);
  }
  if (typeof cur !== 'object' || cur === null) throw new JsonPatchError(`path ${path} does not exist`);
  return { parent: cur as Container, key: tokens[tokens.length - 1] as string };
}

function child(cur: unknown, token: string, path: string): unknown {
  if (Array.isArray(cur)) {
    const i = arrayIndex(token, cur.length - 1, path);
    return cur[i];
  }
  if (typeof cur === 'object' && cur !== null && Object.hasOwn(cur, token))
    return (cur as Record<string, unknown>)[token];
  throw new JsonPatchError(`path ${path} does not exist`);
}

function arrayIndex(token: string, max: number, path: string): number {
  if (!/^(0|[1-9][0-9]*)$/.test(token))
    throw new JsonPatchError(`invalid array index ${JSON.stringify(token)} in ${path}`);
  const i = Number(token);
  if (i > max) throw new JsonPatchError(`array index ${i} out of range in ${path}`);
  return i;
}

function get(doc: unknown, path: string): unknown {
  let cur = doc;
  for (const t of parsePointer(path)) cur = child(cur, t, path);
  return cur;
}

function add(doc: unknown, path: string, value: unknown): unknown {
  const tokens = parsePointer(path);
  if (tokens.length === 0) return value;
  const { parent, key } = resolveParent(doc, tokens, path);
  if (Array.isArray(parent)) {
    if (key === '-') parent.push(value);
    else parent.splice(arrayIndex(key, parent.length, path), 0, value);
  } else parent[key] = value;
  return doc;
}

function remove(doc: unknown, path: string): unknown {
  const tokens = parsePointer(path);
  if (tokens.length === 0) throw new JsonPatchError('cannot remove the whole document');
  const { parent, key } = resolveParent(doc, tokens, path);
  if (Array.isArray(parent)) parent.splice(arrayIndex(key, parent.length - 1, path), 1);
  else {
    if (!Object.hasOwn(parent, key)) throw new JsonPatchError(`path ${path} does not exist`);
    delete parent[key];
  }
  return doc;
}

function asOps(patch: unknown): Op[] {
  if (!Array.isArray(patch)) throw new JsonPatchError('a JSON patch must be an array of operations');
  return patch.map((op, i) => {
    if (typeof op !== 'object' || op === null || typeof op.op !== 'string' || typeof op.path !== 'string') {
      throw new JsonPatchError(`operation ${i} needs string "op" and "path"`);
    }
    return op as Op;
  });
}

/** Applies every operation to a copy; throws JsonPatchError and leaves `doc` untouched on any failure. */
export function applyJsonPatch(doc: unknown, patch: unknown): unknown {
  let out = structuredClone(doc);
  for (const op of asOps(patch)) {
    switch (op.op) {
      case 'add':
        out = add(out, op.path, structuredClone(op.value));
        break;
      case 'remove':
        out = remove(out, op.path);
        break;
      case 'replace':
        get(out, op.path);
        out = add(remove(out, op.path), op.path, structuredClone(op.value));
        break;
      case 'move': {
        const value = get(out, requireFrom(op));
        out = add(remove(out, requireFrom(op)), op.path, value);
        break;
      }
      case 'copy':
        out = add(out, op.path, structuredClone(get(out, requireFrom(op))));
        break;
      case 'test':
        if (!isDeepStrictEqual(get(out, op.path), op.value)) {
          throw new JsonPatchError(`testing value ${op.path} failed: test failed`);
        }
        break;
      default:
        throw new JsonPatchError(`unknown operation ${JSON.stringify(op.op)}`);
    }
  }
  return out;
}

function requireFrom(op: Op): string {
  if (typeof op.from !== 'string') throw new JsonPatchError(`operation ${op.op} needs "from"`);
  return op.from;
}
