import type { FinishedTurn, SessionSettings } from '../../session/types.js';

/** /save: the conversation as a Markdown document (pure; the caller writes it). */
export function transcriptMarkdown(turns: ReadonlyArray<FinishedTurn>, settings: SessionSettings, now: Date = new Date()): string {
  const lines: string[] = [`# gatechat conversation`, '', `- date: ${now.toISOString()}`, `- model: ${settings.model}`, `- interface: ${settings.api}`];
  if (settings.system) lines.push(`- system: ${settings.system.replace(/\n/g, ' ')}`);
  lines.push('');
  for (const turn of turns) {
    lines.push('## User', '', turn.prompt, '');
    const model = turn.result.model ? ` (${turn.result.model})` : '';
    lines.push(`## Assistant${model}`, '');
    if (turn.result.text) lines.push(turn.result.text, '');
    for (const call of turn.result.tool_calls) {
      lines.push(`Tool call \`${call.name}\` (${call.id}):`, '', '```json', JSON.stringify(call.arguments, null, 2), '```', '');
    }
    if (turn.status !== 'complete') lines.push(`*(${turn.status})*`, '');
  }
  return `${lines.join('\n').replace(/\n+$/, '')}\n`;
}
