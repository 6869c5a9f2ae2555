import { Text } from 'ink';
import type { SessionSettings } from '../../session/types.js';
import type { LastAnswer } from './chat-state.js';

function tokens(n: number | null): string {
  return n === null ? '–' : String(n);
}

/** model · interface · temperature · tokens in/out and time of the last answer. */
export function statusText(settings: SessionSettings, last: LastAnswer | null): string {
  const parts = [settings.model, settings.api, `temp ${settings.temperature ?? 'default'}`];
  if (!settings.stream) parts.push('stream off');
  if (last) parts.push(`in ${tokens(last.input_tokens)} / out ${tokens(last.output_tokens)} tokens`, `${last.seconds.toFixed(1)}s`);
  return parts.join(' · ');
}

export function StatusLine({ settings, last, notice, color }: { settings: SessionSettings; last: LastAnswer | null; notice: string | null; color: boolean }) {
  if (notice) return <Text color={color ? 'yellow' : undefined}>{` ${notice}`}</Text>;
  // One line whatever the width: a wrapped status line would push the input box around on resize.
  return (
    <Text dimColor wrap="truncate-end">
      {` ${statusText(settings, last)}`}
    </Text>
  );
}
