/** What `run` throws, or undefined when it returns: for asserting on an error's fields with toMatchObject. */
export function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}
