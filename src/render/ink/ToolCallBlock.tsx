import { Box, Text } from 'ink';
import type { ToolCall } from '../../protocol/events.js';

function formatArguments(args: unknown): string {
  if (typeof args === 'string') return args;
  const json = JSON.stringify(args, null, 2);
  return json === '{}' ? '(no arguments)' : json;
}

/** A tool call the model made, as a bordered block: name, id, arguments pretty-printed. */
export function ToolCallBlock({ call, color }: { call: ToolCall; color: boolean }) {
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={color ? 'magenta' : undefined} paddingX={1}>
      <Text>
        <Text bold color={color ? 'magenta' : undefined}>{`tool call ${call.name}`}</Text>
        <Text dimColor={color}>{`  ${call.id}`}</Text>
      </Text>
      <Text>{formatArguments(call.arguments)}</Text>
    </Box>
  );
}
