import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/** The report's JSON Schema (schema/report.v1.schema.json). */
export const reportSchema = JSON.parse(
  readFileSync(join(process.cwd(), 'schema/report.v1.schema.json'), 'utf8'),
) as Record<string, unknown>;

// ajv-formats is CommonJS: under ESM the default import is its module.exports, whose
// `default` is the plugin.
const addFormats = addFormatsModule.default;

// strictRequired would refuse `if/then: required` of a property declared at the top level.
const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false });
addFormats(ajv);
const validate = ajv.compile(reportSchema);

/**
 * Validates a parsed report against the schema (draft 2020-12, formats checked).
 * @returns the errors as `instancePath message` lines; empty when the report is valid.
 */
export function schemaErrors(report: unknown): string[] {
  if (validate(report)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`.trim());
}
