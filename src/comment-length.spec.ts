import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as ts from 'typescript';

/*
 * Comments say why in a sentence or two: one over MAX_WORDS words fails, named by file:line.
 * Narration of the code and history go; a contract detail gets a pointer (docs/product-spec.md §7)
 * rather than a copy. A comment is a block, or `//` lines one under the other; markers and each
 * line's leading `*` are not words.
 */

const MAX_WORDS = 60;
const root = resolve(__dirname, '..');
const FOLDERS = ['src', 'sandbox', 'bench', 'chaos', 'test', 'scripts', 'clients', 'browser'];
/** Generated files: their comments are the generator's, rewritten on every build. */
const GENERATED = [/^clients\/.*openapi-types/, /^sandbox\/demo\/public\/checkout-client\.js$/];

interface Comment {
  line: number;
  words: number;
}

function sourceFiles(folder: string): string[] {
  return readdirSync(join(root, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'dist' ? [] : sourceFiles(path);
    return /\.(ts|js|mjs|cjs)$/.test(entry.name) && !GENERATED.some((generated) => generated.test(path)) ? [path] : [];
  });
}

function words(text: string): number {
  const stripped = text
    .replace(/^\/\*+|\*+\/$/g, ' ')
    .replace(/^\s*\/\/\/?/gm, ' ')
    .replace(/^\s*\*/gm, ' ');
  return stripped.split(/\s+/).filter(Boolean).length;
}

/** Every comment of a file, found by the TypeScript parser so that `//` inside a string or a regex is not one. */
function comments(file: string, text: string): Comment[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, file.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS);
  const ranges = new Map<number, ts.CommentRange>();
  const visit = (node: ts.Node): void => {
    const around = [...(ts.getLeadingCommentRanges(text, node.pos) ?? []), ...(ts.getTrailingCommentRanges(text, node.end) ?? [])];
    for (const range of around) ranges.set(range.pos, range);
    node.getChildren(source).forEach(visit);
  };
  visit(source);
  const found: Comment[] = [];
  let run: { start: number; end: number; text: string } | undefined;
  const close = () => {
    if (run) found.push({ line: source.getLineAndCharacterOfPosition(run.start).line + 1, words: words(run.text) });
    run = undefined;
  };
  for (const range of [...ranges.values()].sort((a, b) => a.pos - b.pos)) {
    const body = text.slice(range.pos, range.end);
    const single = range.kind === ts.SyntaxKind.SingleLineCommentTrivia;
    if (single && run && /^[ \t]*\r?\n[ \t]*$/.test(text.slice(run.end, range.pos))) {
      run = { ...run, end: range.end, text: `${run.text}\n${body}` };
      continue;
    }
    close();
    if (single) run = { start: range.pos, end: range.end, text: body };
    else found.push({ line: source.getLineAndCharacterOfPosition(range.pos).line + 1, words: words(body) });
  }
  close();
  return found;
}

/**
 * Whether a file may hold a long comment, by text alone: every block, and every run of lines with a
 * `//`, counted with whatever follows the marker. It counts at least the words the parser would, so
 * only the files it names are parsed (parsing every file is most of this spec's time).
 */
function mayHoldLong(text: string): boolean {
  if ((text.match(/\/\*[\s\S]*?\*\//g) ?? []).some((block) => words(block) > MAX_WORDS)) return true;
  let run = 0;
  for (const line of text.split('\n')) {
    const at = line.indexOf('//');
    run = at < 0 ? 0 : run + words(line.slice(at + 2));
    if (run > MAX_WORDS) return true;
  }
  return false;
}

describe('comment length', () => {
  it(`keeps every comment to ${MAX_WORDS} words`, () => {
    const long = FOLDERS.flatMap(sourceFiles).flatMap((file) => {
      const text = readFileSync(join(root, file), 'utf8');
      return (mayHoldLong(text) ? comments(file, text) : [])
        .filter((comment) => comment.words > MAX_WORDS)
        .map((comment) => `${file}:${comment.line} (${comment.words} words)`);
    });
    expect(long).toEqual([]);
  });

  it('parses every file that may hold a long comment: a long block, a long run of lines, a long trailing run', () => {
    const many = (count: number) => Array.from({ length: count }, (_, index) => `w${index}`).join(' ');
    expect(mayHoldLong(`/**\n * ${many(61)}\n */`)).toBe(true);
    expect(mayHoldLong(`// ${many(30)}\n// ${many(31)}`)).toBe(true);
    expect(mayHoldLong(`const a = 1; // ${many(40)}\n  // ${many(21)}`)).toBe(true);
    expect(mayHoldLong(`// ${many(30)}\n\n// ${many(31)}\n/* ${many(60)} */`)).toBe(false);
  });

  it('counts a run of line comments as one comment, and no comment marker inside a string', () => {
    const text = ['// one two', '// three', '', '// four', 'const a = "// not a comment"; /* five', ' * six */'].join('\n');
    expect(comments('sample.ts', text)).toEqual([
      { line: 1, words: 3 },
      { line: 4, words: 1 },
      { line: 5, words: 2 },
    ]);
  });
});
