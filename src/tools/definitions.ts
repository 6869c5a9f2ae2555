import type { ToolDefinition } from '../protocol/events.js';

// `x-command` on a `--tools` definition (SPEC §15) is gatechat's, never the gateway's. Small and
// free of the tools code, so the start-up path can strip it without loading the loop.

/** The shell command of a definition (on the definition or inside `function`), or undefined. */
export function commandOf(tool: ToolDefinition): string | undefined {
  const own = (tool as { 'x-command'?: unknown })['x-command'];
  const inner = (tool.function as { 'x-command'?: unknown })['x-command'];
  const command = own ?? inner;
  return typeof command === 'string' && command.trim() !== '' ? command : undefined;
}

/** Whether any definition runs as a command tool. */
export function hasCommandTools(tools: ToolDefinition[] | undefined): boolean {
  return tools?.some((tool) => commandOf(tool) !== undefined) ?? false;
}

/** The definitions as the gateway gets them (and as they are saved): without `x-command`. */
export function wireTools(tools: ToolDefinition[]): ToolDefinition[] {
  return tools.map((tool) => {
    if (!('x-command' in tool) && !('x-command' in tool.function)) return tool;
    const { 'x-command': _own, ...rest } = tool as ToolDefinition & { 'x-command'?: unknown };
    const { 'x-command': _inner, ...fn } = tool.function as ToolDefinition['function'] & { 'x-command'?: unknown };
    return { ...rest, function: fn };
  });
}
