import { isTerminal } from '../session/direct-stdin.js';

// process.stdout and process.stderr are getters: Node builds each stream when it is first read — for a pipe
// a net.Socket (measured before a piped one-shot's request: stdout 1.4–2 ms, stderr 0.1–0.15 ms of the main
// thread). A piped one-shot only asks before its request whether each is a terminal (the descriptor
// answers) and builds stdout once the request is written; stderr only when something is said there. The
// minimal node:http client of SPEC §10 builds stdout at its first write and never builds stderr.

export type OutputName = 'stdout' | 'stderr';

const built = new Set<OutputName>();

/**
 * `prepare` runs on process[name] when it is first built, whoever reads it first: a renderer, Ink (which
 * reads process.stdout itself), commander's help. So what every output needs (main.ts: the EPIPE listener,
 * the 0×0 terminal's size) is on the stream before anything is written to it.
 */
export function prepareWhenBuilt(name: OutputName, prepare: (stream: NodeJS.WriteStream) => void): void {
  const node = Object.getOwnPropertyDescriptor(process, name);
  if (!node?.get || !node.configurable) {
    // Not Node's lazy getter (never seen): built now, as before.
    built.add(name);
    prepare(process[name]);
    return;
  }
  const build = node.get;
  Object.defineProperty(process, name, {
    configurable: true,
    enumerable: node.enumerable,
    get(this: NodeJS.Process) {
      const stream = build.call(this) as NodeJS.WriteStream;
      // Later reads go straight to Node's getter (which keeps the stream).
      Object.defineProperty(process, name, node);
      built.add(name);
      prepare(stream);
      return stream;
    },
  });
}

/** Whether process[name] has been built (read) in this process: a stream never built holds no output. */
export function isBuilt(name: OutputName): boolean {
  return built.has(name);
}

/** Is stdout / stderr a terminal, as the stream's `isTTY` would say — asked of the descriptor, once each. */
export class OutputTerminals {
  private readonly known: Partial<Record<OutputName, boolean>> = {};

  get stdout(): boolean {
    return (this.known.stdout ??= isTerminal(1));
  }

  get stderr(): boolean {
    return (this.known.stderr ??= isTerminal(2));
  }
}
