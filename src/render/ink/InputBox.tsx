import { Box, Text } from 'ink';

interface Props {
  value: string;
  cursor: number;
  busy: boolean;
  color: boolean;
}

const PLACEHOLDER = 'Ask anything · /help for commands';

/** The prompt editor: the text with an inverse-video cursor, multi-line as typed. */
export function InputBox({ value, cursor, busy, color }: Props) {
  const before = value.slice(0, cursor);
  const at = value.slice(cursor, cursor + 1);
  const after = value.slice(cursor + 1);
  return (
    <Box borderStyle="round" borderColor={color ? (busy ? 'gray' : 'cyan') : undefined} paddingX={1}>
      <Box width={2} flexShrink={0}>
        <Text color={color ? 'cyan' : undefined} bold>
          ›
        </Text>
      </Box>
      <Box flexGrow={1}>
        {value === '' ? (
          <Text>
            <Text inverse> </Text>
            <Text dimColor>{busy ? ' answering… (Esc cancels)' : ` ${PLACEHOLDER}`}</Text>
          </Text>
        ) : (
          <Text>
            {before}
            <Text inverse>{at === '' || at === '\n' ? ' ' : at}</Text>
            {at === '\n' ? '\n' : ''}
            {after}
          </Text>
        )}
      </Box>
    </Box>
  );
}
