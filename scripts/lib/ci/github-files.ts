import { randomUUID } from 'node:crypto';
import { appendFile } from 'node:fs/promises';

/** Appends `name=value` to a `$GITHUB_OUTPUT` / `$GITHUB_ENV` file; a value with a newline uses the heredoc form. */
export async function appendGitHubVariable(file: string, name: string, value: string): Promise<void> {
  if (!value.includes('\n')) return appendFile(file, `${name}=${value}\n`);
  const delimiter = `EOF_${randomUUID()}`;
  await appendFile(file, `${name}<<${delimiter}\n${value}\n${delimiter}\n`);
}
