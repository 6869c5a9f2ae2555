import type { JsonObject } from '../protocol/json.js';
import { tryParseJson } from '../protocol/json.js';
import { ExitCode, GatechatError, UsageError } from '../exit-codes.js';

// `--schema` answers are checked where the answer is complete (SPEC §12), with ajv. ajv is loaded
// only when a schema is given: the plain one-shot path never pays for it.

export type AnswerCheck =
  /** `data`: the parsed document. */
  | { ok: true; data: unknown }
  /** `data`: the parsed answer when it is JSON at all, else null; `message`: the first violation. */
  | { ok: false; data: unknown; message: string };

export type AnswerValidator = (text: string) => AnswerCheck;

type CompiledSchema = ((data: unknown) => boolean) & { errors?: AjvError[] | null };
type AjvClass = new (options: Record<string, unknown>) => { compile(schema: object): CompiledSchema };

interface AjvError {
  instancePath: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** `/year must be integer`, `(root) must have required property 'title'`. */
function describe(error: AjvError): string {
  const where = error.instancePath === '' ? '(root)' : error.instancePath;
  // Stryker disable next-line OptionalChaining: ajv gives every error a params object
  const extra = typeof error.params?.additionalProperty === 'string' ? ` (${error.params.additionalProperty})` : '';
  return `${where} ${error.message ?? 'does not match'}${extra}`;
}

/**
 * Compiles the schema (a schema ajv cannot compile is the user's mistake: UsageError, before
 * anything is sent) and returns the check for an answer's text.
 */
export async function compileAnswerSchema(schema: JsonObject): Promise<AnswerValidator> {
  const draft2020 = typeof schema.$schema === 'string' && schema.$schema.includes('2020-12');
  // ajv is CommonJS: its module.exports is the class, with the class again as `.default`.
  const loaded = (draft2020 ? await import('ajv/dist/2020.js') : await import('ajv')) as unknown as { default: AjvClass & { default?: AjvClass } };
  // Stryker disable next-line LogicalOperator: `.default` is the class itself again, so either operand is the same class
  const Ajv = loaded.default.default ?? loaded.default;
  // strict off: real-world schemas carry keywords ajv does not know (examples, format names…).
  const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: false });
  let validate: CompiledSchema;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    throw new UsageError(`--schema: not a usable JSON Schema: ${(error as Error).message}`);
  }
  return (text) => {
    const parsed = tryParseJson(text);
    if (!parsed.ok) return { ok: false, data: null, message: 'the answer is not JSON' };
    if (validate(parsed.value)) return { ok: true, data: parsed.value };
    // Stryker disable next-line OptionalChaining: ajv sets errors whenever validate returns false
    const first = validate.errors?.[0];
    return { ok: false, data: parsed.value, message: `the answer does not match the schema: ${first ? describe(first) : 'no detail'}` };
  };
}

/** One answer against one schema (batch lines: each may carry its own schema). */
export async function validateAnswer(schema: JsonObject, text: string): Promise<AnswerCheck> {
  return (await compileAnswerSchema(schema))(text);
}

/** The exit-9 error for a failed check. */
export function schemaMismatchError(check: Extract<AnswerCheck, { ok: false }>): GatechatError {
  return new GatechatError(check.message, ExitCode.SchemaMismatch, 'the answer is on stdout as it came');
}
