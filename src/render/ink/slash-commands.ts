import { writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { parseApi, parseBoolean, parseModel, parsePositiveInt, parseTemperature } from '../../config/keys.js';
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
  /** The gateway's list while it is being fetched (names() and describe() start that), else null. */
  pending?(): Promise<void> | null;
  /** The gateway's model ids, fetched when nothing is cached; null when it offers no list. */
  listed?(): Promise<readonly string[] | null>;
}

/** The user's templates for /template (SPEC §18); cli/chat-templates.ts reads them. */
export interface TemplateShelf {
  names(): readonly string[];
  /**
   * NAME with `key=value` parameters → what its front matter sets (the model as written: an alias is
   * resolved like /model's) and the body filled in (`{{input}}` empty unless given). Rejects with a
   * UsageError naming a missing or unknown parameter.
   */
  use(name: string, params: Record<string, string>): Promise<{ model?: string; settings: Partial<SessionSettings>; draft: string }>;
}

/** What a slash command may do to the app; the Ink component provides it, tests provide fakes. */
export interface CommandContext {
  conversation: Conversation;
  notice(text: string, tone: NoticeTone): void;
  /** `after`: called with the outcome once the turn is shown (below it). */
  startTurn(events: AsyncGenerator<ChatEvent, TurnOutcome, void>, prompt: string, signal: AbortController, after?: (outcome: TurnOutcome) => void): void;
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
  templates?: TemplateShelf;
  /** Puts a command in the input box for the user to confirm with Enter (/save onto a file). */
  suggest?(draft: string): void;
  /** A dumb terminal (TERM=dumb): /help lists only the keys line mode honours. */
  lineMode?: boolean;
  /** /tools (SPEC §15): one line per runnable tool; absent when none can run. */
  listTools?(): string[];
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
  const maxTokens = s.maxTokens === undefined ? '' : ` · max tokens ${s.maxTokens}`;
  return `model ${s.model} · ${s.api} · temperature ${temperature} · stream ${s.stream ? 'on' : 'off'}${maxTokens}${s.system ? ' · system prompt set' : ''}`;
}

/** /model NAME: switches (an alias brings its id and its entry's settings; launch flags still win). */
function switchModel(arg: string, ctx: CommandContext): boolean {
  const { conversation } = ctx;
  const name = parseModel(arg, '/model');
  // "/model /exit": a command typed after /model, not a model id; switching to it would 404 later.
  if (name.startsWith('/')) {
    ctx.notice(`/model: "${name}" is a command, not a model id (/models lists the models)`, 'error');
    return false;
  }
  conversation.update(ctx.models?.resolve(name) ?? { model: name });
  const id = conversation.settings.model;
  ctx.notice(`model: ${id}${id === name ? '' : ` (alias ${name})`}`, 'dim');
  // Switched either way; an id the gateway does not list is most often a typo.
  void ctx.models?.listed?.().then((ids) => {
    if (ids && !ids.includes(id)) ctx.notice(`${id} is not in the gateway's list of models (/models lists them); switched anyway`, 'warn');
  });
  return true;
}

/** /save FILE: the transcript as Markdown, never onto an existing file unless forced (`/save!`). */
function save(arg: string, force: boolean, ctx: CommandContext): void {
  const { conversation } = ctx;
  if (!arg) return ctx.notice('usage: /save <file> (/save! <file> overwrites)', 'error');
  const turns = conversation.turns.length;
  if (turns === 0) return ctx.notice('nothing to save yet: the conversation is empty', 'warn');
  const file = resolve(ctx.cwd ?? process.cwd(), expandHome(arg));
  try {
    writeFileSync(file, transcriptMarkdown(conversation.turns, conversation.settings), { mode: 0o600, flag: force ? 'w' : 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    ctx.suggest?.(`/save! ${arg}`);
    return ctx.notice(`${file} exists: /save! ${arg} overwrites it${ctx.suggest ? ' (Enter sends it, Ctrl-U drops it)' : ''}`, 'warn');
  }
  ctx.notice(`saved ${turns} turn${turns === 1 ? '' : 's'} to ${file}`, 'dim');
}

/** `lang=go tone=very terse` → {lang: 'go', tone: 'very terse'}: a word without `=` continues the value before it. */
export function parseTemplateArgs(words: string[]): Record<string, string> | null {
  const params: Record<string, string> = {};
  let last: string | null = null;
  for (const word of words) {
    const equals = word.indexOf('=');
    if (equals > 0) {
      last = word.slice(0, equals);
      params[last] = word.slice(equals + 1);
    } else if (last !== null) params[last] += ` ${word}`;
    else return null;
  }
  return params;
}

/** /template NAME key=value …: the front matter applied to the conversation, the body put in the input box. */
function useTemplate(arg: string, ctx: CommandContext): void {
  const shelf = ctx.templates;
  if (!shelf) return ctx.notice('/template is not available here', 'error');
  if (!arg) {
    const names = shelf.names();
    return ctx.notice(names.length ? `templates: ${names.join('  ')} (/template NAME key=value …)` : 'no templates yet: gatechat template edit NAME makes one', 'info');
  }
  const [name, ...words] = arg.split(/\s+/);
  const params = parseTemplateArgs(words);
  if (!params) return ctx.notice(`usage: /template ${name} key=value … (got ${JSON.stringify(words[0])})`, 'error');
  void shelf.use(name!, params).then(
    ({ model, settings, draft }) => {
      const { conversation } = ctx;
      if (model !== undefined) conversation.update(ctx.models?.resolve(model) ?? { model });
      const { extraBody, ...rest } = settings;
      conversation.update({ ...rest, ...(extraBody ? { extraBody: { ...conversation.settings.extraBody, ...extraBody } } : {}) });
      ctx.notice(`template ${name}: ${describeSettings(conversation)}`, 'dim');
      ctx.suggest?.(draft);
    },
    (error: unknown) => ctx.notice(error instanceof GatechatError ? error.message : `/template: ${(error as Error).message}`, 'error'),
  );
}

/**
 * /retry asks the last prompt again in place of its answer; /retry -m MODEL asks MODEL (the chat goes on
 * with it, as after /model) and keeps both answers in the saved conversation (SPEC §17) — the new one is
 * what later turns continue from.
 */
function retry(arg: string, ctx: CommandContext): void {
  const { conversation } = ctx;
  const model = /^(?:-m|--model)\s+(\S+)$/.exec(arg)?.[1];
  if (arg && model === undefined) return ctx.notice('usage: /retry (the same model) or /retry -m <model> (another one; both answers kept)', 'error');
  const prompt = conversation.turns[conversation.turns.length - 1]?.prompt;
  if (prompt === undefined) return ctx.notice('nothing to retry yet', 'warn');
  if (model !== undefined && !switchModel(model, ctx)) return;
  const controller = new AbortController();
  const events = conversation.retry(controller.signal, { keep: model !== undefined });
  if (!events) return ctx.notice('nothing to retry yet', 'warn');
  return ctx.startTurn(events, prompt, controller);
}

/**
 * /compact [instructions] (SPEC §17): the summary streams like an answer (Esc cancels it: nothing
 * changes), then one line says which turns it now stands for in later requests.
 */
function compact(arg: string, ctx: CommandContext): void {
  const { conversation } = ctx;
  if (!conversation.compact) return ctx.notice('/compact is not available here', 'error');
  const controller = new AbortController();
  const events = conversation.compact(arg, controller.signal);
  if (!events) {
    const why = conversation.turns.length === 0 ? 'the conversation is empty' : 'every turn is in the summary already';
    return ctx.notice(`nothing to compact yet: ${why}`, 'warn');
  }
  ctx.startTurn(events, arg ? `/compact ${arg}` : '/compact', controller, (outcome) => {
    const done = outcome.compaction;
    if (!done) return;
    const span = done.turns === 1 ? 'turn 1' : `turns 1–${done.turns}`;
    const saved = conversation.cid ? ' (they stay saved)' : '';
    ctx.notice(`compacted ${span} (about ${done.coveredTokens} tokens) into this summary of about ${done.summaryTokens}: later requests send it in their place${saved}`, 'dim');
  });
}

/** Runs one slash command; bad values are reported inline like the CLI reports them, nothing changes. */
export function runCommand(name: CommandName, arg: string, ctx: CommandContext, force = false): void {
  const { conversation } = ctx;
  try {
    switch (name) {
      case 'help':
        ctx.notice(helpText(ctx.lineMode ? 'line' : 'terminal', { tools: ctx.listTools !== undefined }), 'info');
        return;
      case 'model':
        if (!arg) return ctx.notice(describeSettings(conversation), 'info');
        switchModel(arg, ctx);
        return;
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
      case 'max-tokens':
        if (!arg) return ctx.notice(describeSettings(conversation), 'info');
        conversation.update({ maxTokens: arg.toLowerCase() === 'off' ? undefined : parsePositiveInt(arg, '/max-tokens') });
        return ctx.notice(`max tokens: ${conversation.settings.maxTokens ?? "off (the model's default)"}`, 'dim');
      case 'reasoning':
        return ctx.toggleReasoning(arg ? onOff(arg, '/reasoning') : undefined);
      case 'retry':
        return retry(arg, ctx);
      case 'compact':
        return compact(arg, ctx);
      case 'clear':
        conversation.clear();
        return ctx.reset();
      case 'attach':
        if (!ctx.attach) return ctx.notice('/attach is not available here', 'error');
        if (!arg) return ctx.notice('usage: /attach <path> (a file, image, PDF or directory) · /attach clear', 'info');
        return ctx.attach(arg.toLowerCase() === 'clear' ? null : expandHome(arg));
      case 'save':
        return save(arg, force, ctx);
      case 'template':
        return useTemplate(arg, ctx);
      case 'copy': {
        const text = ctx.lastAnswer();
        if (!text) return ctx.notice('no answer to copy yet', 'warn');
        ctx.copy(text);
        return ctx.notice(`copied ${text.length} characters (OSC 52)`, 'dim');
      }
      case 'edit':
        return ctx.edit(arg);
      case 'tools': {
        if (arg) {
          const on = onOff(arg, '/tools');
          conversation.update({ toolsOff: !on });
          return ctx.notice(on ? 'tools: sent again' : 'tools: not sent until /tools on', 'dim');
        }
        const lines = ctx.listTools?.() ?? [];
        const off = conversation.settings.toolsOff ? ' (off: not sent; /tools on sends them again)' : '';
        return ctx.notice(lines.length > 0 ? `tools${off}:\n${lines.join('\n')}` : 'no runnable tools (an "x-command" in the --tools file makes one)', 'info');
      }
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
