import { loadYoga, type Yoga } from 'yoga-layout/load';

// What Ink gets for `import Yoga from 'yoga-layout'` in the build (scripts/build.mjs). yoga-layout's
// own entry awaits its WebAssembly at the top level, which would keep the whole program from being
// CommonJS (and so from V8's code cache, bin/code-cache.js). Ink reads Yoga only while laying out, so
// an object filled before the first render serves it the same.
const yoga = {} as Yoga;
let loading: Promise<void> | undefined;

/** Before Ink's first render: compiles yoga's WebAssembly once per process. */
export function initYoga(): Promise<void> {
  loading ??= loadYoga().then((loaded) => {
    Object.assign(yoga, loaded);
  });
  return loading;
}

export * from 'yoga-layout/load';
export default yoga;
