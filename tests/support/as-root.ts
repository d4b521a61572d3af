import { runningAsRoot } from './needs-root';

/**
 * `it` for a test that needs root, titled "... (needs root)": skipped without root, and then named
 * in the run's closing lines (needs-root.js).
 */
export function asRoot(title: `${string} (needs root)`, test: jest.ProvidesCallback, timeout?: number): void {
  (runningAsRoot() ? it : it.skip)(title, test, timeout);
}
