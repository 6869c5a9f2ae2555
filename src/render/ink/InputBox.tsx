import { Box, Text } from 'ink';
import type { InputView, Span } from './input-layout.js';

interface Props {
  /** The rows to draw, laid out by input-layout.ts for this box's width and height. */
  view: InputView;
  empty: boolean;
  busy: boolean;
  color: boolean;
}

/** Border, padding and the › column. */
export const INPUT_BOX_CHROME_COLUMNS = 6;

const PLACEHOLDER = 'Ask anything · /help for commands';

function SpanText({ span, color }: { span: Span; color: boolean }) {
  if (span.kind === 'chip') return <Text inverse={span.cursor} color={color ? 'cyan' : undefined}>{span.text}</Text>;
  return span.cursor ? <Text inverse>{span.text}</Text> : <Text>{span.text}</Text>;
}

/** The prompt editor: draws the rows input-layout.ts laid out, the cursor in inverse video. */
export function InputBox({ view, empty, busy, color }: Props) {
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
        {empty ? (
          <Text wrap="truncate-end">
            <Text inverse> </Text>
            <Text dimColor>{busy ? ' answering… (Esc cancels)' : ` ${PLACEHOLDER}`}</Text>
          </Text>
        ) : (
          view.rows.map((row, i) => (
            // Rows are already as wide as the box: never wrapped again by Ink.
            <Text key={i} wrap="truncate-end">
              {row.map((span, j) => (
                <SpanText key={j} span={span} color={color} />
              ))}
            </Text>
          ))
        )}
        {view.hiddenBelow > 0 && more(view.hiddenBelow, 'below')}
      </Box>
    </Box>
  );
}
