/** An ordered, labelled tree. */
export interface Tree<T> {
  label: T;
  children: Tree<T>[];
}

/** The nodes of a tree in postorder, with the postorder index of each node's leftmost leaf. */
interface Postorder<T> {
  labels: T[];
  leftmost: Int32Array;
  /** Nodes that are the root or have a left sibling, ascending: Zhang–Shasha's key roots. */
  keyRoots: number[];
}

function postorder<T>(root: Tree<T>): Postorder<T> {
  const labels: T[] = [];
  const leftmost: number[] = [];
  const keyRoots: number[] = [];
  // Iterative, so that deep trees cannot overflow the stack.
  const stack: { node: Tree<T>; next: number; first: number; keyRoot: boolean }[] = [
    { node: root, next: 0, first: -1, keyRoot: true },
  ];
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    if (top.next < top.node.children.length) {
      const child = top.node.children[top.next];
      stack.push({ node: child, next: 0, first: -1, keyRoot: top.next > 0 });
      top.next++;
      continue;
    }
    stack.pop();
    const index = labels.length;
    labels.push(top.node.label);
    const first = top.first === -1 ? index : top.first;
    leftmost.push(first);
    if (top.keyRoot) keyRoots.push(index);
    const parent = stack[stack.length - 1];
    if (parent && parent.first === -1) parent.first = first;
  }
  return { labels, leftmost: Int32Array.from(leftmost), keyRoots };
}

/** Number of nodes of a tree. */
export function treeSize<T>(root: Tree<T>): number {
  let size = 0;
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop() as Tree<T>;
    size++;
    for (const child of node.children) stack.push(child);
  }
  return size;
}

/**
 * Tree edit distance (Zhang & Shasha, 1989): the cheapest sequence of node deletions and insertions (cost 1
 * each) and renames (cost `rename(a, b)`, expected within [0, 1]) turning tree `a` into tree `b`. Time
 * O(|a|·|b|·min(depth, leaves)²), memory O(|a|·|b|); `rename` is called at most once per pair of nodes.
 *
 * @example
 * const leaf = (label: string) => ({ label, children: [] });
 * treeEditDistance({ label: "a", children: [leaf("b")] }, { label: "a", children: [leaf("c"), leaf("b")] },
 *   (x, y) => (x === y ? 0 : 1)); // 1
 */
export function treeEditDistance<T>(a: Tree<T>, b: Tree<T>, rename: (x: T, y: T) => number): number {
  const A = postorder(a);
  const B = postorder(b);
  const na = A.labels.length;
  const nb = B.labels.length;
  const treeDist = new Float64Array(na * nb);
  const forest = new Float64Array((na + 1) * (nb + 1));
  const cols = nb + 1;

  for (const i of A.keyRoots) {
    const li = A.leftmost[i];
    for (const j of B.keyRoots) {
      const lj = B.leftmost[j];
      const rows = i - li + 2;
      const width = j - lj + 2;
      forest[0] = 0;
      for (let di = 1; di < rows; di++) forest[di * cols] = di;
      for (let dj = 1; dj < width; dj++) forest[dj] = dj;
      for (let di = 1; di < rows; di++) {
        const x = li + di - 1;
        const lx = A.leftmost[x];
        for (let dj = 1; dj < width; dj++) {
          const y = lj + dj - 1;
          const ly = B.leftmost[y];
          const remove = forest[(di - 1) * cols + dj] + 1;
          const insert = forest[di * cols + dj - 1] + 1;
          let value: number;
          if (lx === li && ly === lj) {
            // Both prefixes are whole trees: their distance is final.
            value = Math.min(
              remove,
              insert,
              forest[(di - 1) * cols + dj - 1] + rename(A.labels[x], B.labels[y]),
            );
            treeDist[x * nb + y] = value;
          } else {
            value = Math.min(remove, insert, forest[(lx - li) * cols + (ly - lj)] + treeDist[x * nb + y]);
          }
          forest[di * cols + dj] = value;
        }
      }
    }
  }
  return treeDist[(na - 1) * nb + (nb - 1)];
}
