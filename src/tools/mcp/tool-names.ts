// The names the model sees for MCP tools (SPEC §15): `<server>__<tool>`, only [A-Za-z0-9_-] (what both
// interfaces accept in a tool name), at most 64 characters, unique within the run.

const MAX = 64;

function clean(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/g, '_');
}

/** One model-facing name per entry, in order. A name cut or cleaned into a clash gets `_2`, `_3`, … */
export function modelFacingNames(entries: Array<{ server: string; tool: string }>): string[] {
  const taken = new Set<string>();
  return entries.map(({ server, tool }) => {
    const base = `${clean(server)}__${clean(tool)}`.slice(0, MAX);
    let name = base;
    for (let n = 2; taken.has(name); n++) {
      const suffix = `_${n}`;
      name = base.slice(0, MAX - suffix.length) + suffix;
    }
    taken.add(name);
    return name;
  });
}
