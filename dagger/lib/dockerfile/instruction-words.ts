import { JSONInstruction } from 'dockerfile-ast';
import type { Instruction } from 'dockerfile-ast';

export interface RawWord {
  /** As written (quotes and variables still in it), continuations removed. */
  readonly raw: string;
  /** 1-based line where the word starts. */
  readonly line: number;
  /** True for a word of the JSON-array form: already unquoted, no quote processing. */
  readonly json: boolean;
}

/** Maps parser positions back to offsets of the original text. */
export function lineOffsets(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) starts.push(i + 1);
  }
  return starts;
}

interface Pos {
  readonly line: number;
  readonly character: number;
}

function slice(text: string, starts: readonly number[], from: Pos, to: Pos): string {
  return text.slice((starts[from.line] ?? 0) + from.character, (starts[to.line] ?? 0) + to.character);
}

function withoutContinuations(raw: string, escape: string): string {
  return raw.split(`${escape}\r\n`).join('').split(`${escape}\n`).join('');
}

/** Rejoins tokens the parser split inside quotes (`"a b"` is one word to BuildKit). */
function joinQuoted(tokens: readonly RawWord[], escape: string): RawWord[] {
  const out: RawWord[] = [];
  let open: RawWord | undefined;
  for (const token of tokens) {
    const merged: RawWord = open === undefined ? token : { ...open, raw: `${open.raw} ${token.raw}` };
    let quote = '';
    for (let i = 0; i < merged.raw.length; i++) {
      const c = merged.raw[i];
      if (quote !== "'" && c === escape) i++;
      else if (quote === '' && (c === '"' || c === "'")) quote = c;
      else if (c === quote) quote = '';
    }
    if (quote === '') {
      out.push(merged);
      open = undefined;
    } else open = merged;
  }
  if (open !== undefined) out.push(open);
  return out;
}

/**
 * The words of a COPY/ADD after its flags, in order: heredoc markers and bodies dropped
 * (they are not context reads), JSON-array form decoded, shell-form quotes rejoined.
 */
export function instructionWords(
  instruction: Instruction,
  text: string,
  starts: readonly number[],
  escape: string,
): RawWord[] {
  const args = instruction.getArguments();
  if (args.length === 0) return [];
  const first = args[0];
  const last = args[args.length - 1];
  if (first !== undefined && last !== undefined && first.getValue().startsWith('[')) {
    const raw = withoutContinuations(slice(text, starts, first.getRange().start, last.getRange().end), escape);
    try {
      const parsed: unknown = JSON.parse(raw);
      if (Array.isArray(parsed) && parsed.every((v) => typeof v === 'string')) {
        const ranges = instruction instanceof JSONInstruction ? instruction.getJSONStrings() : [];
        const lineOf = (i: number) =>
          (ranges.length === parsed.length ? (ranges[i]?.getRange().start.line ?? 0) : first.getRange().start.line) + 1;
        return (parsed as string[]).map((value, i) => ({ raw: value, line: lineOf(i), json: true }));
      }
    } catch {
      // not valid JSON: BuildKit falls back to the shell form
    }
  }
  const markers = args.filter((a) => a.getValue().startsWith('<<'));
  const lastMarkerLine = Math.max(-1, ...markers.map((a) => a.getRange().start.line));
  const tokens: RawWord[] = [];
  for (const arg of args) {
    const start = arg.getRange().start;
    if (arg.getValue().startsWith('<<')) continue;
    if (lastMarkerLine >= 0 && start.line > lastMarkerLine) break; // heredoc bodies follow the marker line
    tokens.push({
      raw: withoutContinuations(slice(text, starts, start, arg.getRange().end), escape),
      line: start.line + 1,
      json: false,
    });
  }
  return joinQuoted(tokens, escape);
}
