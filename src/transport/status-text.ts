// Not `import { STATUS_CODES } from 'node:http'`: on Node 22+ an ESM import of node:http builds its
// module namespace, and that reads the lazy getters (WebSocket & co.) that load Node's own bundled
// undici — ~18 ms and several MiB on every start for a table of reason phrases. And not at start
// either: only an error line needs a phrase, and node:http costs a one-shot ~1.4 ms to load.
let codes: Record<number, string | undefined> | undefined;

/** `404` → `Not Found`; undefined for codes without a standard phrase. */
export function statusText(status: number): string | undefined {
  codes ??= process.getBuiltinModule('node:http').STATUS_CODES;
  return codes[status];
}
