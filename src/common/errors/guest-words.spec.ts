import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import * as ts from 'typescript';
import { ERROR_CODES } from './error-code';

/*
 * What a refusal says may reach a guest: the drop-in shows `detail` and field messages as they
 * come. So no message of a DomainError (or UpstreamError) names a setting, a header or a file;
 * the operator's log may. The few exceptions below are read only by a site's developer or an operator.
 */

const root = resolve(__dirname, '../../..');
const SETTING = /\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/;
const HEADER = /\b(?:X|[A-Z][a-z]+)(?:-[A-Z][a-z]+)+\b/;
const FILE = /(?:\b(?:src|docs|test|sandbox)\/|\b[\w-]+\.(?:ts|js|json|md|env)\b)/;

interface Said {
  where: string;
  text: string;
}

/** Messages only a site's developer or an operator reads, each with why. */
const NOT_A_GUESTS: { file: string; text: RegExp; why: string }[] = [
  {
    file: 'src/common/idempotency/idempotency.service.ts',
    text: /Idempotency-Key (header|was already used)/,
    why: "the API's own header, missing, malformed or reused: a site's bug; the drop-in sends a fresh valid key per attempt",
  },
  { file: 'src/common/admin/admin-key.guard.ts', text: /ADMIN_API_KEY/, why: 'admin routes: read by the operator' },
  {
    file: 'src/invoices/invoice-items.service.ts',
    text: /INVOICE_ITEMS_ENDPOINT/,
    why: 'only an operator’s item sends realizationDates; the extras the guest adds come from the catalogue',
  },
];

function sourceFiles(folder: string): string[] {
  return readdirSync(join(root, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** The literal text of a string or template (its `${…}` parts left out: their values are numbers and ids). */
function literalText(node: ts.Node): string | null {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) return [node.head.text, ...node.templateSpans.map((span) => span.literal.text)].join('…');
  return null;
}

/** The texts of an error's arguments: its detail and field messages, not its code, field names or log-only details. */
function textsOf(argument: ts.Node): string[] {
  const texts: string[] = [];
  const walk = (node: ts.Node): void => {
    if (ts.isPropertyAssignment(node) && /^(field|operation|cause)$/.test(node.name.getText())) return;
    const text = literalText(node);
    if (text !== null) texts.push(text);
    else node.forEachChild(walk);
  };
  walk(argument);
  return texts;
}

function errorMessages(file: string): Said[] {
  const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const found: Said[] = [];
  const visit = (node: ts.Node): void => {
    let args: readonly ts.Node[] | undefined;
    if (ts.isNewExpression(node) && /^(DomainError|UpstreamError)$/.test(node.expression.getText())) args = node.arguments?.slice(1);
    if (ts.isCallExpression(node) && /^DomainError\.\w+$/.test(node.expression.getText())) args = node.arguments;
    for (const argument of args ?? []) {
      const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      for (const text of textsOf(argument)) found.push({ where: `${file}:${line}`, text });
    }
    node.forEachChild(visit);
  };
  visit(source);
  return found;
}

const messages = sourceFiles('src').flatMap(errorMessages);
const excused = (said: Said) => NOT_A_GUESTS.some((entry) => said.where.startsWith(`${entry.file}:`) && entry.text.test(said.text));

describe('words a guest may see name no setting, header or file', () => {
  it('finds the messages of the errors the service throws', () => {
    expect(messages.length).toBeGreaterThan(50);
    expect(messages.map((said) => said.text)).toContain('This quote is unknown or has expired. Please ask for a new quote.');
  });

  it.each([
    ['a setting', SETTING],
    ['a header', HEADER],
    ['a file', FILE],
  ])('no error message names %s', (_name, pattern) => {
    const naming = messages.filter((said) => pattern.test(said.text) && !excused(said));
    expect(naming.map((said) => `${said.where} ${said.text}`)).toEqual([]);
  });

  it('every exception is still needed: each names a message that is there', () => {
    for (const entry of NOT_A_GUESTS) {
      expect(messages.some((said) => said.where.startsWith(`${entry.file}:`) && entry.text.test(said.text))).toBe(true);
    }
  });

  it("the error table's titles (in every problem body) name no setting or file, and only the idempotency codes the API's header", () => {
    for (const [code, entry] of Object.entries(ERROR_CODES)) {
      expect([code, SETTING.test(entry.title) || FILE.test(entry.title)]).toEqual([code, false]);
      if (!code.startsWith('idempotency_')) expect([code, HEADER.test(entry.title)]).toEqual([code, false]);
    }
  });

  it('knows the patterns it looks for', () => {
    expect(
      ['BOOKING_MAX_NIGHTS', 'Idempotency-Key', 'X-Forwarded-For', 'docs/upstream.md'].map((text) =>
        [SETTING, HEADER, FILE].some((p) => p.test(text)),
      ),
    ).toEqual([true, true, true, true]);
    expect([SETTING, HEADER, FILE].some((p) => p.test('This stay needs at least 3 nights; 3-D Secure; card.exp_month'))).toBe(false);
    expect(relative(root, __filename)).toBe('src/common/errors/guest-words.spec.ts');
  });
});
