import type { Io } from '../context.js';
import type { ChatModeOptions } from '../flags.js';

/** main.ts's mode decision (chat or one turn), applied to the demo's settings. */
type Run = (options: ChatModeOptions, prompt: string[]) => Promise<number>;

/**
 * `gatechat demo`: the dev gateway in-process on a free loopback port, so a new user sees the whole
 * tool work with no account. The user's own config and key are never used (nor sent) here, and
 * nothing is recorded: a demo conversation continued later (`gatechat -c`) would go to a gateway
 * that no longer exists, and it would stand in front of the user's own latest conversation.
 */
export async function runDemo(options: ChatModeOptions, prompt: string[], io: Io, run: Run): Promise<number> {
  const { startGateway } = await import('../../gateway/server.js');
  const gateway = await startGateway({ port: 0, host: '127.0.0.1' });
  const demoOptions: ChatModeOptions = {
    ...options,
    isolated: true,
    flags: {
      ...options.flags,
      baseUrl: `${gateway.url}/v1`,
      model: options.flags.model ?? 'echo',
      save: false,
    },
  };
  if (!options.quiet && options.output === 'auto') {
    io.stderr.write(
      `gatechat demo: answering from the embedded dev gateway at ${gateway.url}/v1 (model ${demoOptions.flags.model}; try -m lorem-200, -m slow-80, -m think, --api messages)\n`,
    );
  }
  try {
    return await run(demoOptions, prompt);
  } finally {
    await gateway.close();
  }
}
