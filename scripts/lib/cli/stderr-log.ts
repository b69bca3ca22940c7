/** A command's log on stderr: `<program>: <step> key=<JSON value> ...`, one line per call. */
export function stderrLog(program: string): (step: string, fields: Readonly<Record<string, unknown>>) => void {
  return (step, fields) => {
    const parts = Object.entries(fields).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
    process.stderr.write(`${program}: ${step} ${parts.join(' ')}\n`);
  };
}
