// The README's CLI section documents every command `etax` has, and no command it lacks: the
// commands are read from `etax --help` and each group's help, as an operator would find them,
// and compared with the section's `### \`etax …\`` headings.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runEtax } from '../helpers/cli.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// The names listed under "Commands:" in a help text, without commander's own `help`.
function commandNames(help: string): string[] {
  const listed = help.split('\nCommands:\n')[1] ?? '';
  return [...listed.matchAll(/^ {2}([a-z][a-z-]*)/gm)].map((match) => match[1]!)
    .filter((name) => name !== 'help');
}

async function help(args: string[]): Promise<string> {
  const result = await runEtax({}, [...args, '--help']);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout;
}

// Every runnable command as its words, e.g. `account create`, `serve`.
async function cliCommands(): Promise<string[]> {
  const commands: string[] = [];
  for (const name of commandNames(await help([]))) {
    const subcommands = commandNames(await help([name]));
    if (subcommands.length === 0) commands.push(name);
    else commands.push(...subcommands.map((subcommand) => `${name} ${subcommand}`));
  }
  return commands.sort();
}

// The commands a README heading documents: `etax account-business get|set …` is two, and a
// heading may name several commands, each in its own `etax …` code span.
function readmeCommands(readme: string, known: string[]): string[] {
  const section = readme.split('\n## CLI\n')[1]!.split('\n## ')[0]!;
  const documented = new Set<string>();
  for (const [, heading] of section.matchAll(/^### (.+)$/gm)) {
    for (const [, words] of heading!.matchAll(/`etax ([^`]*)`/g)) {
      const [group, second = ''] = words!.split(' ');
      for (const choice of second.split('|')) {
        const candidate = `${group} ${choice}`;
        documented.add(known.includes(candidate) ? candidate : group!);
      }
    }
  }
  return [...documented].sort();
}

describe("the README's CLI section", () => {
  it('documents every command of etax --help, and only those', async () => {
    const commands = await cliCommands();
    expect(commands).toContain('account create');
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readmeCommands(readme, commands)).toEqual(commands);
  }, 120_000);
});
