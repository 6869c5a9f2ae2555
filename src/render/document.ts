import { writeWithBackpressure } from './output.js';
import { jsonText } from './json-text.js';
import { createPipeRenderer, type PipeRendererOptions } from './pipe.js';
import type { OneShotRenderer } from './renderer.js';

/**
 * --schema on a pipe (SPEC §12): stdout gets the JSON document on one line, for `jq` and line-based
 * tools, however the model spaced it. An answer that is not JSON is printed as it came (exit 9
 * follows). Reasoning still goes to stderr as it arrives.
 */
export function createDocumentRenderer(options: PipeRendererOptions): OneShotRenderer {
  // The pipe renderer handles reasoning; answer text is held back until the end.
  const reasoning = createPipeRenderer(options);
  return {
    async event(event) {
      if (event.type === 'reasoning') await reasoning.event(event);
    },
    async end(outcome) {
      await reasoning.end(outcome);
      const { text } = outcome.result;
      const line = outcome.data !== undefined && outcome.data !== null ? jsonText(outcome.data) : text;
      if (line !== '') await writeWithBackpressure(options.stdout, line.endsWith('\n') ? line : `${line}\n`);
      options.stdout.settle();
    },
  };
}
