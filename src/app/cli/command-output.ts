/** Where a CLI command writes: its results to `out`, problems to `err` (tests capture both). */
export interface CommandOutput {
  out(line: string): void;
  err(line: string): void;
}

export const CONSOLE_OUTPUT: CommandOutput = { out: (line) => console.log(line), err: (line) => console.error(line) };
