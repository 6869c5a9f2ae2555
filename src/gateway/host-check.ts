/**
 * DNS rebinding (SPEC §20): a web page on evil.example can make its name resolve to 127.0.0.1 and then
 * talk to the dev gateway from the user's browser, but its requests still carry `Host: evil.example`.
 * So the gateway answers only requests whose Host names the address it listens on.
 */
import { isIP } from 'node:net';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'];
const WILDCARD = new Set(['0.0.0.0', '::']);

/** `name` and port of a Host header (`[::1]:8787` → `::1`, 8787); the port is 80 when absent. */
function parseHost(header: string): { name: string; port: number } | null {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/.exec(header.trim());
  if (!match) return null;
  return { name: (match[1] ?? match[2]).toLowerCase(), port: match[3] === undefined ? 80 : Number(match[3]) };
}

/**
 * `listenHost` is what the gateway was asked to listen on (`127.0.0.1`, `::1`, a name, `0.0.0.0`). A
 * loopback name always counts; a wildcard listener also takes any IP literal (the machine's own
 * addresses: no page can rebind a literal address), never a name it cannot know to be its own.
 */
export function hostAllowed(header: string | undefined, listenHost: string, port: number): boolean {
  const host = header === undefined ? null : parseHost(header);
  if (!host || host.port !== port) return false;
  if (LOOPBACK_NAMES.includes(host.name) || host.name === listenHost.toLowerCase()) return true;
  return WILDCARD.has(listenHost) && isIP(host.name) !== 0;
}
