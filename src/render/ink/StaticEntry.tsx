import { Box, Text } from 'ink';
import { sanitizeForTerminal as safe } from '../terminal-text.js';
import type { StaticItem } from './chat-state.js';
import { renderMarkdownText } from './markdown-loader.js';
import { ToolCallBlock } from './ToolCallBlock.js';
import { visibleWidth, wrapText } from './wrap.js';

const TONE_COLOR = { info: undefined, error: 'red', warn: 'yellow', dim: 'gray' } as const;

/**
 * One finished piece of the transcript. Rendered once inside <Static>, so cost here is paid once.
 * Every text may come from the gateway or a saved conversation: drawn only through sanitizeForTerminal.
 */
export function StaticEntry({ item, width, color }: { item: StaticItem; width: number; color: boolean }) {
  switch (item.kind) {
    case 'banner':
      return <Text dimColor={color}>{safe(item.text)}</Text>;
    case 'prompt': {
      // Wrapped by our rules (words, CJK, URLs whole), beside a fixed marker column, never under it;
      // a box as wide as the widest row keeps Ink from splitting a long URL again.
      const text = wrapText(safe(item.text), Math.max(10, width - 2));
      const widest = Math.max(...text.split('\n').map(visibleWidth));
      return (
        <Box marginTop={1}>
          <Box width={2} flexShrink={0}>
            <Text bold color={color ? 'cyan' : undefined}>›</Text>
          </Box>
          <Box width={Math.max(widest, width - 2)} flexShrink={0}>
            <Text bold>{text}</Text>
          </Box>
        </Box>
      );
    }
    case 'answer': {
      const text = renderMarkdownText(item.text, width - 2, color);
      // Wrapped already, by rules Ink does not know: a URL longer than the line runs past the width
      // (the terminal soft-wraps it, so it stays whole). A box as wide as the widest line keeps Ink
      // from splitting it again (a little slack for width measures that differ on emoji).
      const widest = Math.max(...text.split('\n').map(visibleWidth));
      return (
        <Box paddingLeft={2} marginTop={item.joined ? 0 : 1}>
          <Box width={widest > width - 2 ? widest + 2 : width - 2} flexShrink={0}>
            <Text>{text}</Text>
          </Box>
        </Box>
      );
    }
    case 'reasoning':
      return (
        <Box paddingLeft={2} marginTop={1}>
          <Text dimColor italic={color}>{safe(item.text)}</Text>
        </Box>
      );
    case 'reasoning-collapsed':
      return (
        <Box paddingLeft={2} marginTop={1}>
          <Text dimColor>{`▸ reasoning folded (${item.lines} line${item.lines === 1 ? '' : 's'}) · Ctrl-R shows it`}</Text>
        </Box>
      );
    case 'tool':
      return (
        <Box paddingLeft={2} marginTop={1}>
          <ToolCallBlock call={item.call} color={color} />
        </Box>
      );
    case 'notice':
      return (
        <Box paddingLeft={item.tone === 'info' ? 0 : 2} marginTop={item.tone === 'info' ? 1 : 0}>
          <Text color={color ? TONE_COLOR[item.tone] : undefined} dimColor={item.tone === 'dim'}>
            {safe(item.text)}
          </Text>
        </Box>
      );
    default: {
      const never: never = item;
      throw new Error(`unknown item ${JSON.stringify(never)}`);
    }
  }
}
