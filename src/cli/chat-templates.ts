import { listTemplateNames, parseTemplateName } from '../session/template-names.js';
import type { TemplateShelf } from '../render/ink/slash-commands.js';

// /template in chat (SPEC §18). Names are a directory read (Tab asks often); a template itself is
// read, with the YAML parser, only when one is used.

export function openTemplateShelf(): TemplateShelf {
  return {
    names: () => listTemplateNames(),
    async use(rawName, params) {
      const name = parseTemplateName(rawName, '/template');
      const [{ readTemplate, renderTemplate }, { checkParameters, INPUT_PARAMETER, templateSettings }] = await Promise.all([
        import('../session/templates.js'),
        import('./template-options.js'),
      ]);
      const template = readTemplate(name);
      checkParameters(template, params, (p) => `/template ${name} ${p}=…`, (p) => `/template ${name} ${p}=`);
      // No stdin in a chat: {{input}} is where the user types, after the filled-in text.
      const values = { [INPUT_PARAMETER]: '', ...params };
      const { model, ...settings } = templateSettings(template, values);
      return { model, settings, draft: renderTemplate(name, template.body, values) };
    },
  };
}
