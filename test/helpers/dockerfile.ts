import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync }
  from 'node:fs';
import path from 'node:path';

// A Dockerfile's steps run without Docker (this machine has no daemon and cannot pull base
// images): each stage gets a folder standing for its root, the paths the Dockerfile names are
// mapped into it, and COPY, WORKDIR, ENV, RUN and USER do there what Docker would do in the
// image. What stands in for the base image is this machine's own Node.js and shell.

export type Instruction = { keyword: string; args: string };

// Instructions in order: continuation lines joined, comments and blank lines dropped.
export function parseDockerfile(text: string): Instruction[] {
  const lines = text.split('\n').filter((line) => !/^\s*#/.test(line));
  const joined: string[] = [];
  let current = '';
  for (const line of lines) {
    if (/\\\s*$/.test(line)) {
      current += `${line.replace(/\\\s*$/, '')} `;
      continue;
    }
    current += line;
    if (current.trim().length > 0) joined.push(current.trim());
    current = '';
  }
  return joined.map((line) => {
    const [keyword] = line.split(/\s+/);
    return { keyword: keyword!.toUpperCase(), args: line.slice(keyword!.length).trim() };
  });
}

// `KEY=value KEY2=value2`: values without spaces, as this project's Dockerfile writes them.
function parseEnv(args: string): Record<string, string> {
  return Object.fromEntries(args.split(/\s+/).filter(Boolean).map((pair) => {
    const at = pair.indexOf('=');
    return [pair.slice(0, at), pair.slice(at + 1).replace(/^"(.*)"$/, '$1')];
  }));
}

// The command of CMD or HEALTHCHECK … CMD, in its exec (JSON) form.
function execForm(args: string): string[] {
  const json = args.slice(args.indexOf('['));
  return JSON.parse(json) as string[];
}

// The flags (`--from=build`) and the words after them.
function splitFlags(args: string): { flags: Record<string, string>; words: string[] } {
  const flags: Record<string, string> = {};
  const words: string[] = [];
  for (const word of args.split(/\s+/).filter(Boolean)) {
    const flag = /^--([a-z-]+)=(.*)$/.exec(word);
    if (flag) flags[flag[1]!] = flag[2]!;
    else words.push(word);
  }
  return { flags, words };
}

// The build context as Docker sends it: the repository's files (tracked, or new and not
// ignored by git) without those .dockerignore excludes, copied into `target`.
export function copyBuildContext(root: string, target: string): void {
  const ignore = readFileSync(path.join(root, '.dockerignore'), 'utf8').split('\n')
    .map((line) => line.trim()).filter((line) => line.length > 0 && !line.startsWith('#'))
    .map((pattern) => new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '[^/]*')}(/|$)`));
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard',
    '-z'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).split('\0');
  for (const file of listed) {
    if (file.length === 0 || ignore.some((pattern) => pattern.test(file))) continue;
    const source = path.join(root, file);
    if (!existsSync(source)) continue; // Deleted in the working tree.
    mkdirSync(path.dirname(path.join(target, file)), { recursive: true });
    cpSync(source, path.join(target, file));
  }
}

export type Stage = {
  name: string | null;
  root: string;
  workdir: string;
  env: Record<string, string>;
  user: { uid: number; gid: number } | null;
  cmd: string[] | null;
  healthcheck: string[] | null;
};

export type BuildOptions = {
  context: string;
  // Where the stages' roots go, one folder each.
  workspace: string;
  // The container paths the Dockerfile writes to, mapped into each stage's root.
  mappedPaths: string[];
  // The environment every step starts from (PATH, HOME): the base image's.
  baseEnv: Record<string, string>;
  runTimeoutMs: number;
  log(line: string): void;
};

// A container path of a stage, on this machine.
export function hostPath(stage: Stage, containerPath: string): string {
  return path.join(stage.root, containerPath);
}

// Runs every stage of the Dockerfile; returns them, the last being the image.
export function buildStages(instructions: Instruction[], options: BuildOptions): Stage[] {
  const stages: Stage[] = [];
  let stage: Stage | null = null;
  const mapText = (text: string, into: Stage) => options.mappedPaths.reduce((mapped, from) =>
    mapped.replace(new RegExp(`(^|[\\s="'])${from}(?=$|[\\s/"'])`, 'g'),
      (_match, before: string) => `${before}${hostPath(into, from)}`), text);
  for (const { keyword, args } of instructions) {
    if (keyword === 'FROM') {
      const name = /\sAS\s+(\S+)$/i.exec(args)?.[1] ?? null;
      const root = path.join(options.workspace, `stage-${stages.length}`);
      mkdirSync(root, { recursive: true });
      chmodSync(root, 0o755);
      stage = { name, root, workdir: '/', env: {}, user: null, cmd: null, healthcheck: null };
      stages.push(stage);
      continue;
    }
    if (stage === null) throw new Error(`${keyword} before FROM`);
    const current: Stage = stage;
    const cwd = () => hostPath(current, current.workdir);
    switch (keyword) {
      case 'WORKDIR':
        current.workdir = path.posix.resolve(current.workdir, args);
        mkdirSync(cwd(), { recursive: true });
        break;
      case 'ENV':
        for (const [key, value] of Object.entries(parseEnv(args))) {
          current.env[key] = mapText(value, current);
        }
        break;
      case 'COPY': {
        const { flags, words } = splitFlags(args);
        const destination = words.pop()!;
        const from = flags.from === undefined ? null
          : stages.find((candidate) => candidate.name === flags.from);
        if (from === undefined) throw new Error(`COPY --from=${flags.from}: no such stage`);
        const target = path.posix.isAbsolute(destination) ? hostPath(current, destination)
          : path.join(cwd(), destination);
        for (const source of words) {
          const sourcePath = from === null ? path.join(options.context, source)
            : hostPath(from, source);
          copyInto(sourcePath, target, destination.endsWith('/') || words.length > 1);
        }
        break;
      }
      case 'RUN': {
        const command = mapText(args, current);
        options.log(`RUN ${args}`);
        execFileSync('/bin/sh', ['-c', command], { cwd: cwd(), stdio: 'pipe',
          env: { ...options.baseEnv, ...current.env }, timeout: options.runTimeoutMs,
          maxBuffer: 64 * 1024 * 1024 });
        break;
      }
      case 'USER': {
        const [uid, gid] = args.split(':').map(Number);
        if (!Number.isInteger(uid) || !Number.isInteger(gid)) {
          throw new Error(`USER ${args}: give a numeric uid:gid`);
        }
        current.user = { uid: uid!, gid: gid! };
        break;
      }
      case 'CMD':
        current.cmd = execForm(args);
        break;
      case 'HEALTHCHECK':
        current.healthcheck = execForm(args.slice(args.indexOf('CMD')));
        break;
      case 'EXPOSE': case 'VOLUME':
        break;
      default:
        throw new Error(`${keyword}: not an instruction this runner knows`);
    }
  }
  return stages;
}

// Docker's COPY: a directory's contents go into the target; a file goes into a target folder
// (one ending in `/`, or one of several sources) or becomes the target.
function copyInto(source: string, target: string, targetIsFolder: boolean): void {
  if (statSync(source).isDirectory()) {
    mkdirSync(target, { recursive: true });
    for (const entry of readdirSync(source)) {
      cpSync(path.join(source, entry), path.join(target, entry),
        { recursive: true, verbatimSymlinks: true });
    }
    return;
  }
  const file = targetIsFolder ? path.join(target, path.basename(source)) : target;
  mkdirSync(path.dirname(file), { recursive: true });
  cpSync(source, file);
}
