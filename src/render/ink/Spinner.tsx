import { Text } from 'ink';
import { useNow } from './use-now.js';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** Waiting for the first token: a spinner and the seconds since the request was sent. */
export function Spinner({ since, label, color }: { since: number; label: string; color: boolean }) {
  const now = useNow(100);
  const elapsed = Math.max(0, now - since);
  const frame = FRAMES[Math.floor(elapsed / 100) % FRAMES.length];
  return (
    <Text>
      <Text color={color ? 'cyan' : undefined}>{frame}</Text>
      <Text dimColor={color}>{` ${label} ${(elapsed / 1000).toFixed(1)}s · Esc to cancel`}</Text>
    </Text>
  );
}
