import { useEffect, useRef, useState } from 'react';
import { Box, Static, Text, useApp, useStderr } from 'ink';
import type { ChatEvent } from '../../protocol/events.js';
import type { TurnOutcome } from '../../session/types.js';
import { sanitizeForTerminal } from '../terminal-text.js';
import { approvalKeyOf, approvalPrompt, type ApprovalKey, type ToolViewHooks } from './approval.js';
import { chatReducer, initialChat, type StaticItem } from './chat-state.js';
import type { DeltaBatch } from './delta-batch.js';
import { decodeKeys } from './keys.js';
import { LiveTurnView } from './LiveTurnView.js';
import { loadMarkdown } from './markdown-loader.js';
import { StaticEntry } from './StaticEntry.js';
import { driveTurn } from './turn-driver.js';
import { useRawInput } from './use-raw-input.js';
import { useForgetPrinted } from './use-forget-printed.js';
import { useSyncReducer } from './use-sync-reducer.js';
import { useTerminalSize } from './use-terminal-size.js';

export interface OneShotAppProps {
  run: (signal: AbortSignal) => AsyncGenerator<ChatEvent, TurnOutcome, void>;
  color: boolean;
  showReasoning: boolean;
  quiet: boolean;
  /** Ctrl-C arrives as a key only when stdin is the terminal (not when a prompt was piped in). */
  keys: boolean;
  /** Retry notices are written through Ink, above the live region (see cli/context.ts). */
  showRetryNotices?: (show: (line: string) => void) => void;
  /**
   * Hands the tool loop (SPEC §15) this view's approval prompt and a way to print its lines above the
   * live region, before the turn starts. The prompt needs keys: without them the loop asks nothing.
   */
  bindToolHooks?: (hooks: ToolViewHooks) => void;
  onDone(outcome: TurnOutcome): void;
}

const DIM = (text: string, color: boolean) => (color ? `\u001B[2m${text}\u001B[22m` : text);

/**
 * One turn on a terminal: spinner, live Markdown, tool calls. Only the answer and tool calls reach
 * stdout; reasoning goes to stderr (SPEC §4), written before the answer that follows it.
 */
export function OneShotApp({ run, color, showReasoning, quiet, keys, showRetryNotices, bindToolHooks, onDone }: OneShotAppProps) {
  const { exit } = useApp();
  const { write: writeStderr } = useStderr();
  const { columns, rows } = useTerminalSize();
  const [chat, dispatch] = useSyncReducer(chatReducer, () => initialChat({ showReasoning: true }));
  useForgetPrinted(chat.items, dispatch);
  const controller = useRef(new AbortController());
  const outcomeRef = useRef<TurnOutcome | null>(null);
  const reasoning = useRef({ text: '', written: false });

  // A tool call waiting for y / a / n / Esc: the prompt shown below the answer, and who gets the key.
  const [approval, setApproval] = useState<string | null>(null);
  const answerApproval = useRef<((key: ApprovalKey) => void) | null>(null);

  useRawInput((raw) => {
    for (const key of decodeKeys(raw)) {
      const ctrlC = key.kind === 'ctrl' && key.key === 'c';
      const answer = answerApproval.current;
      if (answer) {
        // Esc answers the question (the loop cancels the turn); Ctrl-C answers it and cancels too.
        const chosen = ctrlC ? 'esc' : approvalKeyOf(key);
        if (chosen) answer(chosen);
        if (!ctrlC) continue;
      }
      if (key.kind === 'escape' || ctrlC) controller.current.abort();
    }
  }, keys);

  const flushReasoning = () => {
    const r = reasoning.current;
    if (r.written) return;
    r.written = true;
    const text = sanitizeForTerminal(r.text).trim();
    if (showReasoning && text) writeStderr(`${DIM(text, color)}\n`);
  };

  useEffect(() => {
    showRetryNotices?.((line) => writeStderr(`${line}\n`));
    bindToolHooks?.({
      say: (line) => writeStderr(`${sanitizeForTerminal(line)}\n`),
      ask: (call, source) =>
        new Promise<ApprovalKey>((resolve) => {
          if (!keys) return resolve('n');
          answerApproval.current = (key) => {
            answerApproval.current = null;
            setApproval(null);
            resolve(key);
          };
          setApproval(approvalPrompt(call, source));
        }),
    });
    dispatch({ type: 'turn-start', prompt: '', now: Date.now() });
    const onBatch = (batch: DeltaBatch) => {
      if (batch.reasoning && !reasoning.current.written) reasoning.current.text += batch.reasoning;
      if (batch.text) flushReasoning();
      dispatch({ type: 'batch', batch, now: Date.now() });
    };
    void driveTurn(run(controller.current.signal), { onBatch, beforeFirstText: loadMarkdown }).then((outcome) => {
      flushReasoning();
      outcomeRef.current = outcome;
      dispatch({ type: 'turn-end', outcome, now: Date.now() });
    });
    void loadMarkdown();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // Leave after the frame that printed the rest of the answer. Keyed on the whole state, not on
  // `live`: a fast answer can go from null through a turn back to null between two renders.
  const left = useRef(false);
  useEffect(() => {
    if (chat.live === null && outcomeRef.current && !left.current) {
      left.current = true;
      onDone(outcomeRef.current);
      exit();
    }
  }, [chat, exit, onDone]);

  // The prompt wraps on a narrow window: the answer above it gives up as many rows (and the margin).
  const approvalRows = approval ? 1 + Math.ceil(approval.length / Math.max(10, columns - 2)) : 0;
  const visible = (item: StaticItem) => item.kind === 'answer' || item.kind === 'tool';
  const live = chat.live;
  return (
    <Box flexDirection="column">
      <Static items={chat.items}>
        {(item) => (visible(item) ? <StaticEntry key={item.id} item={item} width={columns} color={color} /> : <Box key={item.id} />)}
      </Static>
      {live && !(quiet && live.firstTokenAt === null) && (
        <LiveTurnView live={live} showReasoning={showReasoning} width={columns} maxLines={Math.max(3, rows - 2 - approvalRows)} color={color} />
      )}
      {approval && (
        <Box paddingLeft={2} marginTop={1}>
          <Text color={color ? 'yellow' : undefined}>{approval}</Text>
        </Box>
      )}
    </Box>
  );
}
