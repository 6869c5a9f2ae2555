import { useCallback, useEffect, useRef, useState } from 'react';
import { Box, Static, Text, useApp, useStdin, useStdout } from 'ink';
import { ExitCode, GatechatError } from '../../exit-codes.js';
import type { Attachment, ChatEvent } from '../../protocol/events.js';
import { checkAttachmentLimits, readAttachments } from '../../session/attachments.js';
import { sanitizeForTerminal } from '../terminal-text.js';
import type { Conversation, TurnOutcome } from '../../session/types.js';
import { chatReducer, initialChat, pastTurnItems, TOOL_RESULT_HINT, type NoticeTone } from './chat-state.js';
import { completeCommand, parseInput } from './commands.js';
import { editInEditor } from './editor.js';
import { INPUT_BOX_CHROME_COLUMNS, InputBox } from './InputBox.js';
import { inputView } from './input-view.js';
import type { InputHistory } from './input-history.js';
import { initialInput, inputReducer } from './input-state.js';
import { resolveKey } from './key-bindings.js';
import { decodeKeys } from './keys.js';
import { LiveTurnView } from './LiveTurnView.js';
import { loadMarkdown } from './markdown-loader.js';
import { osc52 } from './osc52.js';
import { runCommand, type CommandContext, type ModelCatalog } from './slash-commands.js';
import { StaticEntry } from './StaticEntry.js';
import { StatusLine } from './StatusLine.js';
import { driveTurn } from './turn-driver.js';
import { useRawInput } from './use-raw-input.js';
import { useSyncReducer } from './use-sync-reducer.js';
import { useTerminalSize } from './use-terminal-size.js';

export interface ChatAppProps {
  conversation: Conversation;
  firstPrompt?: string;
  history: InputHistory;
  color: boolean;
  showReasoning: boolean;
  version: string;
  onExit(code: number): void;
  editor?: (initial: string) => { text: string | null; error?: string };
  /** Retry notices join the transcript instead of being written into the live region. */
  showRetryNotices?: (show: (line: string) => void) => void;
  env?: NodeJS.ProcessEnv;
  /** -a given with chat: they go with the first message, like /attach. */
  attachments?: Attachment[];
  /** Aliases and model ids for /model (Tab) and /models. */
  models?: ModelCatalog;
}

/** `shot.png (image/png, 2.0 KiB)`: what the pending message carries, above the input box. */
export function attachmentLabel(a: Attachment): string {
  const size = a.kind === 'text' ? Buffer.byteLength(a.text) : a.bytes;
  const kind = a.kind === 'text' ? 'text' : a.kind === 'pdf' ? 'PDF' : a.mime;
  const shown = size < 1024 ? `${size} B` : size < 1024 * 1024 ? `${(size / 1024).toFixed(1)} KiB` : `${(size / 1024 / 1024).toFixed(1)} MiB`;
  return `${sanitizeForTerminal(a.path)} (${kind}, ${shown})`;
}


const STILL_COMING = 'an answer is still coming: Esc cancels it';

function banner(props: ChatAppProps): string {
  const { conversation: c, version } = props;
  const resumed = c.cid ? ` · continuing ${c.cid}` : '';
  return `gatechat ${version} · ${c.settings.model} · ${c.settings.api}${resumed} · /help for commands · Ctrl-D exits`;
}

function failedOutcome(error: unknown, api: Conversation['settings']['api']): TurnOutcome {
  const message = error instanceof Error ? error.message : String(error);
  return {
    status: 'error',
    error: error instanceof GatechatError ? error : new GatechatError(`internal error: ${message}`, ExitCode.internal, 'please report this'),
    result: {
      text: '', reasoning: null, tool_calls: [], finish_reason: 'error', raw_finish_reason: null,
      usage: { input_tokens: null, output_tokens: null }, model: null, api, cid: null,
    },
    timings: { firstTokenMs: null, totalMs: 0 },
  };
}

export function ChatApp(props: ChatAppProps) {
  const { conversation, history, color } = props;
  const { exit } = useApp();
  const { write } = useStdout();
  const { setRawMode, isRawModeSupported } = useStdin();
  const { columns, rows } = useTerminalSize();
  const [chat, dispatch, chatRef] = useSyncReducer(chatReducer, () =>
    initialChat({ showReasoning: props.showReasoning, banner: banner(props), history: pastTurnItems(conversation.turns) }),
  );
  const [input, dispatchInput, inputRef] = useSyncReducer(inputReducer, () => initialInput(history.entries));
  const [hint, setHint] = useState<string | null>(null);
  const controllerRef = useRef<AbortController | null>(null);
  const exitRequested = useRef(false);

  // Leaving takes one more frame: the input box and status line are removed before Ink unmounts.
  const [leaving, setLeaving] = useState(false);
  const finishExit = useCallback(() => {
    props.onExit(ExitCode.ok);
    setLeaving(true);
  }, [props]);
  useEffect(() => {
    if (leaving) exit();
  }, [leaving, exit]);

  const requestExit = useCallback(() => {
    exitRequested.current = true;
    // A running answer is cancelled first, so the conversation records it before we leave.
    if (controllerRef.current) controllerRef.current.abort();
    else finishExit();
  }, [finishExit]);

  const notice = useCallback((text: string, tone: NoticeTone) => dispatch({ type: 'notice', text, tone }), [dispatch]);

  const startTurn = useCallback(
    (events: AsyncGenerator<ChatEvent, TurnOutcome, void>, prompt: string, controller: AbortController) => {
      controllerRef.current = controller;
      dispatch({ type: 'turn-start', prompt, now: Date.now() });
      driveTurn(events, {
        onBatch: (batch) => dispatch({ type: 'batch', batch, now: Date.now() }),
        beforeFirstText: loadMarkdown,
      })
        .then(
          (outcome) => {
            const error = outcome.error;
            const line = error ? `${error.message}${error.hint ? ` (${error.hint})` : ''}` : undefined;
            dispatch({ type: 'turn-end', outcome, now: Date.now(), errorLine: line });
            if (outcome.result.tool_calls.length > 0) notice(TOOL_RESULT_HINT, 'dim');
          },
          (error: unknown) => dispatch({ type: 'turn-end', outcome: failedOutcome(error, conversation.settings.api), now: Date.now() }),
        )
        .finally(() => {
          controllerRef.current = null;
          // "An answer is still coming" is no longer true.
          setHint((current) => (current === STILL_COMING ? null : current));
          if (exitRequested.current) finishExit();
        });
    },
    [conversation, dispatch, finishExit, notice],
  );

  // Files for the next message (/attach, or -a with chat): shown above the input box until sent.
  const [pending, setPending] = useState<Attachment[]>(() => props.attachments ?? []);
  const pendingRef = useRef(pending);
  const setPendingFiles = useCallback((files: Attachment[]) => {
    pendingRef.current = files;
    setPending(files);
  }, []);

  const sendPrompt = useCallback(
    (text: string) => {
      const files = pendingRef.current;
      try {
        checkAttachmentLimits(files, text);
      } catch (error) {
        return notice((error as Error).message, 'error');
      }
      const controller = new AbortController();
      setPendingFiles([]);
      startTurn(conversation.send(text, controller.signal, files), files.length > 0 ? `${text}\n${files.map((f) => `[attached ${attachmentLabel(f)}]`).join('\n')}` : text, controller);
    },
    [conversation, startTurn, notice, setPendingFiles],
  );

  const attach = (path: string | null) => {
    if (path === null) {
      setPendingFiles([]);
      return notice('attachments cleared', 'dim');
    }
    readAttachments([path]).then(
      (files) => {
        const next = [...pendingRef.current, ...files];
        try {
          checkAttachmentLimits(next, '');
        } catch (error) {
          return notice((error as Error).message, 'error');
        }
        setPendingFiles(next);
      },
      (error: unknown) => notice((error as Error).message, 'error'),
    );
  };

  const openEditor = (initial: string) => {
    // The editor owns the terminal meanwhile: Ink stops reading stdin and leaves raw mode.
    if (isRawModeSupported) setRawMode(false);
    let result: { text: string | null; error?: string };
    try {
      result = (props.editor ?? editInEditor)(initial);
    } finally {
      if (isRawModeSupported) setRawMode(true);
    }
    if (result.error) return notice(result.error, 'error');
    if (!result.text?.trim()) return notice('/edit: empty prompt, nothing to review', 'dim');
    // Back into the input box for review: Enter sends it, Ctrl-C drops it. Leaving the editor
    // without saving (:q!) must never send anything by itself.
    dispatchInput({ type: 'set', value: result.text });
  };

  const commandContext: CommandContext = {
    conversation,
    notice,
    startTurn,
    exit: requestExit,
    toggleReasoning: (show) => dispatch({ type: 'toggle-reasoning', show }),
    // A new conversation starts below the old one: the scrollback is the user's (SPEC §8).
    reset: () => dispatch({ type: 'reset', banner: banner(props) }),
    copy: (text) => write(osc52(text, props.env)),
    lastAnswer: () => chatRef.current.last?.text ?? null,
    edit: openEditor,
    attach,
    models: props.models,
  };

  const handleLine = (text: string) => {
    const parsed = parseInput(text);
    switch (parsed.kind) {
      case 'prompt':
        return sendPrompt(parsed.text);
      case 'command':
        return runCommand(parsed.name, parsed.arg, commandContext);
      case 'unknown': {
        const guess = parsed.suggestion ? ` — did you mean /${parsed.suggestion}?` : '';
        return notice(`unknown command /${parsed.name}${guess} (/help lists commands)`, 'error');
      }
      default: {
        const never: never = parsed;
        throw new Error(`unknown input ${JSON.stringify(never)}`);
      }
    }
  };

  const submit = () => {
    const { value } = inputRef.current;
    // A trailing backslash continues the prompt on a new line, as in a shell.
    if (value.endsWith('\\')) {
      dispatchInput({ type: 'set', value: `${value.slice(0, -1)}\n` });
      return;
    }
    if (!value.trim()) return;
    if (chatRef.current.live) {
      setHint(STILL_COMING);
      return;
    }
    history.append(value);
    dispatchInput({ type: 'remember', text: value });
    dispatchInput({ type: 'clear' });
    handleLine(value);
  };

  useRawInput((raw) => {
    for (const key of decodeKeys(raw)) {
      const state = inputRef.current;
      const { live, exitArmed } = chatRef.current;
      const intent = resolveKey(key, { busy: live !== null, empty: state.value === '', exitArmed, pasting: state.pasting });
      if (exitArmed && intent.type !== 'exit' && intent.type !== 'arm-exit') dispatch({ type: 'arm-exit', armed: false });
      if (intent.type !== 'none') setHint(null);
      switch (intent.type) {
        case 'edit':
          dispatchInput(intent.action);
          break;
        case 'submit':
          submit();
          break;
        case 'cancel-turn':
          controllerRef.current?.abort();
          break;
        case 'exit':
          requestExit();
          break;
        case 'arm-exit':
          dispatch({ type: 'arm-exit', armed: true });
          break;
        case 'clear-input':
          // Cleared text stays reachable with Up for this session.
          dispatchInput({ type: 'remember', text: state.value });
          dispatchInput({ type: 'clear' });
          break;
        case 'complete': {
          const models = props.models;
          const completion = completeCommand(state.value, models && (() => models.names()));
          if (!completion) break;
          const naming = state.value.startsWith('/model ');
          dispatchInput({ type: 'set', value: completion.value });
          if (completion.candidates.length > 1) {
            // A gateway may list hundreds: show the first few.
            const shown = completion.candidates.slice(0, 12).map((c) => (naming ? c : `/${c}`));
            setHint(`${shown.join('  ')}${completion.candidates.length > shown.length ? `  … ${completion.candidates.length - shown.length} more` : ''}`);
          }
          if (completion.candidates.length === 0) setHint(naming ? 'no alias or known model id starts with that: /models lists them' : 'no command starts with that: /help lists them');
          break;
        }
        case 'toggle-reasoning':
          dispatch({ type: 'toggle-reasoning' });
          break;
        case 'none':
          break;
        default: {
          const never: never = intent;
          throw new Error(`unknown intent ${JSON.stringify(never)}`);
        }
      }
    }
  });

  // Mount: load Markdown in the background, send the first prompt, turn on bracketed paste.
  useEffect(() => {
    props.showRetryNotices?.((line) => notice(line, 'warn'));
    write('\u001B[?2004h');
    const markdown = loadMarkdown();
    if (props.firstPrompt?.trim()) {
      const first = props.firstPrompt;
      history.append(first);
      dispatchInput({ type: 'remember', text: first });
      void markdown.then(() => handleLine(first));
    }
    return () => {
      write('\u001B[?2004l');
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // What was printed stays as printed when the window is resized: re-printing it would mean clearing
  // the screen and the scrollback with it (SPEC §8). Only the live region follows the new width.

  // The live region (answer, input box, status line) stays shorter than the window, or Ink would
  // clear the screen to redraw it. The box's border, margin and the status line take 4 rows.
  const pendingRows = pending.length > 0 ? 1 : 0;
  const inputBudget = Math.max(1, Math.floor((rows - 5 - pendingRows) / (chat.live ? 2 : 1)));
  const inputLines = inputView(input.value, input.cursor, columns - INPUT_BOX_CHROME_COLUMNS, inputBudget).rows;
  const maxLiveLines = Math.max(3, rows - inputLines - 5 - pendingRows);
  const statusNotice = chat.exitArmed ? 'press Ctrl-C again to exit' : hint;

  return (
    <Box flexDirection="column">
      <Static key={chat.epoch} items={chat.items}>
        {(item) => <StaticEntry key={item.id} item={item} width={columns} color={color} />}
      </Static>
      {!leaving && chat.live && <LiveTurnView live={chat.live} showReasoning={chat.showReasoning} width={columns} maxLines={maxLiveLines} color={color} />}
      {!leaving && (<Box marginTop={1} flexDirection="column">
        {pending.length > 0 && (
          <Text dimColor wrap="truncate-end">{` attached: ${pending.map(attachmentLabel).join(' · ')}  (/attach clear drops them)`}</Text>
        )}
        <InputBox value={input.value} cursor={input.cursor} busy={chat.live !== null} color={color} width={columns} maxRows={inputBudget} />
        <StatusLine settings={conversation.settings} last={chat.last} notice={statusNotice} color={color} />
      </Box>)}
    </Box>
  );
}
