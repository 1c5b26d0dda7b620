// One file's read–check–write as one step: calls holding the lock for the same key (a file's real
// path) run one after another, in the order they asked, so an edit always starts from the text the
// previous edit left. Agents of one process share it (parallel subagents); other processes are not
// held back by it.
const tails = new Map<string, Promise<void>>();

export async function withFileLock<T>(key: string, use: () => Promise<T>): Promise<T> {
  const before = tails.get(key) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = before.then(() => mine);
  tails.set(key, tail);
  await before;
  try {
    return await use();
  } finally {
    release();
    // The last holder leaves no entry behind, so the map holds only files being edited.
    if (tails.get(key) === tail) tails.delete(key);
  }
}
