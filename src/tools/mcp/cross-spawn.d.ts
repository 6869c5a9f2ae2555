// cross-spawn ships no types; only the call used here is declared (the SDK's stdio transport spawns
// with it too: on Windows it resolves `npx` to `npx.cmd` and the like).
declare module 'cross-spawn' {
  import type { ChildProcess, SpawnOptions } from 'node:child_process';
  function spawn(command: string, args: readonly string[], options: SpawnOptions): ChildProcess;
  export default spawn;
}
