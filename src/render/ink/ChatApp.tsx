/**
 * The interactive chat: composes the pieces, each owned by its own module. State lives in two pure
 * reducers (chat-state.ts for the transcript and the live answer, input-state.ts for the prompt
 * editor); keys are bound in key-bindings.ts and carried out by use-chat-keys.ts; the running answer
 * is use-turn-runner.ts's; slash commands are slash-commands.ts's, given the CommandContext below.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { ChatToolLoop } from '../../cli/tool-loop-session.js';
import { sanitizeForTerminal } from '../terminal-text.js';
import { Box, Static, useStdout } from 'ink';
import type { Attachment } from '../../protocol/events.js';
import type { Conversation } from '../../session/types.js';
import { unescapeAt } from './at-references.js';
import { promptWithAttachments } from './attachment-label.js';
import { chatBanner } from './chat-banner.js';
import { ChatLiveRegion } from './ChatLiveRegion.js';
import { chatReducer, initialChat, pastTurnItems, type NoticeTone } from './chat-state.js';
import { parseInput, unknownCommandNotice } from './commands.js';
import type { InputHistory } from './input-history.js';
import { INPUT_BOX_CHROME_COLUMNS } from './InputBox.js';
import type { ChatTerminal } from './ink-terminal.js';
import { initialInput, inputReducer } from './input-state.js';
import { STILL_COMING } from './key-bindings.js';
import { loadMarkdown } from './markdown-loader.js';
import { osc52 } from './osc52.js';
import { runCommand, type CommandContext, type ModelCatalog, type TemplateShelf } from './slash-commands.js';
import { StaticEntry } from './StaticEntry.js';
import { useChatKeys } from './use-chat-keys.js';
import { useEditorHandoff, type EditorRun } from './use-editor-handoff.js';
import { approvalPrompt } from './approval.js';
import { useForgetPrinted } from './use-forget-printed.js';
import { useLeaving } from './use-leaving.js';
import { usePendingAttachments } from './use-pending-attachments.js';
import { useSyncReducer } from './use-sync-reducer.js';
import { useTerminalSize } from './use-terminal-size.js';
import { useTurnRunner } from './use-turn-runner.js';

export interface ChatAppProps {
  conversation: Conversation;
  firstPrompt?: string;
  history: InputHistory;
  color: boolean;
  showReasoning: boolean;
  version: string;
  onExit(code: number): void;
  editor?: EditorRun;
  /** Retry notices join the transcript instead of being written into the live region. */
  showRetryNotices?: (show: (line: string) => void) => void;
  env?: NodeJS.ProcessEnv;
  /** -a given with chat: they go with the first message, like /attach. */
  attachments?: Attachment[];
  /** /attach https://…: fetches the page over the session's route (SPEC §18). */
  fetchUrl?: (url: string) => Promise<Attachment>;
  /** Aliases and model ids for /model (Tab) and /models. */
  models?: ModelCatalog;
  /** The user's templates for /template (Tab completes their names). */
  templates?: TemplateShelf;
  /** The real terminal (size, Ctrl-L, Ctrl-Z); absent under test renderers. */
  terminal?: ChatTerminal;
  /** Runnable tools (SPEC §15): each answer's calls are approved here and run in a loop. */
  toolLoop?: ChatToolLoop;
}

export function ChatApp(props: ChatAppProps) {
  const { conversation, history, color } = props;
  const { write } = useStdout();
  const { columns, rows } = useTerminalSize(props.terminal);
  const [chat, dispatch, chatRef] = useSyncReducer(chatReducer, () =>
    initialChat({ showReasoning: props.showReasoning, banner: chatBanner(conversation, props.version), history: pastTurnItems(conversation.turns, undefined, conversation.currentSummary?.()) }),
  );
  useForgetPrinted(chat.items, dispatch);
  const [input, dispatchInput, inputRef] = useSyncReducer(inputReducer, () => initialInput(history.entries));
  const [hint, setHint] = useState<string | null>(null);
  const notice = useCallback((text: string, tone: NoticeTone) => dispatch({ type: 'notice', text, tone }), [dispatch]);

  const { leaving, request: requestLeave, afterTurn } = useLeaving(props.onExit);
  const turns = useTurnRunner(conversation, dispatch, notice, () => {
    // "An answer is still coming" is no longer true.
    setHint((current) => (current === STILL_COMING ? null : current));
    afterTurn();
  });
  // A tool call waiting for y / a / n / Esc; cancelling the turn answers it with Esc.
  const approvalRef = useRef<((key: 'y' | 'a' | 'n' | 'esc') => void) | null>(null);
  const cancelTurn = () => {
    approvalRef.current?.('esc');
    return turns.cancel();
  };
  const ask = (call: { name: string; arguments: unknown }, source: string) =>
    new Promise<'y' | 'a' | 'n' | 'esc'>((resolve) => {
      approvalRef.current = (key) => {
        approvalRef.current = null;
        setHint(null);
        resolve(key);
      };
      setHint(approvalPrompt(call, source));
    });
  const requestExit = () => requestLeave(cancelTurn);
  const pending = usePendingAttachments(props.attachments, notice, props.fetchUrl);
  const openEditor = useEditorHandoff(props.editor, notice, (text) => dispatchInput({ type: 'set', value: text }));

  const sendPrompt = (text: string, shown: string) =>
    pending.forMessage(
      text,
      (message, files) => {
        const controller = new AbortController();
        const first = conversation.send(message, controller.signal, files);
        const events = props.toolLoop
          ? props.toolLoop.wrap(conversation, first, controller.signal, { ask, say: (line) => notice(sanitizeForTerminal(line), 'dim') })
          : first;
        turns.start(events, promptWithAttachments(unescapeAt(shown), files), controller);
      },
      (draft) => dispatchInput({ type: 'set', value: draft }),
    );

  const commandContext: CommandContext = {
    conversation,
    notice,
    startTurn: turns.start,
    exit: requestExit,
    toggleReasoning: (show) => dispatch({ type: 'toggle-reasoning', show }),
    // A new conversation starts below the old one: the scrollback is the user's (SPEC §8).
    reset: () => dispatch({ type: 'reset', banner: chatBanner(conversation, props.version) }),
    copy: (text) => write(osc52(text, props.env)),
    lastAnswer: () => chatRef.current.last?.text ?? null,
    edit: openEditor,
    attach: pending.attach,
    models: props.models,
    templates: props.templates,
    suggest: (draft) => dispatchInput({ type: 'set', value: draft }),
    listTools: props.toolLoop && (() => props.toolLoop!.list().map((line) => sanitizeForTerminal(line))),
  };

  const handleLine = (text: string, shown = text) => {
    const parsed = parseInput(text);
    if (parsed.kind === 'prompt') return sendPrompt(parsed.text, shown.startsWith('//') ? shown.slice(1) : shown);
    if (parsed.kind === 'command') return runCommand(parsed.name, parsed.arg, commandContext, parsed.force);
    return notice(unknownCommandNotice(parsed), 'error');
  };

  useChatKeys({
    chat: chatRef,
    input: inputRef,
    dispatch,
    dispatchInput,
    setHint,
    history,
    sendLine: handleLine,
    cancelTurn,
    approval: approvalRef,
    requestExit,
    completion: {
      modelNames: props.models && (() => props.models!.names()),
      modelsPending: () => props.models?.pending?.() ?? null,
      templateNames: props.templates && (() => props.templates!.names()),
    },
    inputWidth: () => columns - INPUT_BOX_CHROME_COLUMNS,
    editDraft: openEditor,
    terminal: props.terminal,
  });

  // Mount: retry notices into the transcript, Markdown loading in the background, the first prompt.
  useEffect(() => {
    props.showRetryNotices?.((line) => notice(line, 'warn'));
    const markdown = loadMarkdown();
    if (props.firstPrompt?.trim()) {
      const first = props.firstPrompt;
      history.append(first);
      dispatchInput({ type: 'remember', text: first });
      void markdown.then(() => handleLine(first));
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  return (
    <Box flexDirection="column">
      <Static key={chat.epoch} items={chat.items}>
        {(item) => <StaticEntry key={item.id} item={item} width={columns} color={color} />}
      </Static>
      {!leaving && (
        <ChatLiveRegion
          live={chat.live}
          showReasoning={chat.showReasoning}
          input={input}
          pending={pending.files}
          settings={conversation.settings}
          last={chat.last}
          notice={chat.exitArmed ? 'press Ctrl-C again to exit' : hint}
          columns={columns}
          rows={rows}
          color={color}
        />
      )}
    </Box>
  );
}
