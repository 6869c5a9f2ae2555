import { useMemo } from 'react';
import { Box, Text } from 'ink';
import { sanitizeForTerminal } from '../terminal-text.js';
import type { LiveTurn } from './chat-state.js';
import { renderMarkdownText } from './markdown-loader.js';
import { Spinner } from './Spinner.js';
import { tailLines } from './text.js';
import { ToolCallBlock } from './ToolCallBlock.js';

interface Props {
  live: LiveTurn;
  showReasoning: boolean;
  width: number;
  /** Rows the live region may take: a region taller than the terminal makes Ink redraw everything. */
  maxLines: number;
  color: boolean;
}

/** The only part of the transcript that re-renders per batch: the block being written. */
export function LiveTurnView({ live, showReasoning, width, maxLines, color }: Props) {
  const rendered = useMemo(() => renderMarkdownText(live.pending, width - 2, color), [live.pending, width, color]);
  const thinking = !live.reasoningDone && live.reasoning.trim() !== '';
  const reasoningBudget = Math.min(6, Math.max(1, Math.floor(maxLines / 3)));
  const reasoning = useMemo(
    () => (thinking && showReasoning ? tailLines(sanitizeForTerminal(live.reasoning).trim(), reasoningBudget) : null),
    [thinking, showReasoning, live.reasoning, reasoningBudget],
  );
  const answerBudget = Math.max(1, maxLines - (reasoning ? reasoning.text.split('\n').length + 1 : 0) - 2);
  const answer = useMemo(() => tailLines(rendered, answerBudget), [rendered, answerBudget]);

  return (
    <Box flexDirection="column">
      {live.firstTokenAt === null && <Spinner since={live.startedAt} label="waiting for the first token" color={color} />}
      {thinking && !showReasoning && (
        <Box paddingLeft={2}>
          <Spinner since={live.startedAt} label={`thinking (${live.reasoning.trim().split('\n').length} lines folded, Ctrl-R shows)`} color={color} />
        </Box>
      )}
      {reasoning && (
        <Box paddingLeft={2} flexDirection="column">
          {reasoning.hidden > 0 && <Text dimColor>{`… ${reasoning.hidden} earlier lines of reasoning`}</Text>}
          <Text dimColor italic={color}>
            {reasoning.text}
          </Text>
        </Box>
      )}
      {rendered !== '' && (
        <Box paddingLeft={2} marginTop={1} flexDirection="column">
          {answer.hidden > 0 && <Text dimColor>{`… ${answer.hidden} lines above (printed in full when the block is complete)`}</Text>}
          <Text>{answer.text}</Text>
        </Box>
      )}
      {live.toolCalls.map((call) => (
        <Box key={call.id} paddingLeft={2}>
          <ToolCallBlock call={call} color={color} />
        </Box>
      ))}
    </Box>
  );
}
