// A zombie is not a running process: see src/storage/process-state.ts.
export { isRunning } from '../../src/storage/process-state.js';
