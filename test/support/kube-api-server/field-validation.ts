// Unknown fields of built-in kinds, as the real API server treats them (kubernetes/apiserver@24a394e
// pkg/endpoints/handlers/rest.go fieldValidation: no `fieldValidation` parameter means Warn; create.go and update.go:
// Warn drops the field and adds a warning per field, Strict answers 400 "<Kind> in version "<v>" cannot be handled as
// a <Kind>: strict decoding error: unknown field "<path>"" (transformDecodeError), Ignore drops it silently;
// patch.go: a patched object with unknown fields under Strict is 422 Invalid on `patch`). The field paths and the
// joined message are apimachinery's (kubernetes/apimachinery@eed236c pkg/runtime/error.go strictDecodingError,
// pkg/runtime/converter_test.go), the Warning header its NewWarningHeader (pkg/util/net/http.go: `299 - "<text>"`).
// What a kind declares is read from @kubernetes/client-node's typed models (the Kubernetes OpenAPI the client is
// generated from); custom resources keep every field (no CRD schemas are served: docs/test-cluster.md lists it).
import * as k8s from '@kubernetes/client-node';
import { ApiFailureError, failure } from './status.ts';
import type { ApiFailure } from './status.ts';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';
type Attribute = { readonly baseName: string; readonly type: string };
type Model = { getAttributeTypeMap(): Attribute[] };

const models = k8s as unknown as Record<string, Model | undefined>;
const LEAF = new Set(['string', 'number', 'boolean', 'Date', 'any', 'object', 'IntOrString']);

/**
 * The query's directive; the real server's default is Warn. Another value is 422 on the request's options
 * (apimachinery pkg/apis/meta/v1/validation/validation.go ValidateFieldValidation, field.NotSupported).
 */
export function fieldValidation(
  params: URLSearchParams,
  options: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions',
): FieldValidation {
  const value = params.get('fieldValidation') ?? '';
  if (value === '') return 'Warn';
  if (value === 'Strict' || value === 'Warn' || value === 'Ignore') return value;
  const body = `Unsupported value: ${JSON.stringify(value)}: supported values: "", "Ignore", "Strict", "Warn"`;
  throw new ApiFailureError(
    failure(422, `${options}.meta.k8s.io "" is invalid: fieldValidation: ${body}`, 'Invalid', {
      group: 'meta.k8s.io',
      kind: options,
      causes: [{ reason: 'FieldValueNotSupported', message: body, field: 'fieldValidation' }],
    }),
  );
}

function prune(value: unknown, type: string, path: string, unknown: string[]): void {
  if (value === null || value === undefined || LEAF.has(type)) return;
  const array = /^Array<(.+)>$/.exec(type);
  if (array !== null) {
    if (Array.isArray(value)) value.forEach((v, i) => prune(v, array[1]!, `${path}[${i}]`, unknown));
    return;
  }
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map !== null) {
    if (typeof value === 'object')
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) prune(v, map[1]!, `${path}.${k}`, unknown);
    return;
  }
  const model = models[type];
  if (model?.getAttributeTypeMap === undefined || typeof value !== 'object' || Array.isArray(value)) return;
  const attributes = new Map(model.getAttributeTypeMap().map((a) => [a.baseName, a.type]));
  const object = value as Record<string, unknown>;
  for (const key of Object.keys(object)) {
    const child = path === '' ? key : `${path}.${key}`;
    const attribute = attributes.get(key);
    if (attribute === undefined) {
      unknown.push(child);
      delete object[key];
    } else prune(object[key], attribute, child, unknown);
  }
}

/** Drops the fields the kind does not declare; returns their paths, as the strict decoder names them. */
export function pruneUnknownFields(kind: string, object: unknown): string[] {
  const unknown: string[] = [];
  if (models[`V1${kind}`] !== undefined) prune(object, `V1${kind}`, '', unknown);
  return unknown;
}

const strictError = (unknown: readonly string[]) =>
  `strict decoding error: ${unknown.map((u) => `unknown field "${u}"`).join(', ')}`;

/** Warning header values for Warn: one `299 - "unknown field \"<path>\""` per field. */
export const unknownFieldWarnings = (unknown: readonly string[]): string[] =>
  unknown.map((u) => `299 - ${JSON.stringify(`unknown field "${u}"`)}`);

/** Create or PUT under Strict: 400 BadRequest from transformDecodeError. */
export function strictBodyFailure(kind: string, apiVersion: string, unknown: readonly string[]): ApiFailure {
  const version = apiVersion.split('/').at(-1) ?? apiVersion;
  return failure(400, `${kind} in version "${version}" cannot be handled as a ${kind}: ${strictError(unknown)}`);
}

/** A patch under Strict: 422 Invalid naming `patch` and the patched object (patch.go applyPatchToCurrentObject). */
export function strictPatchFailure(patched: unknown, unknown: readonly string[]): ApiFailure {
  const body = `Invalid value: ${JSON.stringify(JSON.stringify(patched))}: ${strictError(unknown)}`;
  return failure(422, ` "" is invalid: patch: ${body}`, 'Invalid', {
    causes: [{ reason: 'FieldValueInvalid', message: body, field: 'patch' }],
  });
}

/**
 * A write's body (or a patch's result) as the server decodes it: built-in kinds lose the fields they do not declare,
 * with a Warning header per field (Warn), a refusal (Strict) or silently (Ignore).
 */
export function decodeWrite(
  type: { readonly kind: string; readonly builtIn: boolean },
  body: unknown,
  directive: FieldValidation,
  res: { setHeader(name: string, value: string[]): unknown },
  patched = false,
): unknown {
  if (!type.builtIn || body === null || typeof body !== 'object') return body;
  const original = patched ? structuredClone(body) : undefined;
  const unknown = pruneUnknownFields(type.kind, body);
  if (unknown.length === 0 || directive === 'Ignore') return body;
  if (directive === 'Strict')
    throw new ApiFailureError(
      patched
        ? strictPatchFailure(original, unknown)
        : strictBodyFailure(type.kind, String((body as { apiVersion?: unknown }).apiVersion ?? ''), unknown),
    );
  res.setHeader('Warning', unknownFieldWarnings(unknown));
  return body;
}
