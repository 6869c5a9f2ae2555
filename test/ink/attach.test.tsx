// /attach in the interactive chat (SPEC §12): files join the next message, are shown above the input
// box until it is sent, and go to the conversation with it.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanup, render } from 'ink-testing-library';
import { ChatApp } from '../../src/render/ink/ChatApp.js';
import { openInputHistory } from '../../src/render/ink/input-history.js';
import { FakeConversation } from './fake-conversation.js';

const ENTER = '\r';

async function type(app: ReturnType<typeof render>, ...chunks: string[]) {
  for (const chunk of chunks) {
    app.stdin.write(chunk);
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function until(check: () => boolean, what: string, timeoutMs = 3000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

afterEach(() => cleanup());

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'gc-attach-'));
  const conversation = new FakeConversation();
  const history = openInputHistory(join(dir, 'input-history.jsonl'));
  const app = render(<ChatApp conversation={conversation} history={history} color={false} showReasoning version="9.9.9" onExit={vi.fn()} env={{}} />);
  return { app, conversation, dir, frame: () => app.lastFrame() ?? '' };
}

describe('/attach', () => {
  it('shows the file on the pending message until it is sent, then sends it with the prompt', async () => {
    const { app, conversation, dir, frame } = setup();
    const notes = join(dir, 'notes.md');
    writeFileSync(notes, 'hello notes\n');
    await type(app, `/attach ${notes}`, ENTER);
    await until(() => frame().includes(`attached: ${notes} (text, 12 B)`), 'the pending attachment');
    expect(conversation.sent).toEqual([]);

    await type(app, 'summarize', ENTER);
    await until(() => conversation.sent.length === 1, 'the send');
    expect(conversation.sentAttachments[0]).toEqual([{ kind: 'text', path: notes, text: 'hello notes\n' }]);
    await until(() => frame().includes('You said: summarize'), 'the answer');
    expect(frame()).not.toContain('attached: ');

    // The next message goes without it.
    await type(app, 'again', ENTER);
    await until(() => conversation.sent.length === 2, 'the second send');
    expect(conversation.sentAttachments[1]).toEqual([]);
  });

  it('names a file it refuses, and /attach clear drops what is pending', async () => {
    const { app, conversation, dir, frame } = setup();
    const binary = join(dir, 'blob.bin');
    writeFileSync(binary, Buffer.from([0, 1, 2, 3]));
    await type(app, `/attach ${binary}`, ENTER);
    await until(() => frame().includes(`cannot attach ${binary}`), 'the refusal');

    const notes = join(dir, 'a.txt');
    writeFileSync(notes, 'a');
    await type(app, `/attach ${notes}`, ENTER);
    await until(() => frame().includes('attached: '), 'the pending attachment');
    await type(app, '/attach clear', ENTER);
    await until(() => !frame().includes('attached: '), 'the pending list to go');
    await type(app, 'hi', ENTER);
    await until(() => conversation.sent.length === 1, 'the send');
    expect(conversation.sentAttachments[0]).toEqual([]);
  });
});
