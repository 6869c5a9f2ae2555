import { Box, Text } from 'ink';
import { inputView } from './input-view.js';

interface Props {
  value: string;
  cursor: number;
  busy: boolean;
  color: boolean;
  /** Terminal columns, and the most rows the text may take (see input-view.ts). */
  width: number;
  maxRows: number;
}

/** Border, padding and the › column. */
export const INPUT_BOX_CHROME_COLUMNS = 6;

const PLACEHOLDER = 'Ask anything · /help for commands';

/** The prompt editor: the text with an inverse-video cursor, multi-line as typed. */
export function InputBox({ value, cursor, busy, color, width, maxRows }: Props) {
  const view = inputView(value, cursor, width - INPUT_BOX_CHROME_COLUMNS, maxRows);
  const before = view.text.slice(0, view.cursor);
  const at = view.text.slice(view.cursor, view.cursor + 1);
  const after = view.text.slice(view.cursor + 1);
  const more = (n: number, where: string) => <Text dimColor>{`… ${n} more line${n === 1 ? '' : 's'} ${where}`}</Text>;
  return (
    <Box borderStyle="round" borderColor={color ? (busy ? 'gray' : 'cyan') : undefined} paddingX={1}>
      <Box width={2} flexShrink={0}>
        <Text color={color ? 'cyan' : undefined} bold>
          ›
        </Text>
      </Box>
      <Box flexGrow={1} flexDirection="column">
        {view.hiddenAbove > 0 && more(view.hiddenAbove, 'above')}
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
        {view.hiddenBelow > 0 && more(view.hiddenBelow, 'below')}
      </Box>
    </Box>
  );
}
