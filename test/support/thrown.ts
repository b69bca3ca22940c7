// What a refusal throws, for asserting its code and message: another error type propagates, no throw fails the test.
type ErrorClass<E> = abstract new (...args: never[]) => E;

export function thrown<E extends Error>(type: ErrorClass<E>, run: () => unknown): E {
  try {
    run();
  } catch (error) {
    if (error instanceof type) return error;
    throw error;
  }
  throw new Error(`expected a ${type.name}`);
}

export async function rejected<E extends Error>(type: ErrorClass<E>, run: () => Promise<unknown>): Promise<E> {
  try {
    await run();
  } catch (error) {
    if (error instanceof type) return error;
    throw error;
  }
  throw new Error(`expected a ${type.name}`);
}
