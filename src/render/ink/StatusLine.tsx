import { Text } from 'ink';
import type { SessionSettings } from '../../session/types.js';
import type { LastAnswer, LiveTurn } from './chat-state.js';
import { useNow } from './use-now.js';
import { tokensText } from '../footer.js';
import { formatCost } from '../../protocol/cost.js';

/** After this long without a token the status line says how long it has been waiting. */
export const SILENCE_MS = 3000;

/** While an answer streams: this turn's tokens and seconds, "waiting N s" once the stream is silent. */
export function liveStatus(live: LiveTurn, now: number): string {
  const count = live.usage?.output_tokens ?? live.deltas;
  const silentFor = now - (live.lastTokenAt ?? live.startedAt);
  const time = silentFor >= SILENCE_MS ? `waiting ${Math.floor(silentFor / 1000)} s` : `${Math.floor((now - live.startedAt) / 1000)} s`;
  // Not "out N tokens": that is the finished answer's figure (and what scripts wait for).
  return `↓ ${count} token${count === 1 ? '' : 's'} · ${time}`;
}

/** model · interface · temperature · this answer's progress, or the last answer's tokens and time. */
export function statusText(settings: SessionSettings, last: LastAnswer | null, live: LiveTurn | null = null, now = Date.now()): string {
  const parts = [settings.model, settings.api, `temp ${settings.temperature ?? 'default'}`];
  if (!settings.stream) parts.push('stream off');
  if (live) parts.push(liveStatus(live, now));
  else if (last) {
    parts.push(tokensText(last));
    // SPEC §16: what the last answer cost; left out when unknown (never a made-up $0).
    if (last.cost) parts.push(formatCost(last.cost));
    parts.push(`${last.seconds.toFixed(1)}s`);
  }
  return parts.join(' · ');
}

interface Props {
  settings: SessionSettings;
  last: LastAnswer | null;
  live: LiveTurn | null;
  notice: string | null;
  color: boolean;
}

export function StatusLine({ settings, last, live, notice, color }: Props) {
  // Ticks while an answer streams, tokens or not: a stalled stream must not look frozen.
  const now = useNow(500, live !== null);
  if (notice) return <Text color={color ? 'yellow' : undefined}>{` ${notice}`}</Text>;
  // One line whatever the width: a wrapped status line would push the input box around on resize.
  return (
    <Text dimColor wrap="truncate-end">
      {` ${statusText(settings, last, live, Math.max(now, Date.now()))}`}
    </Text>
  );
}
