// Waiting for something a person would see to happen, with a bound.

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Polls check() until it returns a truthy value; the error names what was awaited and what was last seen. */
export async function waitFor(check, what, ms = 10_000) {
  const end = Date.now() + ms;
  let last;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
      last = value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > end) {
      const seen = last instanceof Error ? last.message : JSON.stringify(last);
      throw new Error(`timed out after ${ms} ms waiting for ${what} (last: ${seen})`);
    }
    await sleep(100);
  }
}
