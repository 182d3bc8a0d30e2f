import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** SIGTERM, then SIGKILL if the process has not exited within `timeoutMs`; resolves once it has exited. */
export const stopChild = (child: ChildProcess, timeoutMs: number): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });

/** Linux's USER_HZ: /proc reports CPU time in these ticks. */
const TICKS_PER_SECOND = 100;

/** The CPU seconds (user + system) a process has used, from /proc; undefined once it is gone. */
export const cpuSecondsOf = (pid: number | undefined): number | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces: utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
};
