// What a call that must fail threw, for the suites to assert on.

/** The rejection reason of `promise`; throws when it fulfils instead. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected a rejection')
}

/** What `fn` throws; throws when it returns instead. */
export function thrown(fn: () => unknown): unknown {
  try {
    fn()
  } catch (error) {
    return error
  }
  throw new Error('expected a throw')
}
