import { useEffect, useRef, useState } from 'react';
import { Box, Static, Text, useApp } from 'ink';
import type { ChatEvent } from '../../protocol/events.js';
import type { CompareHandlers } from '../../session/compare.js';
import type { TurnOutcome } from '../../session/types.js';
import { formatSummaryTable, summaryRows } from '../compare.js';
import { sanitizeForTerminal } from '../terminal-text.js';
import { decodeKeys } from './keys.js';
import { useRawInput } from './use-raw-input.js';
import { useTerminalSize } from './use-terminal-size.js';

export interface CompareAppProps {
  names: readonly string[];
  run: (handlers: CompareHandlers, signal: AbortSignal) => Promise<TurnOutcome[]>;
  /** Registers where each model's retry notices go (its pane's title line). */
  showRetryNotices?: (show: (index: number, line: string) => void) => void;
  /** Ctrl-C arrives as a key only when stdin is the terminal. */
  keys: boolean;
  color: boolean;
  onDone(outcomes: TurnOutcome[]): void;
}

interface Pane {
  text: string;
  /** The latest retry notice, shown until the answer starts. */
  notice: string | null;
  state: 'waiting' | 'sending' | 'streaming' | 'done';
  outcome: TurnOutcome | null;
}

// Panes are redrawn at most this often: a delta per frame would redraw N panes per token.
const FRAME_MS = 50;

/** The last `lines` screen lines of `text` at `width` columns (long lines wrap). */
export function tailLines(text: string, lines: number, width: number): string {
  const out: string[] = [];
  const logical = text.split('\n');
  for (let i = logical.length - 1; i >= 0 && out.length < lines; i--) {
    const line = logical[i];
    const pieces: string[] = [];
    for (let at = 0; at < Math.max(1, line.length); at += width) pieces.push(line.slice(at, at + width));
    out.unshift(...pieces.slice(-(lines - out.length)));
  }
  return out.join('\n');
}

function paneStatus(pane: Pane): string {
  if (!pane.outcome) return pane.state === 'sending' && pane.notice ? pane.notice : pane.state;
  const { status, timings } = pane.outcome;
  return `${status === 'complete' ? 'done' : status} · ${(timings.totalMs / 1000).toFixed(1)}s`;
}

/**
 * Compare mode on a terminal (SPEC §11): one live pane per model showing the end of its answer,
 * then each whole answer in the order given and the summary table.
 */
export function CompareApp({ names, run, showRetryNotices, keys, color, onDone }: CompareAppProps) {
  const { exit } = useApp();
  const { columns, rows } = useTerminalSize();
  const panesRef = useRef<Pane[]>(names.map(() => ({ text: '', notice: null, state: 'waiting', outcome: null })));
  const [panes, setPanes] = useState<Pane[]>(() => panesRef.current.map((p) => ({ ...p })));
  const [outcomes, setOutcomes] = useState<TurnOutcome[] | null>(null);
  const controller = useRef(new AbortController());

  useRawInput((raw) => {
    for (const key of decodeKeys(raw)) {
      if (key.kind === 'escape' || (key.kind === 'ctrl' && key.key === 'c')) controller.current.abort();
    }
  }, keys);

  useEffect(() => {
    const panesNow = panesRef.current;
    let dirty = false;
    const timer = setInterval(() => {
      if (!dirty) return;
      dirty = false;
      setPanes(panesNow.map((p) => ({ ...p })));
    }, FRAME_MS);
    const onEvent = (index: number, event: ChatEvent) => {
      const pane = panesNow[index];
      if (event.type === 'text') pane.text += event.delta;
      else if (event.type === 'tool_call') pane.text += `\n[tool call ${event.name} ${JSON.stringify(event.arguments)}]\n`;
      else return;
      pane.state = 'streaming';
      dirty = true;
    };
    showRetryNotices?.((index, line) => {
      panesNow[index].notice = line.replace(/^gatechat: (\[[^\]]*\] )?/, '');
      dirty = true;
    });
    const handlers: CompareHandlers = {
      onStart: (index) => {
        panesNow[index].state = 'sending';
        dirty = true;
      },
      onEvent,
      onDone: (index, outcome) => {
        panesNow[index].state = 'done';
        panesNow[index].outcome = outcome;
        dirty = true;
      },
    };
    void run(handlers, controller.current.signal).then((all) => {
      clearInterval(timer);
      setPanes(panesNow.map((p) => ({ ...p })));
      setOutcomes(all);
    });
    return () => clearInterval(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // Leave after the frame that printed the answers and the table.
  useEffect(() => {
    if (outcomes) {
      onDone(outcomes);
      exit();
    }
  }, [outcomes, exit, onDone]);

  if (outcomes) {
    const answers = names.map((name, index) => ({ key: `${index}`, name, text: sanitizeForTerminal(panes[index].text) }));
    return (
      <Box flexDirection="column">
        <Static items={answers}>
          {(answer) => (
            <Box key={answer.key} flexDirection="column">
              <Text bold={color}>{`== ${answer.name} ==`}</Text>
              <Text>{answer.text.replace(/\n+$/, '')}</Text>
            </Box>
          )}
        </Static>
        <Box flexDirection="column" marginTop={1}>
          {formatSummaryTable(summaryRows(names, outcomes)).map((line, index) => (
            <Text key={index} bold={color && index === 0}>
              {line}
            </Text>
          ))}
        </Box>
      </Box>
    );
  }

  // Every pane gets an equal share of the screen: a title line, the border, the answer's tail.
  const paneLines = Math.max(1, Math.floor((rows - 1) / names.length) - 3);
  return (
    <Box flexDirection="column">
      {names.map((name, index) => (
        <Box key={index} flexDirection="column" borderStyle="round" borderDimColor paddingX={1}>
          <Text wrap="truncate-end">
            <Text bold={color}>{name}</Text>
            <Text dimColor>{` · ${paneStatus(panes[index])}`}</Text>
          </Text>
          <Text>{tailLines(sanitizeForTerminal(panes[index].text), paneLines, Math.max(10, columns - 4))}</Text>
        </Box>
      ))}
    </Box>
  );
}
