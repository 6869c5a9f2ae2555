import { Box, Text } from 'ink';
import type { ToolCall } from '../../protocol/events.js';
import { sanitizeForTerminal as safe } from '../terminal-text.js';
import { jsonText } from '../json-text.js';

function formatArguments(args: unknown): string {
  // Arguments that are not JSON stay the model's raw string, drawn safely; JSON shows every control
  // character, C1 and DEL included, as a \u escape (JSON.stringify alone leaves those raw).
  if (typeof args === 'string') return safe(args);
  const json = jsonText(args, 2);
  return json === '{}' ? '(no arguments)' : json;
}

/** A tool call the model made, as a bordered block: name, id, arguments pretty-printed. */
export function ToolCallBlock({ call, color }: { call: ToolCall; color: boolean }) {
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={color ? 'magenta' : undefined} paddingX={1}>
      <Text>
        <Text bold color={color ? 'magenta' : undefined}>{`tool call ${safe(call.name)}`}</Text>
        <Text dimColor={color}>{`  ${safe(call.id)}`}</Text>
      </Text>
      <Text>{formatArguments(call.arguments)}</Text>
    </Box>
  );
}
