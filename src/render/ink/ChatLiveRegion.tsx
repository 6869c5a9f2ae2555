import { Box, Text } from 'ink';
import type { Attachment } from '../../protocol/events.js';
import type { SessionSettings } from '../../session/types.js';
import { attachmentLabel } from './attachment-label.js';
import type { LastAnswer, LiveTurn } from './chat-state.js';
import { INPUT_BOX_CHROME_COLUMNS, InputBox } from './InputBox.js';
import { inputView } from './input-layout.js';
import { chipLabelOf, type InputState } from './input-state.js';
import { answerLineBudget, inputRowBudget } from './live-region-budget.js';
import { LiveTurnView } from './LiveTurnView.js';
import { StatusLine } from './StatusLine.js';
import { visibleWidth } from './wrap.js';

interface Props {
  live: LiveTurn | null;
  showReasoning: boolean;
  input: InputState;
  pending: readonly Attachment[];
  settings: SessionSettings;
  last: LastAnswer | null;
  /** Shown instead of the status text (a hint, "press Ctrl-C again"). */
  notice: string | null;
  columns: number;
  rows: number;
  color: boolean;
}

/**
 * The part of the chat that is redrawn: the answer being streamed, the files waiting for the next
 * message, the input box and the status line. Everything above it was printed once and stays; what
 * is printed is never re-printed on resize (that would clear the scrollback, SPEC §8), so only this
 * region follows the new width — and it is kept shorter than the window (live-region-budget.ts).
 */
export function ChatLiveRegion({ live, showReasoning, input, pending, settings, last, notice, columns, rows, color }: Props) {
  const attachmentRows = pending.length > 0 ? 1 : 0;
  // A long hint (Tab's candidates) wraps: the rows past its first come out of the input box's share.
  const noticeRows = notice ? Math.max(1, Math.ceil(visibleWidth(` ${notice}`) / Math.max(1, columns))) : 1;
  const extraRows = attachmentRows + noticeRows - 1;
  const inputRows = inputRowBudget(rows, extraRows, live !== null);
  const view = inputView(input.value, input.cursor, columns - INPUT_BOX_CHROME_COLUMNS, inputRows, chipLabelOf(input));
  const inputShown = view.height;
  return (
    <>
      {live && <LiveTurnView live={live} showReasoning={showReasoning} width={columns} maxLines={answerLineBudget(rows, inputShown, extraRows)} color={color} />}
      <Box marginTop={1} flexDirection="column">
        {pending.length > 0 && (
          <Text dimColor wrap="truncate-end">{` attached: ${pending.map(attachmentLabel).join(' · ')}  (/attach clear drops them)`}</Text>
        )}
        <InputBox view={view} empty={input.value === ''} busy={live !== null} color={color} />
        <StatusLine settings={settings} last={last} live={live} notice={notice} color={color} />
      </Box>
    </>
  );
}
