import type { Command } from 'commander';
import { openConfigStore } from '../config/store.js';
import { KEY_NAMES, type ConfigFile, type ConfigScope } from '../config/keys.js';
import { cachedModelIds } from '../session/models-cache.js';
import { listTemplateNames } from '../session/template-names.js';
import { ExitCode } from '../exit-codes.js';
import { complete, type CompletionData } from './completion.js';

/** Model names worth offering: entry names (aliases and ids with settings), their targets, at every scope. */
function modelNames(file: ConfigFile): string[] {
  const scopes: ConfigScope[] = [file, ...Object.values(file.profiles ?? {})];
  return scopes.flatMap((scope) =>
    Object.entries(scope.models ?? {}).flatMap(([name, entry]) => (typeof entry?.model === 'string' ? [name, entry.model] : [name])),
  );
}

/** Completion never fails loudly: a missing or corrupt config just offers fewer names. */
function readConfig(): ConfigFile {
  try {
    return openConfigStore().snapshot();
  } catch {
    return {};
  }
}

export function answerCompletion(program: Command, words: string[], out: NodeJS.WritableStream): number {
  let file: ConfigFile | undefined;
  const config = () => (file ??= readConfig());
  const data: CompletionData = {
    profiles: () => Object.keys(config().profiles ?? {}),
    models: () => [...modelNames(config()), ...cachedModelIds()],
    templates: () => listTemplateNames(),
    configKeys: KEY_NAMES,
  };
  const { directive, candidates } = complete(program, words.length ? words : [''], data);
  out.write(`${[directive, ...candidates].join('\n')}\n`);
  return ExitCode.ok;
}
