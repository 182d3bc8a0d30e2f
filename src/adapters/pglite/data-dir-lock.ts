import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** Another process (or this one) has the directory open: two PGlites on one directory would corrupt it. */
export class DataDirInUseError extends Error {
  override readonly name = 'DataDirInUseError';
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(`${dataDir} is in use by process ${pid}: one petstore at a time may open a PGlite data directory`);
  }
}

const LOCK_FILE = 'petstore.lock';

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as { code?: unknown }).code === 'EPERM';
  }
};

/**
 * Takes the directory's lock: a file naming this process, created exclusively, and answers how
 * to let it go. PGlite takes none (two instances on one directory both open it, each writing
 * over the other's pages). A lock left by a process that is gone (killed, crashed) is taken over.
 */
export function lockDataDir(dataDir: string): () => void {
  const path = join(dataDir, LOCK_FILE);
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'EEXIST' || attempt > 0) throw error;
      const pid = Number.parseInt(readFileSync(path, 'utf8'), 10);
      if (Number.isInteger(pid) && isRunning(pid)) throw new DataDirInUseError(dataDir, pid);
      rmSync(path, { force: true });
    }
  }
}
