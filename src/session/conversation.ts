import type { Api, Attachment, ChatEvent, ChatResult, RequestOptions, ToolDefinition } from '../protocol/events.js';
import { ResultAccumulator } from '../protocol/accumulate.js';
import { streamChat, type LearnedFacts, type StreamOutcome } from '../client/chat-stream.js';
import { streamChatWithFallback, type FallbackOutcome } from '../client/fallback.js';
import type { Connection } from '../transport/http.js';
import { isAbortError } from '../transport/http.js';
import { HttpError, ServerStreamError, StreamInterruptedError } from '../transport/errors.js';
import { contextOverflow } from '../protocol/context-length.js';
import { DEFAULT_MAX_TOKENS as MESSAGES_DEFAULT_MAX_TOKENS } from '../protocol/anthropic-messages.js';
import { fitContext, isSent, textTokens, type ContextFit, type ContextMode } from './context-fit.js';
import { ExitCode, GatechatError } from '../exit-codes.js';
import { isDeepStrictEqual } from 'node:util';
import type { ConversationStore, LoadedConversation, SavedSettings, StoredTurn } from './conversation-store.js';
import { toContextMessages } from './context-messages.js';
import { schemaMismatchError, type AnswerValidator } from './answer-schema.js';
import { ANSWER_NAME } from '../protocol/schema.js';
import type { JsonObject } from '../protocol/json.js';
import type { CompactionInfo, Conversation, FinishedTurn, SessionSettings, ToolResultEntry, TurnOutcome, TurnStatus } from './types.js';
import { compactionEnd, compactionPrompt, systemWithSummary, type SummaryState } from './compaction.js';
import { StorageError } from '../storage/storage-error.js';
import type { Prices } from '../protocol/cost.js';
import type { UsageLedger } from './ledger.js';
import type { Budget } from './budget.js';

export interface ConversationDeps {
  conn: Connection;
  settings: SessionSettings;
  maxTokensField: 'max_tokens' | 'max_completion_tokens';
  tools?: ToolDefinition[];
  /** Where saved conversations live; null when none is loaded or recorded. */
  store: ConversationStore | null;
  /** false: load context from the store but record nothing (--no-save / save:false). */
  record: boolean;
  /**
   * false: the answer text is not held in memory (TurnOutcome.result.text is ''): for a piped
   * one-shot, whose renderer writes each delta and needs nothing after. When recording, the text
   * goes to disk in parts as it arrives instead. Default true.
   */
  retainText?: boolean;
  /**
   * true: a turn's events are taken in here and not yielded on (its generator yields nothing and
   * returns the outcome): for a batch line without tools, which wants only the outcome. Passing each
   * of an answer's events up the levels above exchange() cost a batch ~10 % of its allocations.
   */
  quiet?: boolean;
  /** Continue this saved conversation (-c / --cid); `settings` above are already resolved against it. */
  resume?: LoadedConversation;
  /**
   * --schema: ask for a document matching `schema` and check each complete answer with `check`
   * (compileAnswerSchema). On Messages the forced `answer` tool's input is the answer: it arrives
   * here as the turn's text, so everything above sees one answer whichever interface gave it.
   */
  answerSchema?: { schema: JsonObject; check: AnswerValidator };
  log?: (line: string) => void;
  warn?: (line: string) => void;
  onRetry?: (info: { attempt: number; delayMs: number; reason: string }) => void;
  /** SPEC §16: the model's prices (entry, else models cache), asked only when the gateway sent no cost. */
  pricesFor?: (model: string) => Prices | undefined;
  /** SPEC §16: every request is added to the usage ledger (also with --no-save). */
  ledger?: UsageLedger;
  /** SPEC §16: --max-cost / budget-daily; checked before each request, charged after it. */
  budget?: Budget;
  /** A retry taught something about `model` (SPEC §11): awaited before the turn ends, so it is recorded. */
  onLearned?: (model: string, facts: LearnedFacts) => Promise<void>;
  /**
   * The model's context window in tokens (its entry's `context`, else the models cache), asked only
   * when there are earlier turns to fit (SPEC §17); undefined: unknown until a 400 says it.
   */
  contextWindow?: (model: string) => number | undefined;
  /** --context: `full` sends every turn, `last` n turns at most; default `auto` (fit the window). */
  contextMode?: ContextMode;
  /** Models (real ids) that get the same request when the model fails before its first byte (SPEC §17). */
  fallbacks?: string[];
  /**
   * `--title` (SPEC §17): names the conversation, written with its first prompt of this session — a new
   * conversation's, or a continued one's (which renames it). /clear's new conversation goes untitled.
   */
  title?: string;
}

/** A conversation over the gateway, which can also say what it would send (--dry-run). */
export interface GatewayConversationApi extends Conversation {
  /** What send(prompt) would ask the gateway for now: nothing is sent or recorded. */
  request(prompt: string, attachments?: Attachment[]): RequestOptions;
  /** The run's MCP tools (SPEC §15): offered with every request, never saved (the servers belong to the run). */
  offerRunTools(tools: ToolDefinition[]): void;
}

/** The only thing above client/ that talks to the gateway; both renderers drive it. */
export function openConversation(deps: ConversationDeps): GatewayConversationApi {
  return new GatewayConversation(deps);
}

class GatewayConversation implements GatewayConversationApi {
  settings: SessionSettings;
  cid: string | null;
  /** Every turn of the conversation: those loaded from disk (-c / --cid), then this session's. */
  turns: FinishedTurn[] = [];
  private maxTokensField: 'max_tokens' | 'max_completion_tokens';
  /** The settings the conversation's file says are in effect: a prompt sent with others records them. */
  private recordedSettings: SavedSettings | null = null;
  /** Each saved turn's id in the file: what a /retry of it names (turns of older files, and unsaved ones, have none). */
  private readonly turnIds = new WeakMap<FinishedTurn, string | undefined>();
  /** Context windows a 400 told this session (also recorded in the model's entry through onLearned). */
  private readonly learnedWindows = new Map<string, number>();
  /** --title, until it is written (with the next prompt). */
  private pendingTitle: string | undefined;
  /** The summary in effect (SPEC §17 /compact): sent in place of the first `covered` turns. */
  private summary: SummaryState | null = null;

  constructor(private readonly deps: ConversationDeps) {
    this.settings = { ...deps.settings };
    this.maxTokensField = deps.maxTokensField;
    this.pendingTitle = deps.title;
    const resume = deps.resume;
    this.cid = resume?.meta.cid ?? null;
    if (resume) {
      const store = deps.store;
      // Saved attachments are read back from the blob store so that they are sent again.
      this.turns = resume.turns.map((turn) => {
        const finished: FinishedTurn = {
          ...finishedTurn(turn, resume.meta.cid, this.settings.api),
          ...(turn.attachments?.length && store ? { attachments: store.hydrate(turn.attachments, resume.meta.cid) } : {}),
        };
        this.turnIds.set(finished, turn.id);
        return finished;
      });
      this.recordedSettings = resume.settings;
      const summary = resume.summaries.at(-1);
      if (summary) this.summary = { text: summary.content, covered: summary.covered };
    }
  }

  update(patch: Partial<SessionSettings>): void {
    this.settings = { ...this.settings, ...patch };
  }

  clear(): void {
    this.turns = [];
    this.cid = null;
    this.recordedSettings = null;
    this.pendingTitle = undefined;
    this.summary = null;
  }

  send(prompt: string, signal: AbortSignal, attachments: Attachment[] = []): AsyncGenerator<ChatEvent, TurnOutcome, void> {
    // A new prompt ends any tool loop: its reasoning stays out of the context from now on (SPEC §15).
    for (const turn of this.turns) delete turn.replay;
    return this.runTurn(prompt, attachments, signal, null);
  }

  sendToolResults(results: ToolResultEntry[], signal: AbortSignal): AsyncGenerator<ChatEvent, TurnOutcome, void> {
    return this.runTurn('', [], signal, null, results);
  }

  retry(signal: AbortSignal, options: { keep?: boolean } = {}): AsyncGenerator<ChatEvent, TurnOutcome, void> | null {
    const last = this.turns.pop();
    if (!last) return null;
    // Asked again, a turn the summary covered is a new turn after it (as when the file is read back).
    if (this.summary) this.summary = { ...this.summary, covered: Math.min(this.summary.covered, this.turns.length) };
    return this.runTurn(last.prompt, last.attachments ?? [], signal, { supersedes: this.turnIds.get(last), keep: options.keep === true });
  }

  private ensureCid(): string | null {
    const { store, record } = this.deps;
    if (!store || !record) return null;
    if (!this.cid) {
      this.recordedSettings = this.savedSettings();
      this.cid = store.create(this.recordedSettings);
    }
    return this.cid;
  }

  private runTools: ToolDefinition[] = [];

  offerRunTools(tools: ToolDefinition[]): void {
    this.runTools = tools;
  }

  /** Everything a continuation must send the same way (SPEC §6); null is "none", not "unknown". */
  private savedSettings(): SavedSettings {
    const s = this.settings;
    return {
      model: s.model,
      api: s.api,
      system: s.system ?? null,
      temperature: s.temperature ?? null,
      max_tokens: s.maxTokens ?? null,
      options: s.extraBody ?? null,
      tools: this.deps.tools ?? null,
    };
  }

  /** The settings to write with this prompt: only when they changed (/model, flags given with -c). */
  private changedSettings(): SavedSettings | undefined {
    const now = this.savedSettings();
    if (isDeepStrictEqual(now, this.recordedSettings)) return undefined;
    this.recordedSettings = now;
    return now;
  }

  request(prompt: string, attachments: Attachment[] = [], toolResults?: ToolResultEntry[]): RequestOptions {
    return this.fitted(prompt, attachments, toolResults).request;
  }

  /**
   * What a request sends of the first `end` turns (all, for a prompt; a compaction's, SPEC §17): the
   * summary in effect in place of the turns it covers — after the system prompt — then the turns after it.
   */
  private context(end = this.turns.length): { from: number; turns: FinishedTurn[]; system: string | undefined } {
    const from = Math.min(this.summary?.covered ?? 0, end);
    return { from, turns: this.turns.slice(from, end), system: systemWithSummary(this.settings.system, this.summary?.text) };
  }

  /**
   * The request with the earlier turns that fit the model's context window (SPEC §17), and what was left
   * out. `end`: only the first `end` turns are the context (a compaction's request).
   */
  private fitted(prompt: string, attachments: Attachment[], toolResults: ToolResultEntry[] | undefined, end = this.turns.length): { request: RequestOptions; fit: ContextFit | null } {
    const { settings } = this;
    // Stryker disable next-line ObjectLiteral,StringLiteral: fitContext fits any mode but full and last as auto; sayOmitted reads deps.contextMode itself
    const mode = this.deps.contextMode ?? { kind: 'auto' };
    const context = this.context(end);
    // A new conversation has nothing to leave out: nothing is looked up for it. The fit counts the
    // summary (in the system text), never the turns it stands for.
    const fit =
      context.turns.length === 0 || mode.kind === 'full'
        ? null
        : fitContext({
            turns: context.turns,
            system: context.system,
            prompt,
            attachments,
            toolResults,
            window: this.windowOf(settings.model),
            // Messages always sends a limit (4096 unless set): that much of the window is the answer's.
            maxTokens: settings.maxTokens ?? (settings.api === 'messages' ? MESSAGES_DEFAULT_MAX_TOKENS : undefined),
            mode,
          });
    const request: RequestOptions = {
      model: settings.model,
      messages: toContextMessages(this.turns.slice(0, end), prompt, attachments, toolResults, context.from + (fit?.from ?? 0)),
      system: context.system,
      temperature: settings.temperature,
      maxTokens: settings.maxTokens,
      maxTokensField: this.maxTokensField,
      stream: settings.stream,
      tools: settings.toolsOff ? undefined : this.offeredTools(),
      extraBody: settings.extraBody,
      schema: this.deps.answerSchema?.schema,
      cache: settings.cache,
    };
    return { request, fit };
  }

  private windowOf(model: string): number | undefined {
    return this.learnedWindows.get(model) ?? this.deps.contextWindow?.(model);
  }

  /** One line when earlier turns were left out: how many, about how many tokens, and how to send them all. */
  private sayOmitted(fit: ContextFit | null, learned?: 'named' | 'guessed' | 'shrunk'): void {
    if (!fit || fit.omittedTurns === 0) return;
    const mode = this.deps.contextMode;
    const turns = `the ${fit.omittedTurns === 1 ? 'oldest turn' : `${fit.omittedTurns} oldest turns`} (about ${fit.omittedTokens} tokens)`;
    const window = this.windowOf(this.settings.model);
    const why =
      mode?.kind === 'last' && (window === undefined || fit.omittedTurns <= this.context().turns.filter(isSent).length - mode.turns)
        ? `(--context ${mode.turns})`
        : `to fit ${this.settings.model}'s context window of ${learned === 'guessed' || learned === 'shrunk' ? 'at most ' : ''}${window} tokens${learned === 'shrunk' ? ' (the gateway counted more tokens than estimated)' : learned ? ' (learned from the gateway\'s refusal; remembered)' : ''} (--context full sends them all)`;
    this.deps.warn?.(`left out ${turns} ${why}`);
  }

  /**
   * A 400 saying the context was exceeded, before any answer (SPEC §17): the window it names (else
   * three quarters of what was sent) is learned — for this session and, through onLearned, the
   * model's entry, so the next run fits at once — and the request is fitted again. null when that
   * leaves nothing more out (the error stands).
   */
  private async refitAfterOverflow(
    failure: unknown,
    fit: ContextFit | null,
    prompt: string,
    attachments: Attachment[],
    toolResults: ToolResultEntry[] | undefined,
    end = this.turns.length,
  ): Promise<{ request: RequestOptions; fit: ContextFit | null; learned: 'named' | 'guessed' | 'shrunk' } | null> {
    // Nothing was fitted (a new conversation, or --context full): nothing more can be left out.
    if (!fit || !(failure instanceof HttpError)) return null;
    const overflow = contextOverflow(failure.status, { message: failure.gatewayMessage, code: failure.code });
    if (!overflow) return null;
    const model = this.settings.model;
    const sentEstimate = fit.estimate;
    // Unknown, the window was infinite as far as the fit was concerned: never within the one learned now.
    const known = this.windowOf(model) ?? Infinity;
    const window = overflow.window ?? Math.floor((sentEstimate * 3) / 4);
    // The window was known and fitted to, yet too long: the gateway counts more tokens than the
    // estimate. The rest of this session fits a smaller budget; the entry keeps the real window.
    const shrunk = known <= window;
    this.learnedWindows.set(model, shrunk ? Math.floor(Math.min(known, sentEstimate) * 0.85) : window);
    // Fitted again with the same turns and mode as `fit`: a fit again.
    const again = this.fitted(prompt, attachments, toolResults, end);
    if (again.fit!.omittedTurns <= fit.omittedTurns) return null;
    if (!shrunk) await this.deps.onLearned?.(model, { context: window });
    return { ...again, learned: shrunk ? 'shrunk' : overflow.window === null ? 'guessed' : 'named' };
  }

  private offeredTools(): ToolDefinition[] | undefined {
    if (this.runTools.length === 0) return this.deps.tools;
    return [...(this.deps.tools ?? []), ...this.runTools];
  }

  /**
   * After an exchange, for a turn and a compaction alike: how it ended, what the gateway taught (its
   * token-limit field, a limit it required — kept for every later turn — and learned facts), which model
   * answered (a fallback is named wherever the answer is: footer, --json, history, ledger), its cost (prices
   * looked up only when the gateway put no figure on it: the models cache is a file), counted in the
   * ledger and the budget.
   */
  private async settle(
    { outcome, failure, streamError }: Pick<Exchanged, 'outcome' | 'failure' | 'streamError'>,
    acc: ResultAccumulator,
    signal: AbortSignal,
    cid: string | null,
  ): Promise<{ status: TurnStatus; error?: GatechatError; result: ChatResult }> {
    const { settings } = this;
    const { status, error } = classifyEnding(outcome, failure, streamError, signal, acc.hasText, settings.stream);
    if (outcome) {
      this.maxTokensField = outcome.maxTokensField;
      if (outcome.maxTokens !== undefined) this.settings = { ...this.settings, maxTokens: outcome.maxTokens };
      if (Object.keys(outcome.learned).length > 0) await this.deps.onLearned?.(answeredBy(outcome) ?? settings.model, outcome.learned);
    }
    const fellBackTo = outcome ? answeredBy(outcome) : null;
    const prices = acc.gatewayCost === null ? this.deps.pricesFor?.(fellBackTo ?? settings.model) : undefined;
    const result = acc.result({ api: settings.api, cid, outcome: status, prices });
    if (fellBackTo !== null) {
      result.model ??= fellBackTo;
      result.fallback_from = (outcome as FallbackOutcome).fallbackFrom!;
    }
    this.deps.ledger?.record(result, status, fellBackTo ?? settings.model);
    this.deps.budget?.charge(result.cost ?? null);
    return { status, ...(error ? { error } : {}), result };
  }

  /**
   * Sends one request (to the fallbacks after it when it fails before its first byte) and yields its
   * events; a 400 saying the context was exceeded, before any answer, sends it once more fitted to the
   * window that taught (`refit`, SPEC §17). Never throws: how it ended comes back, a failure in `failure`.
   */
  private async *exchange(
    first: Fitted,
    started: number,
    signal: AbortSignal,
    refit: (failure: unknown, fit: ContextFit | null) => Promise<(Fitted & { learned: 'named' | 'guessed' | 'shrunk' }) | null>,
    onEvent: (event: ChatEvent) => void,
    map?: (event: ChatEvent) => ChatEvent,
  ): AsyncGenerator<ChatEvent, Exchanged, void> {
    let { request, fit } = first;
    let outcome: StreamOutcome | FallbackOutcome | undefined;
    let failure: unknown;
    let streamError: ChatEvent | undefined;
    let firstTokenMs: number | null = null;
    const quiet = this.deps.quiet === true;
    this.sayOmitted(fit);
    const take = (raw: ChatEvent): ChatEvent => {
      const event = map ? map(raw) : raw;
      if (firstTokenMs === null && (event.type === 'text' || event.type === 'reasoning' || event.type === 'tool_call')) {
        firstTokenMs = Date.now() - started;
      }
      if (event.type === 'error' && !streamError) streamError = event;
      onEvent(event);
      return event;
    };
    // Stryker disable next-line UpdateOperator: attempt is only compared with 0; counted down it leaves 0 as surely as counted up
    for (let attempt = 0; ; attempt++) {
      try {
        // Quiet: the events are taken as they are decoded (streamChat's onEvent), not passed up as yields.
        const streamOptions = { conn: this.deps.conn, api: this.settings.api, request, signal, log: this.deps.log, warn: this.deps.warn, onRetry: this.deps.onRetry, ...(quiet ? { onEvent: take } : {}) };
        const fallbacks = this.deps.fallbacks ?? [];
        const events: AsyncGenerator<ChatEvent, StreamOutcome | FallbackOutcome, void> =
          fallbacks.length > 0
            ? streamChatWithFallback(streamOptions, fallbacks, ({ from, to, error }) =>
                this.deps.warn?.(`${from}: ${error.message}; trying the fallback ${to}`),
              )
            : streamChat(streamOptions);
        while (true) {
          const step = await events.next();
          if (step.done) {
            outcome = step.value;
            break;
          }
          yield take(step.value);
        }
      } catch (error) {
        failure = error;
      }
      // Too long for the model (a 400 before any answer): once, with the turns that fit the window it named.
      const again = attempt === 0 && failure !== undefined && !signal.aborted ? await refit(failure, fit) : null;
      if (!again) break;
      ({ request, fit } = again);
      failure = undefined;
      this.sayOmitted(fit, again.learned);
    }
    return { outcome, failure, streamError, firstTokenMs, fit };
  }

  currentSummary(): SummaryState | null {
    return this.summary && { ...this.summary };
  }

  compact(instructions: string, signal: AbortSignal): AsyncGenerator<ChatEvent, TurnOutcome, void> | null {
    const end = compactionEnd(this.turns, this.summary?.covered ?? 0);
    return end === null ? null : this.runCompaction(instructions.trim(), end, signal);
  }

  /**
   * /compact, `history compact` (SPEC §17): the turns so far (the summary in effect standing for those it
   * covers, fitted to the window like any request) and the summarising instruction; a complete answer
   * with text becomes the summary of the first `end` turns — saved as a `summary` record and sent in their
   * place from now on. Anything else changes nothing and writes nothing (the ledger still counts it).
   */
  private async *runCompaction(instructions: string, end: number, signal: AbortSignal): AsyncGenerator<ChatEvent, TurnOutcome, void> {
    const { settings } = this;
    const cid = this.deps.record && this.deps.store ? this.cid : null;
    const refused = this.deps.budget?.reached();
    if (refused) {
      const result = new ResultAccumulator().result({ api: settings.api, cid: this.cid, outcome: 'error' });
      return { status: 'error', result, error: refused, timings: { firstTokenMs: null, totalMs: 0 } };
    }
    const prompt = compactionPrompt(instructions);
    const started = Date.now();
    const acc = new ResultAccumulator();
    // Not a schema answer: the request is the conversation's own, without --schema.
    const first = this.fitted(prompt, [], undefined, end);
    const { outcome, failure, streamError, firstTokenMs } = yield* this.exchange(
      { request: { ...first.request, schema: undefined }, fit: first.fit },
      started,
      signal,
      async (error, sentFit) => {
        const again = await this.refitAfterOverflow(error, sentFit, prompt, [], undefined, end);
        return again && { ...again, request: { ...again.request, schema: undefined } };
      },
      (event) => acc.add(event),
    );
    const { status, result, ...ending } = await this.settle({ outcome, failure, streamError }, acc, signal, this.cid);
    let { error } = ending;
    const timings = { firstTokenMs, totalMs: Date.now() - started };
    if (status === 'complete' && !error && result.text.trim() === '') {
      error = new GatechatError(
        `${result.model ?? settings.model} answered without a summary${result.tool_calls.length > 0 ? ' (it asked for a tool instead)' : ''}; nothing was compacted`,
        ExitCode.server,
        'try again, or with another model: /model, or -m',
      );
    }
    if (status !== 'complete' || error) return { status: error && status === 'complete' ? 'error' : status, result, error, timings };

    const through = this.turnIds.get(this.turns[end - 1]!);
    const covered = this.turns.slice(0, end);
    const compaction: CompactionInfo = {
      turns: end,
      ...(through !== undefined ? { through } : {}),
      coveredTokens: covered.filter(isSent).reduce((n, turn) => n + textTokens(turn.prompt) + textTokens(turn.result.text), this.summary ? textTokens(this.summary.text) : 0),
      summaryTokens: textTokens(result.text),
    };
    if (cid) {
      // Written before it takes effect: a store that cannot take it (disk full) leaves the turns in use.
      const saveError = storageFailure(() =>
        this.deps.store!.appendSummary(cid, {
          content: result.text,
          turns: end,
          // Undefined (turns of an older file have no id) is left out of the record by JSON.
          through,
          model: result.model ?? settings.model,
          api: settings.api,
          usage: result.usage,
          cost: result.cost ?? null,
          ...(instructions ? { instructions } : {}),
        }),
      );
      if (saveError) return { status: 'error', result, error: saveError, timings };
    }
    this.summary = { text: result.text, covered: end };
    return { status, result, timings, compaction };
  }

  /** `retry`: this prompt asks an earlier turn again (/retry), superseding the one with that id (`keep`: beside it). */
  private async *runTurn(
    prompt: string,
    attachments: Attachment[],
    signal: AbortSignal,
    retry: { supersedes: string | undefined; keep: boolean } | null,
    toolResults?: ToolResultEntry[],
  ): AsyncGenerator<ChatEvent, TurnOutcome, void> {
    const { settings } = this;
    const fitted = this.fitted(prompt, attachments, toolResults);
    // A budget already spent sends nothing (SPEC §16, exit 11) and records nothing: the turn ends as an
    // error before it began, like any other failure the renderers already show.
    const refused = this.deps.budget?.reached();
    if (refused) {
      const result = new ResultAccumulator().result({ api: settings.api, cid: this.cid, outcome: 'error' });
      return { status: 'error', result, error: refused, timings: { firstTokenMs: null, totalMs: 0 } };
    }
    const cid = this.ensureCid();
    // Written before the request, so a crash mid-answer never loses what the user typed. A store that
    // cannot take it (disk full) throws here: one line, nothing sent.
    if (cid && this.pendingTitle !== undefined) {
      this.deps.store!.appendTitle(cid, this.pendingTitle);
      this.pendingTitle = undefined;
    }
    const turnId = cid
      ? this.deps.store!.appendUser(cid, prompt, { retry: retry !== null, supersedes: retry?.supersedes, keep: retry?.keep, settings: this.changedSettings(), attachments, toolResults })
      : undefined;

    const started = Date.now();
    // Stryker disable next-line LogicalOperator: `undefined && true` is undefined, which ResultAccumulator also takes as keepText true
    const retainText = this.deps.retainText ?? true;
    const acc = new ResultAccumulator({ keepText: retainText });
    // Saved in parts as it streams, whether or not the text is also kept (--json keeps it): a long answer
    // is never held twice, and never written as one record the size of the answer (SPEC §20 limits).
    const spill = cid ? new AnswerSpill(this.deps.store!, cid, turnId) : null;

    const sent = yield* this.exchange(fitted, started, signal, (error, sentFit) => this.refitAfterOverflow(error, sentFit, prompt, attachments, toolResults), (event) => {
      if (event.type === 'text') spill?.add(event.delta);
      acc.add(event);
    }, this.deps.answerSchema ? answerToolAsText : undefined);
    const { outcome, failure, streamError, firstTokenMs, fit } = sent;

    const { status, result, ...ending } = await this.settle({ outcome, failure, streamError }, acc, signal, cid);
    let { error } = ending;
    const timings = { firstTokenMs, totalMs: Date.now() - started };
    let data: unknown;
    if (this.deps.answerSchema && status === 'complete' && !error) {
      const check = this.deps.answerSchema.check(result.text);
      data = check.data;
      if (!check.ok) error = schemaMismatchError(check);
    }

    const finished: FinishedTurn = { prompt, attachments, result, status, ...(toolResults ? { toolResults } : {}), ...(fit?.omittedTurns ? { omittedTurns: fit.omittedTurns } : {}) };
    // Kept while its tool loop runs (send() drops it): thinking models want it back with the calls.
    if (result.tool_calls.length > 0 && (result.reasoning !== null || acc.reasoningBlocks.length > 0)) {
      finished.replay = { text: result.reasoning, blocks: acc.reasoningBlocks };
    }
    this.turns.push(finished);
    this.turnIds.set(finished, turnId);
    // A store that cannot take the answer (disk full) does not take back what was printed.
    let saveError = spill?.failure;
    if (cid && !saveError) {
      saveError = storageFailure(() =>
        this.deps.store!.appendAssistant(cid, {
          turn: turnId,
          // With a spill, the earlier parts are on disk already; the record carries the rest.
          content: spill ? spill.rest() : result.text,
          reasoning: result.reasoning,
          tool_calls: result.tool_calls,
          status,
          finish_reason: result.finish_reason,
          raw_finish_reason: result.raw_finish_reason,
          usage: result.usage,
          cost: result.cost ?? null,
          model: result.model ?? settings.model,
          api: settings.api,
          params: { temperature: settings.temperature, max_tokens: settings.maxTokens, stream: settings.stream, options: settings.extraBody },
          timings: { first_token_ms: firstTokenMs, total_ms: timings.totalMs },
          error: error ? { message: error.message, exit_code: error.exitCode } : undefined,
          ...(fit?.omittedTurns ? { omitted_turns: fit.omittedTurns } : {}),
          ...(result.fallback_from ? { fallback_from: result.fallback_from } : {}),
        }),
      );
    }
    // The turn's own failure, if any, decides the exit code; the save's is said beside it.
    if (saveError && error) this.deps.warn?.(`${saveError.message}${saveError.hint ? ` (${saveError.hint})` : ''}`);
    else if (saveError) error = saveError;
    return { status, result, error, termination: outcome?.termination, timings, ...(this.deps.answerSchema ? { data: data ?? null } : {}) };
  }
}

/** A request and what its fitting left out. */
type Fitted = { request: RequestOptions; fit: ContextFit | null };

/** How one exchange with the gateway ended (GatewayConversation.exchange). */
interface Exchanged {
  outcome: StreamOutcome | FallbackOutcome | undefined;
  failure: unknown;
  streamError: ChatEvent | undefined;
  firstTokenMs: number | null;
  fit: ContextFit | null;
}

/** The model a fallback outcome names (null: the one asked for answered, or no fallbacks were set). */
function answeredBy(outcome: StreamOutcome | FallbackOutcome): string | null {
  const fallback = outcome as Partial<FallbackOutcome>;
  return typeof fallback.fallbackFrom === 'string' && typeof fallback.model === 'string' ? fallback.model : null;
}

/** Runs a write to the store; a storage fault (disk full, read-only) comes back instead of being thrown. */
function storageFailure(write: () => void): StorageError | undefined {
  try {
    write();
    return undefined;
  } catch (error) {
    if (error instanceof StorageError) return error;
    throw error;
  }
}

/** A turn read back from disk, in the form this session's turns have. */
function finishedTurn(turn: StoredTurn, cid: string, api: Api): FinishedTurn {
  const answer = turn.assistant;
  if (!answer) {
    // gatechat ended before anything of the answer was written: nothing arrived that could be kept.
    const result = new ResultAccumulator().result({ api, cid, outcome: 'interrupted' });
    return { prompt: turn.user, result, status: 'interrupted' };
  }
  return {
    prompt: turn.user,
    ...(turn.toolResults ? { toolResults: turn.toolResults } : {}),
    ...(Number.isInteger(answer.omitted_turns) && answer.omitted_turns! > 0 ? { omittedTurns: answer.omitted_turns } : {}),
    status: answer.status,
    result: {
      text: answer.content,
      reasoning: answer.reasoning ?? null,
      // Hand-edited files may lack it.
      // Stryker disable next-line ArrayDeclaration: the store's parser already gives every answer a tool_calls array
      tool_calls: Array.isArray(answer.tool_calls) ? answer.tool_calls : [],
      finish_reason: answer.finish_reason ?? null,
      raw_finish_reason: answer.raw_finish_reason ?? null,
      // Stryker disable next-line ObjectLiteral: the store's parser already gives every answer a usage object
      usage: answer.usage ?? { input_tokens: null, output_tokens: null },
      cost: answer.cost ?? null,
      model: answer.model ?? null,
      api: answer.api ?? api,
      cid,
    },
  };
}

/**
 * --schema on Messages: the forced `answer` tool's input is the answer, so it becomes the turn's
 * text (and its `tool_use` stop an ordinary stop) — stored, printed and validated like a Chat
 * Completions answer.
 */
export function answerToolAsText(event: ChatEvent): ChatEvent {
  if (event.type === 'tool_call' && event.name === ANSWER_NAME) {
    return { type: 'text', delta: typeof event.arguments === 'string' ? event.arguments : JSON.stringify(event.arguments) };
  }
  if (event.type === 'finish' && event.reason === 'tool_calls') return { ...event, reason: 'stop' };
  return event;
}

/**
 * Writes a long answer to the store in pieces as it streams, so it is never whole in memory. A piece
 * the store cannot take (disk full) stops the saving, not the answer: the rest is still printed, and
 * `failure` is reported once it ended (no final record then: its parts on disk are not the whole).
 */
class AnswerSpill {
  private static readonly partSize = 256 * 1024;
  private pending = '';
  failure: StorageError | undefined;

  constructor(
    private readonly store: ConversationStore,
    private readonly cid: string,
    private readonly turn: string | undefined,
  ) {}

  add(delta: string): void {
    if (this.failure) return;
    this.pending += delta;
    if (this.pending.length >= AnswerSpill.partSize) {
      this.failure = storageFailure(() => this.store.appendAnswerPart(this.cid, this.pending, this.turn));
      this.pending = '';
    }
  }

  /** What has not been written yet; the turn's final record holds it. */
  rest(): string {
    return this.pending;
  }
}

/** An error the gateway reported inside a 200 answer (an error event, or an error object in a whole answer). */
export function reportedError(streamError: ChatEvent | undefined, streamed: boolean): GatechatError {
  const detail = streamError?.type === 'error' ? streamError : null;
  const code = detail?.code !== null && detail?.code !== undefined ? ` (${detail.code})` : '';
  const where = streamed ? 'inside the stream' : 'in its answer';
  const message = `the gateway reported an error ${where}${code}: ${detail?.message ?? 'no message'}`;
  return new ServerStreamError(message, detail?.status ?? null);
}

function classifyEnding(
  outcome: StreamOutcome | undefined,
  failure: unknown,
  streamError: ChatEvent | undefined,
  signal: AbortSignal,
  answerBegan: boolean,
  streamed: boolean,
): { status: TurnStatus; error?: GatechatError } {
  if (failure !== undefined) {
    if (signal.aborted || isAbortError(failure)) {
      return { status: 'cancelled', error: new GatechatError('cancelled', ExitCode.interrupted) };
    }
    const error =
      failure instanceof GatechatError
        ? failure
        : new GatechatError(`internal error: ${(failure as Error)?.message ?? String(failure)}`, ExitCode.internal, 'please report this');
    return { status: answerBegan ? 'interrupted' : 'error', error };
  }
  switch (outcome!.termination) {
    case 'end_marker':
    case 'finish_then_eof':
      return { status: 'complete' };
    case 'error':
      return { status: 'error', error: reportedError(streamError, streamed) };
    case 'truncated':
      return { status: 'interrupted', error: new StreamInterruptedError() };
    // Stryker disable next-line ConditionalExpression,BlockStatement: unreachable: termination is a closed union (the compiler checks `never` below)
    default: {
      const never: never = outcome!.termination;
      // Stryker disable next-line StringLiteral: unreachable, as above
      throw new Error(`unknown termination ${String(never)}`);
    }
  }
}

