// Small helpers for reading untrusted JSON from gateways without throwing.

export type JsonObject = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** A non-empty string, else null: gateways send `""` where they mean "unchanged". */
export function nonEmptyString(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

export function numberOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

export type ParsedJson = { ok: true; value: unknown } | { ok: false };

export function tryParseJson(text: string): ParsedJson {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/** SPEC §4: an empty argument stream is {}; arguments that are not valid JSON stay a string. */
export function parseToolArguments(text: string): unknown {
  if (text.trim() === '') return {};
  const parsed = tryParseJson(text);
  return parsed.ok ? parsed.value : text;
}
