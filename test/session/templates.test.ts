// SPEC §18 templates: the file format (front matter + body), parameters and where stdin goes. Pure
// parsing and rendering, then the directory with a temp config dir.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseTemplate, readTemplate, renderTemplate, templateParameters } from '../../src/session/templates.js';
import { listTemplateNames, parseTemplateName, templatesDir } from '../../src/session/template-names.js';
import { UsageError } from '../../src/exit-codes.js';

describe('parseTemplate', () => {
  it('reads YAML front matter and the body after it', () => {
    const t = parseTemplate('review', '---\nmodel: echo\ntemperature: 0.2\nsystem: You review {{lang}} code.\noptions:\n  top_p: 0.9\n---\nReview this:\n\n{{input}}\n');
    expect(t.front).toEqual({ model: 'echo', temperature: 0.2, system: 'You review {{lang}} code.', options: { top_p: 0.9 } });
    expect(t.body).toBe('Review this:\n\n{{input}}');
  });

  it('a file without front matter is all body; a BOM and CRLF line ends are fine', () => {
    expect(parseTemplate('a', 'Just {{x}}.\n')).toEqual({ name: 'a', front: {}, body: 'Just {{x}}.' });
    expect(parseTemplate('a', '\uFEFF---\r\nmodel: m\r\n---\r\nHi\r\n')).toEqual({ name: 'a', front: { model: 'm' }, body: 'Hi' });
  });

  it('refuses unclosed front matter, invalid YAML, a non-mapping and unknown keys, naming the template', () => {
    expect(() => parseTemplate('t', '---\nmodel: m\nbody')).toThrow(/template t: the front matter has no closing ---/);
    expect(() => parseTemplate('t', '---\nmodel: [\n---\nbody')).toThrow(/template t: the front matter is not valid YAML/);
    expect(() => parseTemplate('t', '---\n- a\n---\nbody')).toThrow(/template t: the front matter must be a mapping/);
    expect(() => parseTemplate('t', '---\nmodle: m\n---\nbody')).toThrow(/template t: unknown front matter key modle \(known: /);
    expect(() => parseTemplate('t', '---\nmodel: 3\n---\nbody')).toThrow(/template t: model must be a string/);
    expect(() => parseTemplate('t', '---\noptions: 3\n---\nbody')).toThrow(/template t: options must be a mapping/);
  });
});

describe('parameters', () => {
  it('lists {{name}} placeholders once each, in order, spaces inside the braces allowed', () => {
    expect(templateParameters('{{b}} {{ a }} {{b}} {{input}} {{not a name}}')).toEqual(['b', 'a', 'input']);
  });

  it('renders every placeholder; a value is inserted literally (no second pass)', () => {
    expect(renderTemplate('t', 'Lang {{lang}}: {{ input }}', { lang: 'go', input: 'x {{lang}}' })).toBe('Lang go: x {{lang}}');
  });

  it('a missing parameter is a usage error naming it and how to pass it', () => {
    const error = (() => {
      try {
        renderTemplate('review', '{{lang}} {{style}}', { lang: 'go' });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toBe('template review: missing parameter style (pass -P style=…)');
  });
});

describe('the templates directory', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gatechat-templates-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('lives in the config dir; names are the .md files, sorted; a missing directory is no templates', () => {
    expect(templatesDir({ GATECHAT_CONFIG_DIR: dir })).toBe(join(dir, 'templates'));
    expect(listTemplateNames(join(dir, 'templates'))).toEqual([]);
    mkdirSync(join(dir, 'templates'));
    writeFileSync(join(dir, 'templates', 'review.md'), 'x');
    writeFileSync(join(dir, 'templates', 'explain.md'), 'y');
    writeFileSync(join(dir, 'templates', 'notes.txt'), 'z');
    mkdirSync(join(dir, 'templates', 'sub.md'));
    expect(listTemplateNames(join(dir, 'templates'))).toEqual(['explain', 'review']);
  });

  it('a name is a plain file name: no paths, no dot start', () => {
    expect(parseTemplateName('code-review_2.x')).toBe('code-review_2.x');
    for (const bad of ['', '../x', 'a/b', '.hidden', 'a b']) expect(() => parseTemplateName(bad)).toThrow(UsageError);
  });

  it('reading an unknown template names it and points to the list', () => {
    expect(() => readTemplate('nope', dir)).toThrow('no template named nope in ' + dir + ' (see: gatechat template list)');
  });

  it('a template may be a link (kept in a dotfiles repository)', () => {
    writeFileSync(join(dir, 'target.md'), '---\nmodel: m\n---\nfrom {{where}}');
    symlinkSync(join(dir, 'target.md'), join(dir, 'linked.md'));
    expect(readTemplate('linked', dir)).toEqual({ name: 'linked', front: { model: 'm' }, body: 'from {{where}}' });
  });
});
