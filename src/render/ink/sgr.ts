/**
 * SGR (Select Graphic Rendition: colours and attributes) in rendered text, pure. Two needs:
 * - a wrapped row must reopen what the row above left open: Ink styles each line on its own, so a
 *   colour opened on one row and closed on the next would be lost on the second (highlighted code);
 * - NO_COLOR forbids colour, not bold, italic or underline: drop the colour parameters only.
 */

/** One SGR sequence: ESC [ parameters m. */
// eslint-disable-next-line no-control-regex
export const SGR = /\u001B\[([0-9;:]*)m/g;

type Slot = 'fg' | 'bg' | 'ul-colour' | 'bold' | 'dim' | 'italic' | 'underline' | 'blink' | 'inverse' | 'hidden' | 'strike';

const SET: Record<string, Slot> = { '1': 'bold', '2': 'dim', '3': 'italic', '4': 'underline', '5': 'blink', '7': 'inverse', '8': 'hidden', '9': 'strike' };
const RESET: Record<string, Slot[]> = {
  '22': ['bold', 'dim'], '23': ['italic'], '24': ['underline'], '25': ['blink'], '27': ['inverse'], '28': ['hidden'], '29': ['strike'],
  '39': ['fg'], '49': ['bg'], '59': ['ul-colour'],
};

/** Splits parameters into one entry per setting: `38;5;196` and `38;2;r;g;b` stay together. */
function settings(params: string): string[] {
  if (params === '') return ['0'];
  const parts = params.split(';');
  const out: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    if ((p === '38' || p === '48' || p === '58') && parts[i + 1] === '5') {
      out.push(parts.slice(i, i + 3).join(';'));
      i += 2;
    } else if ((p === '38' || p === '48' || p === '58') && parts[i + 1] === '2') {
      out.push(parts.slice(i, i + 5).join(';'));
      i += 4;
    } else {
      out.push(p === '' ? '0' : p);
    }
  }
  return out;
}

function colourSlot(setting: string): Slot | null {
  const head = setting.split(/[;:]/)[0]!;
  const n = Number(head);
  if (head === '38' || (n >= 30 && n <= 37) || (n >= 90 && n <= 97)) return 'fg';
  if (head === '48' || (n >= 40 && n <= 47) || (n >= 100 && n <= 107)) return 'bg';
  if (head === '58') return 'ul-colour';
  return null;
}

/** The styles in effect at a point of a text, built from the SGR sequences seen so far. */
export class SgrState {
  private readonly slots = new Map<Slot, string>();

  /** Takes one sequence's parameters (what is between `ESC [` and `m`). */
  apply(params: string): void {
    for (const setting of settings(params)) {
      if (setting === '0') this.slots.clear();
      else if (RESET[setting]) for (const slot of RESET[setting]!) this.slots.delete(slot);
      else if (SET[setting.split(':')[0]!]) this.slots.set(SET[setting.split(':')[0]!]!, setting);
      else {
        const slot = colourSlot(setting);
        if (slot) this.slots.set(slot, setting);
      }
    }
  }

  get active(): boolean {
    return this.slots.size > 0;
  }

  /** One sequence that sets every style in effect ('' when none is). */
  open(): string {
    return this.active ? `\u001B[${[...this.slots.values()].join(';')}m` : '';
  }
}

/** `text` without colour: SGR sequences keep their attributes (bold, italic, underline …) only. */
export function stripColour(text: string): string {
  return text.replace(SGR, (_, params: string) => {
    const kept = settings(params).filter((s) => colourSlot(s) === null && !['39', '49', '59'].includes(s));
    return kept.length > 0 ? `\u001B[${kept.join(';')}m` : '';
  });
}
