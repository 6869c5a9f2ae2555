// SPEC §18 templates: each front matter key's type check and its one-line message, the edges of the
// front matter's fences, and the directory listing's filters — exact messages, as the user reads them.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseTemplate, readTemplate } from '../../src/session/templates.js';
import { listTemplateNames, parseTemplateName } from '../../src/session/template-names.js';
import { UsageError } from '../../src/exit-codes.js';

/** The message parseTemplate throws for `yaml` as front matter (null: accepted). */
function refusal(yaml: string): string | null {
  try {
    parseTemplate('t', `---\n${yaml}\n---\nbody`);
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
}

describe('front matter values', () => {
  it('string keys take only strings', () => {
    expect(refusal('model: m')).toBeNull();
    expect(refusal('model: {a: 1}')).toBe('template t: model must be a string');
    expect(refusal('model: [a]')).toBe('template t: model must be a string');
  });

  it('number keys take only numbers', () => {
    expect(refusal('temperature: 0.5')).toBeNull();
    expect(refusal('temperature: hot')).toBe('template t: temperature must be a number');
    expect(refusal('max-tokens: {a: 1}')).toBe('template t: max-tokens must be a number');
  });

  it('mapping keys take only mappings: not a string, a list or null', () => {
    expect(refusal('options: {top_p: 0.9}')).toBeNull();
    expect(refusal('options: text')).toBe('template t: options must be a mapping');
    expect(refusal('mcp: [a]')).toBe('template t: mcp must be a mapping');
    expect(refusal('options: null')).toBe('template t: options must be a mapping');
    expect(refusal('options:')).toBe('template t: options must be a mapping');
  });

  it('allow takes a string or a list of strings', () => {
    expect(refusal('allow: read_file')).toBeNull();
    expect(refusal('allow: [read_file, write_file]')).toBeNull();
    expect(refusal('allow: []')).toBeNull();
    expect(parseTemplate('t', '---\nallow: [a, b]\n---\nx').front).toEqual({ allow: ['a', 'b'] });
    expect(refusal('allow: [read_file, 3]')).toBe('template t: allow must be a string or a list of strings');
    expect(refusal('allow: [3]')).toBe('template t: allow must be a string or a list of strings');
    expect(refusal('allow: {a: 1}')).toBe('template t: allow must be a string or a list of strings');
    expect(refusal('allow: 3')).toBe('template t: allow must be a string or a list of strings');
  });

  it('schema takes a string or a mapping', () => {
    expect(refusal('schema: answer.json')).toBeNull();
    expect(refusal('schema: {type: object}')).toBeNull();
    expect(refusal('schema: 3')).toBe('template t: schema must be a string or a mapping');
    expect(refusal('schema: [a]')).toBe('template t: schema must be a string or a mapping');
  });

  it('an unknown key is named with every known one', () => {
    expect(refusal('modle: m')).toBe(
      'template t: unknown front matter key modle (known: model, system, temperature, max-tokens, api, schema, options, description, mcp, allow)',
    );
  });

  it('invalid YAML is named by the first line of the parser message', () => {
    expect(refusal('model: [')).toBe(
      'template t: the front matter is not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ] at line 2, column 1:',
    );
  });
});

describe('front matter fences and the body', () => {
  it('front matter of comments only is empty, as is none at all', () => {
    expect(parseTemplate('t', '---\n# nothing yet\n---\nHi')).toEqual({ name: 't', front: {}, body: 'Hi' });
    expect(parseTemplate('t', '---\n   \n---\nHi')).toEqual({ name: 't', front: {}, body: 'Hi' });
    expect(parseTemplate('t', '---\n---\nHi')).toEqual({ name: 't', front: {}, body: 'Hi' });
  });

  it('only a whole --- or ... line closes it, not one that ends or starts with them', () => {
    expect(parseTemplate('t', '---\nsystem: wait...\n---\nbody').front).toEqual({ system: 'wait...' });
    expect(parseTemplate('t', '---\nsystem: a ---\n...\nbody')).toEqual({ name: 't', front: { system: 'a ---' }, body: 'body' });
    expect(refusal('model: m\n---x: 1')).toMatch(/^template t: unknown front matter key ---x \(known: /);
  });

  it('keeps a BOM that is not the first character; trims every trailing blank of the body', () => {
    expect(parseTemplate('t', 'x\uFEFFy').body).toBe('x\uFEFFy');
    expect(parseTemplate('t', '---\nmodel: m\n---\nline one\nline two  \n\n\t\n').body).toBe('line one\nline two');
  });
});

describe('the templates directory', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gatechat-templates-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('lists plain names of .md files and links, sorted by name, not by file name', () => {
    // libuv hands the entries over sorted by file name, where a-b.md comes before a.md ('-' < '.').
    for (const name of ['m', 'c', 'x', 'a', 'a-b', 'q', 'b', 'z', 'k']) writeFileSync(join(dir, `${name}.md`), 'x');
    writeFileSync(join(dir, '.hidden.md'), 'x');
    writeFileSync(join(dir, 'a b.md'), 'x');
    writeFileSync(join(dir, '_under.md'), 'x');
    symlinkSync(join(dir, 'a.md'), join(dir, 'linked.md'));
    mkdirSync(join(dir, 'folder.md'));
    expect(listTemplateNames(dir)).toEqual(['a', 'a-b', 'b', 'c', 'k', 'linked', 'm', 'q', 'x', 'z']);
  });

  it('a bad name is one line naming it and what a name may hold', () => {
    expect(() => parseTemplateName('../x')).toThrow(
      new UsageError('template: "../x" is not a template name (letters, digits, . _ -; not starting with a dot)'),
    );
    expect(() => parseTemplateName('.x', 'save-template')).toThrow(
      new UsageError('save-template: ".x" is not a template name (letters, digits, . _ -; not starting with a dot)'),
    );
  });

  it('a template that exists but cannot be read is named with the errno, not as missing', () => {
    mkdirSync(join(dir, 'folder.md'));
    expect(() => readTemplate('folder', dir)).toThrow(new UsageError(`template folder: cannot read ${join(dir, 'folder.md')}: EISDIR`));
  });
});
