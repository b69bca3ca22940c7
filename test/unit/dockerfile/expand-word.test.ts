import { describe, expect, it } from 'vitest';
import { expandWord } from '../../../scripts/lib/dockerfile/index.ts';

const vars = new Map([
  ['A', 'one'],
  ['EMPTY', ''],
]);
const expand = (word: string, quotes = true, escape = '\\') => expandWord(word, (n) => vars.get(n), { escape, quotes });

describe('expandWord', () => {
  it('expands $NAME and ${NAME}, unknown names to nothing', () => {
    expect(expand('$A/${A}x/$NOPE/${NOPE}y')).toEqual('one/onex//y');
  });

  it('applies :- :+ - + operators like the shell', () => {
    expect(expand('${EMPTY:-d} ${EMPTY-d} ${A:+set} ${NOPE+set}')).toEqual('d  set ');
  });

  it('keeps single-quoted text literal and strips quotes in shell form only', () => {
    expect(expand(`'$A' "$A"`)).toEqual('$A one');
    expect(expand(`"$A"`, false)).toEqual('"one"');
  });

  it('takes the character after the escape literally', () => {
    expect(expand('\\$A')).toEqual('$A');
    expect(expand('`$A', true, '`')).toEqual('$A');
  });

  it('leaves an unterminated ${ as written', () => {
    expect(expand('${A')).toEqual('${A');
  });
});
