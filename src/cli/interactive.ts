import { join } from 'node:path';
import { UsageError } from '../exit-codes.js';
import { VERSION } from '../version.js';
import { dataDir } from '../session/paths.js';
import { diagnostics, openSession, urlFetcher, type Io } from './context.js';
import { readAttachments } from '../session/attachments.js';
import type { ChatModeOptions } from './flags.js';
import { isDumbTerminal, useColor } from './terminal.js';
import { openModelCatalog } from './model-catalog.js';
import { openTemplateShelf } from './chat-templates.js';
import { openConfigStore } from '../config/store.js';
import { openRunTools } from './run-tools.js';

/** `gatechat chat` (or no prompt on a terminal): the Ink UI over the same Conversation as one-shot. */
export async function runInteractive(options: ChatModeOptions, firstPrompt: string | undefined, io: Io): Promise<number> {
  if (!io.stdin.isTTY || !io.stdout.isTTY) {
    throw new UsageError('interactive chat needs a terminal on stdin and stdout', 'pass a prompt for one-shot mode: gatechat "question"');
  }
  if (options.output !== 'auto') throw new UsageError('--json and --jsonl are for one-shot mode, not interactive chat');
  const { conversation, settings, conn, showRetryNotices } = await openSession(options, io);
  // Read (and refused) before the UI starts; they go with the first message.
  const fetchUrl = urlFetcher(conn);
  const attachments = await readAttachments(options.attach, { warn: diagnostics(io, false).warn, commands: true, fetchUrl });
  const inputHistoryFile = join(dataDir(), 'input-history.jsonl');
  // Command tools and MCP servers (SPEC §15): loaded only when a definition can run; stopped however the chat ends.
  const runTools = await openRunTools({ definitions: options.tools, mcp: options.mcp, profile: options.flags.profile, flags: options.toolLoop, stderr: io.stderr, verbose: options.verbose, conn });
  const runner = runTools?.runner ?? null;
  if (runTools) conversation.offerRunTools(runTools.offered);
  const toolLoop = runTools ? (await import('./tool-loop-session.js')).chatToolLoop(runTools.runner, runTools.flags) : undefined;
  if (isDumbTerminal()) {
    // No cursor movement at all: a plain line-by-line chat instead of the Ink UI (SPEC §8).
    const [{ runLineChat }, { openInputHistory }] = await Promise.all([
      import('../render/line-chat.js'),
      import('../render/ink/input-history.js'),
    ]);
    try {
      return await runLineChat({
        toolLoop,
        conversation,
        firstPrompt,
        attachments,
        fetchUrl,
        history: openInputHistory(inputHistoryFile, { write: settings.save, warn: diagnostics(io, false).warn }),
        showReasoning: options.showReasoning,
        version: VERSION,
        stdin: io.stdin,
        stdout: io.stdout,
        stderr: io.stderr,
      });
    } finally {
      await runner?.close();
    }
  }
  const { runInteractiveChat } = await import('../render/ink/index.js');
  try {
    return await runInteractiveChat({
      toolLoop,
      conversation,
      firstPrompt,
      attachments,
      fetchUrl,
      inputHistoryFile,
      // --no-save / save: false: earlier prompts can still be recalled, but this chat's are not written.
      saveInputHistory: settings.save,
      showRetryNotices,
      models: openModelCatalog({
        file: options.isolated ? {} : openConfigStore().snapshot(),
        flags: options.flags,
        env: options.isolated ? {} : process.env,
        settings,
        conn,
      }),
      // demo ignores the user's config dir, templates included.
      templates: options.isolated ? undefined : openTemplateShelf(),
      color: useColor(io.stdout),
      showReasoning: options.showReasoning,
      version: VERSION,
    });
  } finally {
    await runner?.close();
  }
}
