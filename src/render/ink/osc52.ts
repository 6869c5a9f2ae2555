/**
 * /copy: OSC 52 asks the terminal itself to set the clipboard, so it works over SSH. tmux passes it
 * on only inside a DCS passthrough (with every ESC doubled) — and only with allow-passthrough on;
 * with set-clipboard on, tmux also takes the plain sequence, so both are sent.
 */
export function osc52(text: string, env: NodeJS.ProcessEnv = process.env): string {
  const sequence = `\u001B]52;c;${Buffer.from(text, 'utf8').toString('base64')}\u0007`;
  if (!env.TMUX) return sequence;
  return `${sequence}\u001BPtmux;${sequence.replace(/\u001B/g, '\u001B\u001B')}\u001B\\`;
}
