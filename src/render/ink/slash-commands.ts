import { writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { parseApi, parseBoolean, parseModel, parseTemperature } from '../../config/keys.js';
import { GatechatError } from '../../exit-codes.js';
import type { ChatEvent } from '../../protocol/events.js';
import type { Conversation, SessionSettings, TurnOutcome } from '../../session/types.js';
import type { NoticeTone } from './chat-state.js';
import { helpText, type CommandName } from './commands.js';
import { transcriptMarkdown } from './transcript.js';

/** The models /model and /models know: aliases from the config, ids from the gateway's list. */
export interface ModelCatalog {
  /** Aliases and cached model ids, for Tab completion. */
  names(): readonly string[];
  /** `/models [filter]`: aliases with their ids, then the gateway's ids. */
  describe(filter: string): string;
  /** `/model NAME`: the id to send and the settings NAME's entry brings (SPEC §11). */
  resolve(name: string): Partial<SessionSettings> & { model: string };
}

/** What a slash command may do to the app; the Ink component provides it, tests provide fakes. */
export interface CommandContext {
  conversation: Conversation;
  notice(text: string, tone: NoticeTone): void;
  startTurn(events: AsyncGenerator<ChatEvent, TurnOutcome, void>, prompt: string, signal: AbortController): void;
  exit(): void;
  toggleReasoning(show?: boolean): void;
  reset(): void;
  copy(text: string): void;
  lastAnswer(): string | null;
  edit(initial: string): void;
  /** /attach: read `path` (as typed, ~ expanded) and add it to the next message; null drops them all. */
  attach?(path: string | null): void;
  cwd?: string;
  models?: ModelCatalog;
}

function onOff(arg: string, option: string): boolean {
  return parseBoolean(arg, option);
}

function expandHome(path: string): string {
  return path === '~' || path.startsWith('~/') ? homedir() + path.slice(1) : path;
}

function describeSettings(conversation: Conversation): string {
  const s = conversation.settings;
  const temperature = s.temperature === undefined ? 'default' : String(s.temperature);
  return `model ${s.model} · ${s.api} · temperature ${temperature} · stream ${s.stream ? 'on' : 'off'}${s.system ? ' · system prompt set' : ''}`;
}

/** Runs one slash command; bad values are reported inline like the CLI reports them, nothing changes. */
export function runCommand(name: CommandName, arg: string, ctx: CommandContext): void {
  const { conversation } = ctx;
  try {
    switch (name) {
      case 'help':
        ctx.notice(helpText(), 'info');
        return;
      case 'model':
        if (!arg) return ctx.notice(describeSettings(conversation), 'info');
        {
          const name = parseModel(arg, '/model');
          // An alias brings its id and its entry's settings; flags given at launch still win.
          conversation.update(ctx.models?.resolve(name) ?? { model: name });
          const alias = conversation.settings.model === name ? '' : ` (alias ${name})`;
          return ctx.notice(`model: ${conversation.settings.model}${alias}`, 'dim');
        }
      case 'models':
        if (!ctx.models) return ctx.notice('/models is not available here', 'error');
        return ctx.notice(ctx.models.describe(arg), 'info');
      case 'temperature':
        if (!arg) return ctx.notice(describeSettings(conversation), 'info');
        conversation.update({ temperature: arg.toLowerCase() === 'off' ? undefined : parseTemperature(arg, '/temperature') });
        return ctx.notice(`temperature: ${conversation.settings.temperature ?? 'off (model default)'}`, 'dim');
      case 'system':
        if (!arg) return ctx.notice(conversation.settings.system ? `system: ${conversation.settings.system}` : 'no system prompt', 'info');
        conversation.update({ system: arg.toLowerCase() === 'off' ? undefined : arg });
        return ctx.notice(conversation.settings.system ? 'system prompt set' : 'system prompt cleared', 'dim');
      case 'api':
        if (!arg) return ctx.notice(describeSettings(conversation), 'info');
        conversation.update({ api: parseApi(arg, '/api') });
        return ctx.notice(`interface: ${conversation.settings.api}`, 'dim');
      case 'stream':
        if (!arg) return ctx.notice(describeSettings(conversation), 'info');
        conversation.update({ stream: onOff(arg, '/stream') });
        return ctx.notice(`stream: ${conversation.settings.stream ? 'on' : 'off'}`, 'dim');
      case 'reasoning':
        return ctx.toggleReasoning(arg ? onOff(arg, '/reasoning') : undefined);
      case 'retry': {
        const prompt = conversation.turns[conversation.turns.length - 1]?.prompt;
        const controller = new AbortController();
        const events = conversation.retry(controller.signal);
        if (!events || prompt === undefined) return ctx.notice('nothing to retry yet', 'warn');
        return ctx.startTurn(events, prompt, controller);
      }
      case 'clear':
        conversation.clear();
        return ctx.reset();
      case 'attach':
        if (!ctx.attach) return ctx.notice('/attach is not available here', 'error');
        if (!arg) return ctx.notice('usage: /attach <path> (a file, image, PDF or directory) · /attach clear', 'info');
        return ctx.attach(arg.toLowerCase() === 'clear' ? null : expandHome(arg));
      case 'save': {
        if (!arg) return ctx.notice('usage: /save <file>', 'error');
        const file = resolve(ctx.cwd ?? process.cwd(), expandHome(arg));
        writeFileSync(file, transcriptMarkdown(conversation.turns, conversation.settings), { mode: 0o600 });
        return ctx.notice(`saved ${conversation.turns.length} turn(s) to ${file}`, 'dim');
      }
      case 'copy': {
        const text = ctx.lastAnswer();
        if (!text) return ctx.notice('no answer to copy yet', 'warn');
        ctx.copy(text);
        return ctx.notice(`copied ${text.length} characters (OSC 52)`, 'dim');
      }
      case 'edit':
        return ctx.edit(arg);
      case 'exit':
        return ctx.exit();
      default: {
        const never: never = name;
        throw new Error(`unknown command ${String(never)}`);
      }
    }
  } catch (error) {
    if (error instanceof GatechatError) return ctx.notice(error.message, 'error');
    ctx.notice(`/${name}: ${(error as Error).message}`, 'error');
  }
}
