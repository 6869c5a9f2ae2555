// The seam between where runnable tools come from (MCP servers, `x-command` definitions: SPEC §15) and
// the loop that runs them. The loop, the approval and the display see only these types; a source
// never knows whether it runs in one-shot, chat or batch.

/** One tool the model may call, as the loop and `gatechat tools` see it. */
export interface RunnableTool {
  /** The model-facing name: `<server>__<tool>` for MCP tools, the definition's name for command tools. */
  name: string;
  /** Where it runs: the MCP server's name, or `command` for an `x-command` definition. */
  source: string;
  description?: string;
  /** JSON Schema of its arguments (Chat Completions `parameters`, Messages `input_schema`). */
  inputSchema: Record<string, unknown>;
  /** MCP annotations: shown next to the approval prompt, never trusted to approve. */
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; title?: string };
}

export interface ToolCallOptions {
  /** Aborted on Ctrl-C and at the tool timeout: MCP cancellation, SIGTERM then SIGKILL after 2 s. */
  signal: AbortSignal;
}

/** What one call produced. The loop caps `text` (`--tool-output-limit`) and times the call itself. */
export interface ToolOutcome {
  /** false: an error result (a non-zero exit, MCP `isError`, a crash, a timeout), sent to the model as such. */
  ok: boolean;
  /** The result as the model gets it: MCP text content joined, a command's stdout, or the error's words. */
  text: string;
}

/** Every runnable tool of one run. Opened at launch, closed on every exit path. */
export interface ToolRunner {
  tools(): RunnableTool[];
  call(name: string, args: unknown, options: ToolCallOptions): Promise<ToolOutcome>;
  /** Stops what it started (servers, running commands); safe to call twice. */
  close(): Promise<void>;
}
