import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

/*
 * The package as a consumer gets it: `npm pack` of the built dist (the system tier's global
 * setup builds it), installed into a fresh project outside the repository without dev
 * dependencies. Every command is bounded by a timeout.
 */

export const REPO = resolve(import.meta.dirname, '../..');

const execFileAsync = promisify(execFile);

/** Runs a command to completion within `timeoutMs`; on failure the error names the command and carries its output. */
export async function run(command: string, args: readonly string[], options: { cwd: string; timeoutMs: number; env?: NodeJS.ProcessEnv }): Promise<string> {
  try {
    const { stdout } = await execFileAsync(command, [...args], {
      cwd: options.cwd,
      env: options.env ?? process.env,
      timeout: options.timeoutMs,
      killSignal: 'SIGKILL',
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed: ${(error as Error).message}\n${stdout}\n${stderr}`, { cause: error });
  }
}

export interface PackedFile {
  readonly path: string;
}

/** `npm pack` of the repository into `work`: the tarball's path and the files it holds. */
export async function pack(work: string): Promise<{ readonly tarball: string; readonly files: readonly string[] }> {
  const [packed] = JSON.parse(await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: REPO, timeoutMs: 60_000 })) as [
    { filename: string; files: readonly PackedFile[] },
  ];
  return { tarball: join(work, packed.filename), files: packed.files.map((file) => file.path) };
}

/** A fresh ES module project `name` under `work`, with `packages` installed as a consumer installs them. */
export async function consumerProject(work: string, name: string, packages: readonly string[]): Promise<string> {
  const folder = join(work, name);
  await mkdir(folder);
  await run('npm', ['init', '-y'], { cwd: folder, timeoutMs: 15_000 });
  const manifest = JSON.parse(await readFile(join(folder, 'package.json'), 'utf8')) as Record<string, unknown>;
  await writeFile(join(folder, 'package.json'), JSON.stringify({ ...manifest, type: 'module' }, null, 2));
  await run('npm', ['install', ...packages, '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: folder, timeoutMs: 90_000 });
  return folder;
}

/** The range the package asks of one of its peer dependencies. */
export async function peerRange(name: string): Promise<string> {
  const { peerDependencies } = JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string> };
  const range = peerDependencies[name];
  if (range === undefined) throw new Error(`${name} is no peer dependency of the package`);
  return range;
}
