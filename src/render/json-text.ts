/**
 * JSON for output (SPEC §4, §20): `JSON.stringify` escapes C0 controls but leaves DEL and the C1
 * controls (U+0080–U+009F) raw, and U+009B is a CSI on many terminals. Escaped here, every control
 * character is a `\u` escape, so `--json` / `--jsonl` stay byte-safe on a terminal; the JSON value is
 * the same.
 */

// eslint-disable-next-line no-control-regex
const HAS_RAW_CONTROL = /[\u007F-\u009F]/;
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u007F-\u009F]/g;

export function jsonText(value: unknown, space?: number): string {
  const text = JSON.stringify(value, null, space);
  return HAS_RAW_CONTROL.test(text) ? text.replace(RAW_CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) : text;
}
